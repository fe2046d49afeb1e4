"""Step 2 of a check, on a GPU: the learner's code at the exercise's GPU size, guarded and
poisoned as in the simulator; then, if it is right, its time against our solution's and the
registers and local memory of its compiled kernels.

Two halves, as step 1's (labkit.exercises.check): :func:`on_gpu` runs in the check's child
process (labkit.exercises.isolated), which tells the parent each phase as it starts, and hands
over data only: each array's guarded buffer (files: labkit.exercises.handover), each round's two
timings, the compiled resources. :func:`judged_on_gpu` runs in labkit's process: it makes the
inputs again from the seed it chose, compares the buffers with NumPy's answer, computes the time
ratio and the bandwidth from the timings, and judges every criterion. A verdict the child sends
is not even read.

Timing (chapter 1's method): ROUNDS rounds, each timing ours then the learner's with labkit's
timer (warm-up, REPEATS repetitions, median, L2 flushed when the exercise reads HBM, clocks read
during the repetitions); each round gives a ratio learner / ours, and the verdict takes the median
ratio, so a clock change between the two kernels' timings cannot decide it alone.
"""

from __future__ import annotations

import importlib
import statistics
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import ValidationError

from labkit.exercises import handover
from labkit.exercises.guarded import Guarded, problems
from labkit.exercises.learner import LearnerError, learner_code, load
from labkit.exercises.spec import Exercise
from labkit.exercises.verdicts import GpuRun, Verdict, correctness, judge
from labkit.gpu.timing import Timing

ROUNDS = 3
REPEATS = 20
WARMUP = 3
#: The compiled resources a GPU step may hand over (labkit.exercises.metrics names them).
RESOURCES = ("registers", "local_bytes")
#: The longest GPU name the answer may carry (NVML's are under 100 characters).
GPU_NAME_CHARACTERS = 200


def on_gpu(exercise: Exercise, path: Path, shown_as: str, seed: int, hand_over: Path,
           phase: Callable[..., None] = lambda name, **fields: None) -> dict:
    """The child's half, without Numba's performance warnings (a small grid is what some exercises
    teach to see; the report's criteria and hints say it, the warnings would only repeat it in
    colour codes above the report). ``phase(name, **fields)`` is told what the step starts doing
    (label ``exercise.phase.<name>``). Writes the buffers in ``hand_over``; returns the rest:
    ``gpu`` (its name), ``rounds`` (each ``{"reference": Timing, "learner": Timing}``, none when
    its own look at the output found it wrong) and ``resources``."""
    from labkit.gpu import expected_warnings_hidden

    with expected_warnings_hidden():
        return _on_gpu(exercise, path, shown_as, seed, hand_over, phase)


def _on_gpu(exercise: Exercise, path: Path, shown_as: str, seed: int, hand_over: Path,
            phase: Callable[..., None]) -> dict:
    from labkit.gpu import cuda
    from labkit.gpu.device import read_device_facts
    from labkit.gpu.timing import time_gpu

    phase("load")
    module = load(path, shown_as, exercise.entries)
    ours = importlib.import_module(f"labkit.exercises.solutions.{exercise.solution}")
    inputs = exercise.inputs(exercise.gpu_elements, np.random.default_rng(seed))
    theirs_run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
    phase("check", elements=exercise.gpu_elements)
    with learner_code(path, shown_as):
        exercise.call(module, theirs_run.args)
        cuda.synchronize()
    raw = theirs_run.raw()
    handover.written(raw, hand_over)
    answer = {"gpu": read_device_facts().name, "rounds": [], "resources": {}}
    if problems(raw, inputs, exercise.outputs, exercise.scratch, exercise.expected(inputs), exercise.rtol,
                exercise.atol):
        return answer    # wrong: labkit's process will find it so too; nothing to time
    ours_run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
    for number in range(1, ROUNDS + 1):
        phase("time", round=number, rounds=ROUNDS)
        reference = time_gpu(lambda: exercise.call(ours, ours_run.args), warmup=WARMUP, repeats=REPEATS,
                             flush_l2=exercise.flush_l2)
        with learner_code(path, shown_as):
            learner = time_gpu(lambda: exercise.call(module, theirs_run.args), warmup=WARMUP, repeats=REPEATS,
                               flush_l2=exercise.flush_l2)
        answer["rounds"].append({"reference": reference.model_dump(mode="json"),
                                 "learner": learner.model_dump(mode="json")})
    answer["resources"] = compiled_resources(module, exercise)
    return answer


def judged_on_gpu(exercise: Exercise, seed: int, answer: dict, hand_over: Path, shown_as: str
                  ) -> tuple[list[Verdict], GpuRun | None]:
    """labkit's half: the verdicts and the GpuRun, from the child's ``answer`` and the buffers in
    ``hand_over``, the inputs made again here from ``seed``. The time ratio is the median over the
    rounds of learner / ours (medians), the GpuRun shows the round nearest it; the bandwidth is
    floor bytes / the learner's median time. A wrong output skips the GPU criteria (``wrong_on_gpu``),
    whatever timings came with it; a right one must come with ROUNDS rounds of valid timings. An
    answer of any other shape (labkit.exercises.handover) is a LearnerError."""
    sent = answer if isinstance(answer, dict) else {}
    inputs = exercise.inputs(exercise.gpu_elements, np.random.default_rng(seed))
    raw = handover.read(hand_over, inputs, shown_as)
    found = problems(raw, inputs, exercise.outputs, exercise.scratch, exercise.expected(inputs), exercise.rtol,
                     exercise.atol)
    del raw
    verdicts = [correctness("gpu", found)]
    gpu_criteria = [c for c in exercise.criteria if c.where == "gpu"]
    if found:
        return verdicts + [Verdict(metric=c.metric, where="gpu", status="skipped", note="wrong_on_gpu")
                           for c in gpu_criteria], None
    gpu, rounds = sent.get("gpu"), _rounds(sent.get("rounds"), shown_as)
    if not isinstance(gpu, str) or not 0 < len(gpu) <= GPU_NAME_CHARACTERS:
        raise LearnerError(handover.malformed(shown_as, "GPU's name"))
    measured = handover.numbers(sent.get("resources"), RESOURCES, shown_as, "compiled resources", all_of=False,
                                at_least=0)
    ratios = [learner.median_seconds / reference.median_seconds for reference, learner in rounds]
    measured["time_ratio"] = statistics.median(ratios)
    reference, learner = rounds[min(range(ROUNDS), key=lambda i: abs(ratios[i] - measured["time_ratio"]))]
    if exercise.floor_bytes_per_element:
        measured["gbps"] = learner.gbps(exercise.floor_bytes_per_element * exercise.gpu_elements)
    for criterion in gpu_criteria:
        if criterion.metric in measured:
            verdicts.append(judge(criterion, measured[criterion.metric]))
        else:  # a resource of a kernel the learner's code did not compile
            verdicts.append(Verdict(metric=criterion.metric, where="gpu", status="skipped", note="gpu_only"))
    for shown in exercise.shown:
        if shown in measured and shown not in {c.metric for c in gpu_criteria}:
            verdicts.append(Verdict(metric=shown, where="gpu", status="shown", value=measured[shown]))
    run = GpuRun(gpu=gpu, elements=exercise.gpu_elements, reference=reference, learner=learner, rounds=ROUNDS)
    return verdicts, run


def _rounds(sent: object, shown_as: str) -> list[tuple[Timing, Timing]]:
    """ROUNDS pairs (ours, the learner's) of valid Timings; else a LearnerError."""
    if not isinstance(sent, list) or len(sent) != ROUNDS:
        raise LearnerError(handover.malformed(shown_as, "timings"))
    try:
        return [(Timing.model_validate(pair["reference"]), Timing.model_validate(pair["learner"])) for pair in sent]
    except (ValidationError, TypeError, KeyError):
        raise LearnerError(handover.malformed(shown_as, "timings")) from None


def compiled_resources(module, exercise: Exercise) -> dict[str, float]:
    """The most registers and local memory per thread over the learner's compiled kernels
    (Numba's dispatcher asks the driver for the compiled function's attributes)."""
    registers, local = [], []
    for name in exercise.entries:
        kernel = getattr(module, name)
        for dispatcher in _kernels(kernel, module):
            for value in _per_signature(dispatcher.get_regs_per_thread()):
                registers.append(value)
            for value in _per_signature(dispatcher.get_local_mem_per_thread()):
                local.append(value)
    found = {}
    if registers:
        found["registers"] = float(max(registers))
    if local:
        found["local_bytes"] = float(max(local))
    return found


def _kernels(entry, module) -> list:
    """The compiled kernels an entry stands for: itself, or (a host function) the module's kernels.
    Device functions (``cuda.jit(device=True)``) are not kernels: they have no registers of their
    own once inlined into the kernels that call them."""
    if _is_kernel(entry):
        return [entry]
    return [value for value in vars(module).values() if _is_kernel(value) and getattr(value, "overloads", None)]


def _is_kernel(value) -> bool:
    return hasattr(value, "get_regs_per_thread") and not getattr(value, "targetoptions", {}).get("device")


def _per_signature(value) -> list[int]:
    return list(value.values()) if isinstance(value, dict) else [value]
