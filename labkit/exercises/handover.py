"""What a check's child hands over to labkit's process, and how that process reads it back
trusting nothing (labkit.exercises.isolated says why: the child runs the learner's code).

The child hands over data, never a verdict: each array's whole guarded buffer after the run
(uint8: GUARD_BYTES, the array's bytes, GUARD_BYTES) and named numbers (metric values, compiled
resources). In the simulator the buffers travel on the pipe, in base64 (a few KB); on a GPU a
check's arrays take hundreds of MB each (01-fuse: four of 2**26 floats), so the child writes one
file per array, ``<name>.bin``, in a folder labkit's process made for it and reads back.

Reading back, anything not of the shape labkit's own child code sends (a missing or extra array,
a buffer of another size, a number that is not a finite one, a name not asked for) is a
LearnerError: the learner's code wrote on the channel or in the folder.
"""

from __future__ import annotations

import base64
import math
import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from labkit.exercises.guarded import GUARD_BYTES
from labkit.exercises.learner import LearnerError

#: A buffer file's name: the array's, with this suffix.
SUFFIX = ".bin"


def encoded(raw: Mapping[str, np.ndarray]) -> dict[str, str]:
    """Buffers for the pipe: base64 text of each one's bytes."""
    return {name: base64.b64encode(buffer.tobytes()).decode("ascii") for name, buffer in raw.items()}


def decoded(sent: object, inputs: Mapping[str, object], shown_as: str) -> dict[str, np.ndarray]:
    """The buffers of :func:`encoded`, one per array of ``inputs``, each of its guarded size."""
    arrays = _arrays(inputs)
    if not isinstance(sent, dict) or sorted(sent) != sorted(arrays):
        raise LearnerError(malformed(shown_as, "arrays"))
    raw = {}
    for name, host in arrays.items():
        try:
            data = base64.b64decode(sent[name], validate=True)
        except (TypeError, ValueError):
            raise LearnerError(malformed(shown_as, f"array {name}")) from None
        raw[name] = _sized(np.frombuffer(data, np.uint8), host, name, shown_as)
    return raw


def written(raw: Mapping[str, np.ndarray], folder: Path) -> None:
    """The child's side on a GPU: each buffer as ``folder/<name>.bin``."""
    for name, buffer in raw.items():
        np.ascontiguousarray(buffer, np.uint8).tofile(folder / f"{name}{SUFFIX}")


def read(folder: Path, inputs: Mapping[str, object], shown_as: str) -> dict[str, np.ndarray]:
    """The buffers of :func:`written`: exactly one regular file per array of ``inputs`` (a link or
    a device is refused before it is read), each of its guarded size."""
    arrays = _arrays(inputs)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        raise LearnerError(malformed(shown_as, "arrays")) from None
    if names != sorted(f"{name}{SUFFIX}" for name in arrays):
        raise LearnerError(malformed(shown_as, "arrays"))
    raw = {}
    for name, host in arrays.items():
        path = folder / f"{name}{SUFFIX}"
        try:
            if not stat.S_ISREG(os.lstat(path).st_mode) or path.stat().st_size != 2 * GUARD_BYTES + host.nbytes:
                raise LearnerError(malformed(shown_as, f"array {name}"))
            raw[name] = np.fromfile(path, np.uint8)
        except OSError:
            raise LearnerError(malformed(shown_as, f"array {name}")) from None
        _sized(raw[name], host, name, shown_as)
    return raw


def numbers(sent: object, wanted: Iterable[str], shown_as: str, what: str, *, all_of: bool = True,
            at_least: float = -math.inf) -> dict[str, float]:
    """Named finite numbers (not booleans), at least ``at_least``: every one of ``wanted``
    (``all_of``), or any of them."""
    wanted = sorted(wanted)
    if (not isinstance(sent, dict) or not set(sent) <= set(wanted) or (all_of and sorted(sent) != wanted)
            or not all(type(value) in (int, float) and math.isfinite(value) and value >= at_least
                       for value in sent.values())):
        raise LearnerError(malformed(shown_as, what))
    return {name: float(value) for name, value in sent.items()}


def malformed(shown_as: str, what: str) -> str:
    """One line: what came back is not what labkit's own child code sends."""
    return (f"{shown_as}: the {what} that came back on the check's channel are not what the check's own code sends: "
            "your code wrote on it; the check judges only your kernels' output: leave its file descriptors alone")


def _arrays(inputs: Mapping[str, object]) -> dict[str, np.ndarray]:
    return {name: value for name, value in inputs.items() if isinstance(value, np.ndarray)}


def _sized(buffer: np.ndarray, host: np.ndarray, name: str, shown_as: str) -> np.ndarray:
    if buffer.size != 2 * GUARD_BYTES + host.nbytes:
        raise LearnerError(malformed(shown_as, f"array {name}"))
    return buffer
