"""Other right answers than ours pass every simulator criterion too: the criteria hold the
learner to the chapter's idea, not to our way of writing it (tests/labs/exercise_alternatives/<id>/,
one file each, its docstring saying which remedy it takes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from labkit.exercises import exercises
from labkit.exercises.check import check
from labkit.gpu.backend import select_backend

pytestmark = pytest.mark.skipif(select_backend() != "simulator", reason="checks in the Numba CUDA simulator")

ALTERNATIVES = Path(__file__).parent / "exercise_alternatives"


def alternatives() -> list[tuple[str, Path]]:
    return [(path.parent.name, path) for path in sorted(ALTERNATIVES.glob("*/*.py"))]


def test_alternatives_belong_to_exercises():
    assert alternatives() and {folder for folder, _ in alternatives()} <= set(exercises())


@pytest.mark.parametrize("exercise_id, path", alternatives(), ids=lambda v: getattr(v, "name", v))
def test_another_right_answer_passes_every_simulator_criterion(exercise_id, path):
    item = exercises()[exercise_id]
    report = check(item, path, path.name)
    assert report.error is None, report.error
    simulated = [v for v in report.verdicts if v.where == "simulator" and v.status != "shown"]
    assert {v.metric for v in simulated} == {c.metric for c in item.criteria if c.where == "simulator"}
    assert all(v.status == "pass" for v in simulated), simulated
