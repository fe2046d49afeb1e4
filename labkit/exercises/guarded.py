"""A run's arrays with guard zones, and the correctness verdict read from them.

Every array the learner's code receives is a view into a larger device buffer: GUARD_BYTES of a
known pattern before it and after it. Outputs are poisoned before the run (NaN for floats, the
guard pattern for integers), so an element the code never writes cannot pass for a right one.
After the run: a changed guard byte is a write outside the array (on a GPU nothing else catches
it; the simulator stops at the first out-of-bounds index), a changed input is a write to an input,
and each output is compared with NumPy's.

A negative index is not an access before the array: Numba wraps it as NumPy does, on a GPU as in
the simulator (numba-cuda's ``arrayobj.fix_index``; recorded on the H200 by
tests/gpu/test_negative_index_gpu.py), so ``out[i - 1]`` at ``i = 0`` writes ``out[n - 1]`` and
never reaches the guard zone. What such a kernel gets wrong is in the array itself, and the
comparison with NumPy's answer judges it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np

from labkit.records import Record

#: Bytes of guard on each side of every array: a multiple of 256, so each array starts aligned as
#: cudaMalloc's do, and wide enough for a whole row of a small matrix.
GUARD_BYTES = 1 << 14
GUARD_PATTERN = 0xA5
#: Poison bytes of a float output: all ones is a NaN in every float format.
FLOAT_POISON = 0xFF


class Problem(Record):
    """One way a run went wrong; ``kind`` names its sentence (label ``exercise.problem.<kind>``),
    the other fields fill it in."""

    kind: Literal["past_end", "before_start", "input_changed", "never_written", "differs"]
    name: str
    count: int
    size: int | None = None
    index: str | None = None
    got: str | None = None
    want: str | None = None


@dataclass
class _Buffer:
    name: str
    host: np.ndarray           # the array NumPy's answer is computed from (inputs) or poisoned (outputs)
    device: object             # the whole guarded buffer on the device (uint8)
    view: object               # what the learner's code gets


class Guarded:
    """The arguments of one run: arrays as guarded device views, scalars as they are."""

    def __init__(self, inputs: dict[str, object], outputs: tuple[str, ...], to_device: Callable,
                 scratch: tuple[str, ...] = ()):
        self.inputs = inputs
        self.outputs = outputs
        self.scratch = scratch
        self.buffers: dict[str, _Buffer] = {}
        self.args: dict[str, object] = {}
        for name, value in inputs.items():
            if not isinstance(value, np.ndarray):
                self.args[name] = value
                continue
            payload = poisoned(value) if name in outputs or name in scratch else value
            raw = np.full(2 * GUARD_BYTES + value.nbytes, GUARD_PATTERN, dtype=np.uint8)
            raw[GUARD_BYTES:GUARD_BYTES + value.nbytes] = np.ascontiguousarray(payload).view(np.uint8).ravel()
            device = to_device(raw)
            view = device[GUARD_BYTES:GUARD_BYTES + value.nbytes].view(value.dtype).reshape(value.shape)
            self.buffers[name] = _Buffer(name, value, device, view)
            self.args[name] = view

    def raw(self) -> dict[str, np.ndarray]:
        """Each array's whole guarded buffer (uint8), copied to the host."""
        return {name: buffer.device.copy_to_host() for name, buffer in self.buffers.items()}

    def problems(self, expected: dict[str, np.ndarray], rtol: float, atol: float) -> list[Problem]:
        """What went wrong in the run, in order of the arrays; empty when it was right."""
        return problems(self.raw(), self.inputs, self.outputs, self.scratch, expected, rtol, atol)


def problems(raw: Mapping[str, np.ndarray], inputs: Mapping[str, object], outputs: tuple[str, ...],
             scratch: tuple[str, ...], expected: Mapping[str, np.ndarray], rtol: float, atol: float) -> list[Problem]:
    """What went wrong in a run, from each array's guarded buffer after it (``raw``: uint8,
    GUARD_BYTES, the array's bytes, GUARD_BYTES) and the run's ``inputs``; empty when it was right.
    A pure function: labkit's own process applies it to the buffers the check's child sends."""
    found = []
    for name, host in inputs.items():
        if not isinstance(host, np.ndarray):
            continue
        buffer = raw[name]
        before, after = buffer[:GUARD_BYTES], buffer[GUARD_BYTES + host.nbytes:]
        itemsize = host.dtype.itemsize
        if (after != GUARD_PATTERN).any():
            last = int(np.flatnonzero(after != GUARD_PATTERN).max())
            found.append(Problem(kind="past_end", name=name, count=last // itemsize + 1))
        if (before != GUARD_PATTERN).any():
            first = int(np.flatnonzero(before != GUARD_PATTERN).min())
            found.append(Problem(kind="before_start", name=name, count=(GUARD_BYTES - first + itemsize - 1) // itemsize))
        got = buffer[GUARD_BYTES:GUARD_BYTES + host.nbytes].view(host.dtype).reshape(host.shape)
        if name in outputs:
            problem = compare(name, got, expected[name], rtol, atol)
            if problem:
                found.append(problem)
        elif name not in scratch and not np.array_equal(got, host, equal_nan=True):
            found.append(Problem(kind="input_changed", name=name, count=int((got != host).sum())))
    return found


def poisoned(value: np.ndarray) -> np.ndarray:
    fill = FLOAT_POISON if np.issubdtype(value.dtype, np.floating) else GUARD_PATTERN
    return np.full(value.nbytes, fill, dtype=np.uint8).view(value.dtype).reshape(value.shape)


def compare(name: str, got: np.ndarray, want: np.ndarray, rtol: float, atol: float) -> Problem | None:
    """None when ``got`` matches ``want`` (np.isclose, NaN never matching); else how it differs."""
    good = np.isclose(got, want, rtol=rtol, atol=atol)
    if good.all():
        return None
    untouched = (got.view(np.uint8).reshape(*got.shape, -1) == np.frombuffer(
        poisoned(np.zeros(1, got.dtype)).tobytes(), np.uint8)).all(axis=-1)
    wrong = ~good
    first = tuple(int(i) for i in np.unravel_index(int(np.flatnonzero(wrong.ravel())[0]), got.shape))
    index = ", ".join(map(str, first))
    if untouched[wrong].all():
        return Problem(kind="never_written", name=name, count=int(wrong.sum()), size=got.size, index=index)
    return Problem(kind="differs", name=name, count=int(wrong.sum()), size=got.size, index=index,
                   got=f"{got[first]:.7g}", want=f"{want[first]:.7g}")
