"""What a check finds, as data: one verdict per criterion, what the GPU step measured, and the
whole report. labkit's own process makes these from what each step's child hands over
(labkit.exercises.check in the simulator, labkit.exercises.on_gpu on a GPU; never from a
verdict the child sends); labkit.exercises.render turns a report into text.
"""

from __future__ import annotations

from typing import Literal

from labkit.exercises.guarded import Problem
from labkit.exercises.spec import CORRECT, Criterion, Where
from labkit.gpu.timing import Timing
from labkit.records import Record

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
    #: Whether the check could follow every process the learner's code started (False without a
    #: subreaper, on macOS: labkit.lifetime); the report then says so in one line.
    orphans_followed: bool = True

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
