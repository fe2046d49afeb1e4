"""Exercises: the learner writes or repairs a kernel, labkit checks it, with or without a GPU.

Each chapter's exercises are defined once, in ``labkit/exercises/chNN.py`` (``EXERCISES``, a list of
:class:`labkit.exercises.spec.Exercise`); the learner's skeletons live with the chapter's lab under
``labs/NN-*/exercises/``, our solutions in ``labkit/exercises/solutions/``. ``labkit check NN-name``
(``make exercise-NN-name``) runs labkit.exercises.check; the chapter's ``/// exercise | NN-name``
block shows the command, the criteria and their targets, the hints and the solution.
Importing this package runs no GPU code.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
import re

from labkit.errors import LabkitError
from labkit.exercises.spec import Exercise

CHAPTER_MODULE = re.compile(r"ch\d\d")


class UnknownExerciseError(LabkitError, ValueError):
    """An exercise id that does not exist."""


@functools.cache
def exercises() -> dict[str, Exercise]:
    """Every exercise, by id, in chapter order."""
    found: dict[str, Exercise] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        if not CHAPTER_MODULE.fullmatch(info.name):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        for item in module.EXERCISES:
            if item.id in found:
                raise ValueError(f"exercise {item.id} is defined twice")
            if item.number != info.name.removeprefix("ch"):
                raise ValueError(f"exercise {item.id} belongs in ch{item.number}.py, not {info.name}.py")
            found[item.id] = item
    return found


def exercise(exercise_id: str) -> Exercise:
    """The exercise with this id; UnknownExerciseError lists those that exist."""
    known = exercises()
    wanted = exercise_id.removeprefix("exercise-")
    if wanted not in known:
        raise UnknownExerciseError(f"no exercise '{exercise_id}': the exercises are {', '.join(known)}")
    return known[wanted]
