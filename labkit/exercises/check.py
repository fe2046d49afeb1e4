"""``labkit check NN-name``: the learner's file held to its exercise's criteria.

1. In Numba's CUDA simulator (always, so also without a GPU): the learner's code on fresh random
   inputs at the exercise's small size, guarded and poisoned (labkit.exercises.guarded), every
   launch traced; correctness, then each simulator criterion from the trace (labkit.exercises.metrics).
2. On a GPU, once the code is correct in the simulator: correctness at the GPU size, then the
   learner's time against ours and the compiled kernels' resources (labkit.exercises.on_gpu).

Each step runs the learner's code in a child process, in a temporary working directory, under a
wall-clock limit (labkit.exercises.isolated): it cannot touch the course's files by accident, a
hang is stopped and explained, and an ``exit()`` in it cannot end the check. A mistake in the
learner's file stops the check with one line (labkit.exercises.learner). A check passes only when
every criterion has a verdict.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np

from labkit.exercises.isolated import DEFAULT_LIMIT_SECONDS, Progress, Step, run_step
from labkit.exercises.learner import LearnerError, learner_code, load
from labkit.exercises.metrics import metric
from labkit.exercises.spec import CORRECT, Exercise
from labkit.exercises.verdicts import CheckReport, GpuRun, Verdict, correctness, judge
from labkit.exercises.watch import LaunchListener


def in_simulator(exercise: Exercise, path: Path, shown_as: str, seed: int | None = None,
                 listener: LaunchListener | None = None) -> list[Verdict]:
    """Step 1, in this process (which must be the simulator's): correctness and the trace's metrics."""
    from labkit.exercises.guarded import Guarded
    from labkit.exercises.watch import watched
    from labkit.gpu import cuda

    module = load(path, shown_as, exercise.entries)
    inputs = exercise.inputs(exercise.simulator_elements, np.random.default_rng(seed))
    run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
    outputs = {name: run.args[name] for name in exercise.outputs}
    with watched(exercise.simulator_elements, module, outputs, listener) as evidence, learner_code(path, shown_as):
        exercise.call(module, run.args)
    problems = run.problems(exercise.expected(inputs), exercise.rtol, exercise.atol)
    verdicts = []
    for criterion in exercise.criteria:
        if criterion.metric == CORRECT:
            verdicts.append(correctness("simulator", problems))
        elif criterion.where == "simulator":
            verdicts.append(judge(criterion, metric(exercise, criterion.metric).compute(evidence)))
    for shown in exercise.shown:
        if metric(exercise, shown).where == "simulator" and shown not in {c.metric for c in exercise.criteria}:
            value = metric(exercise, shown).compute(evidence)
            verdicts.append(Verdict(metric=shown, where="simulator", status="shown", value=value))
    return verdicts


def check(exercise: Exercise, path: Path, shown_as: str, simulator_only: bool = False,
          limit_seconds: float = DEFAULT_LIMIT_SECONDS, progress: Callable[[Progress], None] | None = None
          ) -> CheckReport:
    """Both steps (the GPU one only on a GPU and when the simulator step found the output right),
    each in a child process stopped after ``limit_seconds``; ``progress`` hears how each goes."""
    from labkit.backend import select_backend

    backend = "gpu" if select_backend() == "cuda" else "simulator"
    report = CheckReport(exercise=exercise.id, file=shown_as, backend="simulator" if simulator_only else backend)
    step = Step("simulator", exercise.id, str(Path(path).resolve()), shown_as)
    try:
        answer = run_step(step, limit_seconds, progress)
    except LearnerError as exc:
        return report.model_copy(update={"error": str(exc)})
    verdicts = [Verdict.model_validate(v) for v in answer["verdicts"]]
    correct = all(v.status == "pass" for v in verdicts if v.metric == CORRECT)
    gpu_criteria = [c for c in exercise.criteria if c.where == "gpu"]
    if backend == "simulator" or simulator_only or not correct:
        why = "gpu_only" if backend == "simulator" or simulator_only else "wrong_in_simulator"
        verdicts += [Verdict(metric=c.metric, where="gpu", status="skipped", note=why) for c in gpu_criteria]
        return _judged_all(exercise, report.model_copy(update={"verdicts": verdicts, "backend": "simulator"}))
    try:
        answer = run_step(Step("gpu", exercise.id, step.path, shown_as), limit_seconds, progress)
    except LearnerError as exc:
        return report.model_copy(update={"verdicts": verdicts, "error": str(exc)})
    gpu_run = GpuRun.model_validate(answer["gpu_run"]) if answer["gpu_run"] else None
    gpu_verdicts = [Verdict.model_validate(v) for v in answer["verdicts"]]
    return _judged_all(exercise, report.model_copy(update={"verdicts": verdicts + gpu_verdicts, "gpu_run": gpu_run}))


def _judged_all(exercise: Exercise, report: CheckReport) -> CheckReport:
    """The report, refused (an error, so it cannot pass) if a criterion has no verdict at all."""
    missing = [c.metric for c in exercise.criteria
               if not any(v.metric == c.metric and v.where == c.where for v in report.verdicts)]
    if missing:
        return report.model_copy(update={"error": f"{report.file}: the check could not judge {', '.join(missing)}: "
                                                  "it does not pass without a verdict on every criterion"})
    return report
