"""``labkit check NN-name``: the learner's file held to its exercise's criteria.

1. In Numba's CUDA simulator (always, so also without a GPU): the learner's code on fresh random
   inputs at the exercise's small size, guarded and poisoned (labkit.exercises.guarded), every
   launch traced; correctness, then each simulator criterion from the trace (labkit.exercises.metrics).
   On a GPU machine this step runs in a child process with NUMBA_ENABLE_CUDASIM=1.
2. On a GPU, once the code is correct in the simulator: correctness at the GPU size, then the
   learner's time against ours and the compiled kernels' resources (labkit.exercises.on_gpu).

A mistake in the learner's file stops the check with one line (labkit.exercises.learner).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Literal

import numpy as np

from labkit.errors import LabkitError
from labkit.exercises.guarded import Problem
from labkit.exercises.learner import LearnerError, learner_code, load
from labkit.exercises.metrics import metric
from labkit.exercises.spec import CORRECT, Criterion, Exercise, Where
from labkit.records import Record
from labkit.timing import Timing

Status = Literal["pass", "fail", "skipped", "shown"]
#: Why a criterion was skipped (label ``exercise.note.<note>``).
Note = Literal["gpu_only", "wrong_in_simulator", "wrong_on_gpu"]


class Verdict(Record):
    """One criterion's outcome: the value measured (None when it could not be), pass, fail, or
    skipped (a GPU criterion without a GPU, or after a wrong output); "shown": a metric without a
    target, shown for what it teaches."""

    metric: str
    where: Where
    status: Status
    value: float | None = None
    problems: list[Problem] = []       # what was wrong with the output (CORRECT)
    note: Note | None = None           # why it was skipped


class GpuRun(Record):
    """What the GPU step measured: the device, and our kernel's and the learner's times."""

    gpu: str
    elements: int
    reference: Timing
    learner: Timing
    rounds: int


class CheckReport(Record):
    exercise: str
    file: str
    backend: Literal["gpu", "simulator"]
    verdicts: list[Verdict] = []
    error: str | None = None          # a mistake in the learner's file, in one line
    gpu_run: GpuRun | None = None

    @property
    def passed(self) -> bool:
        """No mistake in the file and no criterion failed (skipped ones aside)."""
        return self.error is None and not self.failed()

    @property
    def complete(self) -> bool:
        """Every criterion was checked (on a GPU)."""
        return not any(v.status == "skipped" for v in self.verdicts)

    def failed(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.status == "fail"]


def judge(criterion: Criterion, value: float) -> Verdict:
    """The verdict of one criterion from its measured value."""
    return Verdict(metric=criterion.metric, where=criterion.where,
                   status="pass" if criterion.passes(value) else "fail", value=value)


def correctness(where: Where, problems: list[Problem]) -> Verdict:
    return Verdict(metric=CORRECT, where=where, status="fail" if problems else "pass", problems=problems)


def in_simulator(exercise: Exercise, path: Path, shown_as: str, seed: int | None = None) -> list[Verdict]:
    """Step 1, in this process (which must be the simulator's): correctness and the trace's metrics."""
    from labkit.exercises.guarded import Guarded
    from labkit.exercises.watch import watched
    from labkit.gpu import cuda

    module = load(path, shown_as, exercise.entries)
    inputs = exercise.inputs(exercise.simulator_elements, np.random.default_rng(seed))
    run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
    with watched(exercise.simulator_elements, module) as evidence, learner_code(path, shown_as):
        exercise.call(module, run.args)
    problems = run.problems(exercise.expected(inputs), exercise.rtol, exercise.atol)
    verdicts = []
    for criterion in exercise.criteria:
        if criterion.metric == CORRECT:
            verdicts.append(correctness("simulator", problems))
        elif criterion.where == "simulator":
            verdicts.append(judge(criterion, metric(exercise, criterion.metric).compute(evidence)))
    for shown in exercise.shown:
        if metric(exercise, shown).where == "simulator":
            value = metric(exercise, shown).compute(evidence)
            verdicts.append(Verdict(metric=shown, where="simulator", status="shown", value=value))
    return verdicts


def _simulator_child(exercise: Exercise, path: Path, shown_as: str) -> list[Verdict]:
    """Step 1 in a child process with the simulator (this one holds the GPU); its mistakes come back."""
    sources = str(Path(__file__).resolve().parents[2])   # this labkit, wherever the command runs from
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, (sources, os.environ.get("PYTHONPATH"))))}
    done = subprocess.run([sys.executable, "-m", "labkit.exercises.simulate", exercise.id, str(path), shown_as],
                          capture_output=True, text=True, env=env)
    if done.returncode != 0:
        lines = [line for line in done.stderr.strip().splitlines() if line.strip()]
        raise LabkitError(lines[-1] if lines else f"the simulator step of {exercise.id} failed")
    answer = json.loads(done.stdout)
    if answer.get("error"):
        raise LearnerError(answer["error"])
    return [Verdict.model_validate(v) for v in answer["verdicts"]]


def check(exercise: Exercise, path: Path, shown_as: str, simulator_only: bool = False) -> CheckReport:
    """Both steps (the GPU one only on a GPU and when the simulator step found the output right)."""
    from labkit.backend import select_backend

    backend = "gpu" if select_backend() == "cuda" else "simulator"
    report = CheckReport(exercise=exercise.id, file=shown_as, backend="simulator" if simulator_only else backend)
    try:
        if backend == "simulator":
            verdicts = in_simulator(exercise, path, shown_as)
        else:
            verdicts = _simulator_child(exercise, path, shown_as)
    except LearnerError as exc:
        return report.model_copy(update={"error": str(exc)})
    correct = all(v.status == "pass" for v in verdicts if v.metric == CORRECT)
    gpu_criteria = [c for c in exercise.criteria if c.where == "gpu"]
    if backend == "simulator" or simulator_only or not correct:
        why = "gpu_only" if backend == "simulator" or simulator_only else "wrong_in_simulator"
        verdicts += [Verdict(metric=c.metric, where="gpu", status="skipped", note=why) for c in gpu_criteria]
        return report.model_copy(update={"verdicts": verdicts, "backend": "simulator"})
    from labkit.exercises.on_gpu import on_gpu

    try:
        gpu_verdicts, gpu_run = on_gpu(exercise, path, shown_as)
    except LearnerError as exc:
        return report.model_copy(update={"verdicts": verdicts, "error": str(exc)})
    return report.model_copy(update={"verdicts": verdicts + gpu_verdicts, "gpu_run": gpu_run})
