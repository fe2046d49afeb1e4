"""Step 2 of a check, on a GPU: the learner's code at the exercise's GPU size, guarded and
poisoned as in the simulator; then, if it is right, its time against our solution's and the
registers and local memory of its compiled kernels. It runs in the check's child process
(labkit.exercises.isolated), which tells the parent each phase as it starts.

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

from labkit.exercises.guarded import Guarded
from labkit.exercises.learner import learner_code, load
from labkit.exercises.spec import Exercise
from labkit.exercises.verdicts import GpuRun, Verdict, correctness, judge

ROUNDS = 3
REPEATS = 20
WARMUP = 3


def on_gpu(exercise: Exercise, path: Path, shown_as: str, phase: Callable[..., None] = lambda name, **fields: None
           ) -> tuple[list[Verdict], GpuRun | None]:
    """The GPU step, without Numba's performance warnings (a small grid is what some exercises
    teach to see; the report's criteria and hints say it, the warnings would only repeat it in
    colour codes above the report). ``phase(name, **fields)`` is told what the step starts doing
    (label ``exercise.phase.<name>``)."""
    from labkit.gpu import expected_warnings_hidden

    with expected_warnings_hidden():
        return _on_gpu(exercise, path, shown_as, phase)


def _on_gpu(exercise: Exercise, path: Path, shown_as: str, phase: Callable[..., None]
            ) -> tuple[list[Verdict], GpuRun | None]:
    from labkit.device import read_device_facts
    from labkit.gpu import cuda
    from labkit.timing import time_gpu

    phase("load")
    module = load(path, shown_as, exercise.entries)
    ours = importlib.import_module(f"labkit.exercises.solutions.{exercise.solution}")
    inputs = exercise.inputs(exercise.gpu_elements, np.random.default_rng())
    theirs_run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
    phase("check", elements=exercise.gpu_elements)
    with learner_code(path, shown_as):
        exercise.call(module, theirs_run.args)
        cuda.synchronize()
    problems = theirs_run.problems(exercise.expected(inputs), exercise.rtol, exercise.atol)
    verdicts = [correctness("gpu", problems)]
    gpu_criteria = [c for c in exercise.criteria if c.where == "gpu"]
    if problems:
        return verdicts + [Verdict(metric=c.metric, where="gpu", status="skipped", note="wrong_on_gpu")
                           for c in gpu_criteria], None
    ours_run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
    rounds = []
    for number in range(1, ROUNDS + 1):
        phase("time", round=number, rounds=ROUNDS)
        reference = time_gpu(lambda: exercise.call(ours, ours_run.args), warmup=WARMUP, repeats=REPEATS,
                             flush_l2=exercise.flush_l2)
        with learner_code(path, shown_as):
            learner = time_gpu(lambda: exercise.call(module, theirs_run.args), warmup=WARMUP, repeats=REPEATS,
                               flush_l2=exercise.flush_l2)
        rounds.append((learner.median_seconds / reference.median_seconds, reference, learner))
    ratio = statistics.median(r[0] for r in rounds)
    _, reference, learner = min(rounds, key=lambda r: abs(r[0] - ratio))
    measured = {"time_ratio": ratio, **compiled_resources(module, exercise)}
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
    run = GpuRun(gpu=read_device_facts().name, elements=exercise.gpu_elements, reference=reference,
                 learner=learner, rounds=ROUNDS)
    return verdicts, run


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
