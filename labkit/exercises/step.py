"""One step of a check as labkit's process and the child that runs it agree on it
(labkit.exercises.isolated starts the child, labkit.exercises.child runs it): what runs, where, on
which file, serialised as JSON on the child's command line."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass

from labkit.exercises.spec import Where


@dataclass(frozen=True)
class Step:
    """One step of a check: ``where`` it runs, the exercise, the learner's file (an absolute path)
    and how messages name it."""

    where: Where
    exercise_id: str
    path: str
    shown_as: str
    seed: int | None = None          # the inputs' (labkit's process draws it, and makes them again to judge)
    hand_over: str | None = None     # the GPU step's folder for its buffers (labkit.exercises.handover)

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Step:
        return cls(**json.loads(text))
