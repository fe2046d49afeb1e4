"""``labkit check NN-name``: the learner's file held to its exercise's criteria.

1. In Numba's CUDA simulator (always, so also without a GPU): the learner's code on fresh random
   inputs at the exercise's small size, guarded and poisoned (labkit.exercises.guarded), every
   launch traced; correctness, then each simulator criterion from the trace (labkit.exercises.metrics).
2. On a GPU, once the code is correct in the simulator: correctness at the GPU size, then the
   learner's time against ours and the compiled kernels' resources (labkit.exercises.on_gpu).

Each step runs the learner's code in a child process, in a temporary working directory, under a
wall-clock limit (labkit.exercises.isolated): a hang is stopped and explained, an ``exit()`` in it
cannot end the check, and nothing it starts outlives the check. Both steps' verdicts are computed
here, in labkit's process, from what the child hands over (labkit.exercises.handover): its arrays'
guarded buffers, the trace's metric values (:func:`judged_in_simulator`), the GPU's timings and
compiled resources (labkit.exercises.on_gpu.judged_on_gpu); code that patches the checker in its
own process, or writes a verdict on the pipe, changes nothing. A command's check also watches
the course's tracked files (labkit.exercises.course_files). A mistake in the learner's file stops
the check with one line (labkit.exercises.learner). A check passes only when every criterion has
a verdict.
"""

from __future__ import annotations

import secrets
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from labkit.exercises import handover
from labkit.exercises.guarded import problems
from labkit.exercises.isolated import DEFAULT_LIMIT_SECONDS, Progress, run_step
from labkit.exercises.learner import LearnerError
from labkit.exercises.on_gpu import judged_on_gpu
from labkit.exercises.simulator_step import simulator_metrics
from labkit.exercises.spec import CORRECT, Exercise
from labkit.exercises.step import Step
from labkit.exercises.verdicts import CheckReport, GpuRun, Verdict, correctness, judge


def judged_in_simulator(exercise: Exercise, seed: int, answer: dict, shown_as: str) -> list[Verdict]:
    """Step 1's verdicts, in labkit's own process: the inputs of ``seed`` made again here, NumPy's
    answer computed here, and the child's buffers compared with them here (guard zones, inputs,
    outputs: labkit.exercises.guarded.problems); the metrics' values held to the criteria here. An
    answer of the wrong shape (not what labkit's child code sends: labkit.exercises.handover) is a
    LearnerError."""
    inputs = exercise.inputs(exercise.simulator_elements, np.random.default_rng(seed))
    sent = answer if isinstance(answer, dict) else {}
    raw = handover.decoded(sent.get("buffers"), inputs, shown_as)
    wanted = simulator_metrics(exercise)
    values = handover.numbers(sent.get("values"), wanted, shown_as, "metric values")
    found = problems(raw, inputs, exercise.outputs, exercise.scratch, exercise.expected(inputs),
                     exercise.rtol, exercise.atol)
    verdicts = []
    for criterion in exercise.criteria:
        if criterion.metric == CORRECT:
            verdicts.append(correctness("simulator", found))
        elif criterion.where == "simulator":
            verdicts.append(judge(criterion, values[criterion.metric]))
    held = {c.metric for c in exercise.criteria}
    verdicts += [Verdict(metric=name, where="simulator", status="shown", value=values[name])
                 for name in wanted if name not in held]
    return verdicts


def check(exercise: Exercise, path: Path, shown_as: str, simulator_only: bool = False,
          limit_seconds: float = DEFAULT_LIMIT_SECONDS, progress: Callable[[Progress], None] | None = None,
          seed: int | None = None, course: Path | None = None,
          printed: Callable[[bytes], None] | None = None) -> CheckReport:
    """Both steps (the GPU one only on a GPU and when the simulator step found the output right),
    each in a child process stopped after ``limit_seconds``; ``progress`` hears how each goes,
    ``printed`` what the learner's code prints (labkit.exercises.isolated.run_step). The
    simulator step's inputs come from ``seed`` (a fresh random one by default), drawn by this
    process, which judges the child's output against them. With ``course`` (a git checkout: the
    command's), a change to its tracked files during the check fails it, and is put back
    (labkit.exercises.course_files)."""
    from labkit import lifetime
    from labkit.exercises import course_files

    before = course_files.watch(course) if course is not None else None
    try:
        report = _steps(exercise, path, shown_as, simulator_only, limit_seconds, progress, seed, printed)
    finally:
        names = course_files.changed(before) if before is not None else []
        aside = course_files.kept_aside(before, names) if names else None
        failed = course_files.put_back(before, names) if names else []
    if not lifetime.subreaper_supported():
        report = report.model_copy(update={"orphans_followed": False})
    if names:
        return report.model_copy(update={"error": course_files.changed_message(shown_as, names, failed, aside)})
    return report


def _steps(exercise: Exercise, path: Path, shown_as: str, simulator_only: bool, limit_seconds: float,
           progress: Callable[[Progress], None] | None, seed: int | None,
           printed: Callable[[bytes], None] | None) -> CheckReport:
    from labkit.gpu.backend import select_backend

    backend = "gpu" if select_backend() == "cuda" else "simulator"
    report = CheckReport(exercise=exercise.id, file=shown_as, backend="simulator" if simulator_only else backend)
    seed = secrets.randbits(63) if seed is None else seed
    step = Step("simulator", exercise.id, str(Path(path).resolve()), shown_as, seed)
    try:
        verdicts = judged_in_simulator(exercise, seed, run_step(step, limit_seconds, progress, printed), shown_as)
    except LearnerError as exc:
        return report.model_copy(update={"error": str(exc)})
    correct = all(v.status == "pass" for v in verdicts if v.metric == CORRECT)
    gpu_criteria = [c for c in exercise.criteria if c.where == "gpu"]
    if backend == "simulator" or simulator_only or not correct:
        why = "gpu_only" if backend == "simulator" or simulator_only else "wrong_in_simulator"
        verdicts += [Verdict(metric=c.metric, where="gpu", status="skipped", note=why) for c in gpu_criteria]
        return _judged_all(exercise, report.model_copy(update={"verdicts": verdicts, "backend": "simulator"}))
    try:
        gpu_verdicts, gpu_run = _gpu_step(exercise, step.path, shown_as, limit_seconds, progress, printed)
    except LearnerError as exc:
        return report.model_copy(update={"verdicts": verdicts, "error": str(exc)})
    return _judged_all(exercise, report.model_copy(update={"verdicts": verdicts + gpu_verdicts, "gpu_run": gpu_run}))


def _gpu_step(exercise: Exercise, path: str, shown_as: str, limit_seconds: float,
              progress: Callable[[Progress], None] | None,
              printed: Callable[[bytes], None] | None) -> tuple[list[Verdict], GpuRun | None]:
    """Step 2: the child runs the learner's code on the inputs of a fresh seed, drawn here, and
    hands over its buffers (files in a folder made here, removed after) and its timings; this
    process judges them (labkit.exercises.on_gpu.judged_on_gpu), as step 1's. A mistake in the
    file is a LearnerError."""
    seed = secrets.randbits(63)
    folder = Path(tempfile.mkdtemp(prefix="labkit-gpu-answer-"))
    try:
        answer = run_step(Step("gpu", exercise.id, path, shown_as, seed, str(folder)), limit_seconds, progress,
                          printed)
        return judged_on_gpu(exercise, seed, answer, folder, shown_as)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _judged_all(exercise: Exercise, report: CheckReport) -> CheckReport:
    """The report, refused (an error, so it cannot pass) if a criterion has no verdict at all."""
    missing = [c.metric for c in exercise.criteria
               if not any(v.metric == c.metric and v.where == c.where for v in report.verdicts)]
    if missing:
        return report.model_copy(update={"error": f"{report.file}: the check could not judge {', '.join(missing)}: "
                                                  "it does not pass without a verdict on every criterion"})
    return report
