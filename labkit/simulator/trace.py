"""A kernel's memory accesses, recorded while it runs in Numba's CUDA simulator.

:func:`trace_launch` runs a simulated kernel with its array arguments replaced by recording
views of the same memory, and with ``cuda.shared.array`` patched to return recording arrays, so
each element load and store of each thread is logged: block, warp, lane, byte address, width,
load or store, global or shared. The log is then grouped into warp-level instructions and each
becomes an :class:`labkit.models.access.WarpAccess` for the analyzer.

Grouping rule. The simulator runs every thread on its own (a greenlet each, which this module
installs whoever imported numba.cuda first: labkit.simulator.threads; with the simulator's own
Python threads, lanes raced to create a block's shared array and read different copies), so lanes of a warp are matched by program point: the call path of
(function, instruction offset) of the access, from the device function that makes it up to the
kernel. The n-th time a thread reaches a program point (same array half for complex numbers)
belongs to the warp's n-th instruction at that point: ``(block, warp, point, n)``. Lanes that
never reach the point are inactive.

Addresses. Each global array gets its own range, starting on a 4096-byte boundary (cudaMalloc
aligns to at least 256: sectors and lines are the same); each shared array (one per
``cuda.shared.array`` call site) starts on a 128-byte boundary of a per-launch shared space, in
order of first use: banks depend on the address modulo 128 only. An element's address is its
array's base plus its byte offset, views and negative indices included.

Limits (what the trace cannot see, by design of the simulator):

- It records what the Python source does, not the SASS. The GPU compiler may keep a repeated
  load in a register, merge or split accesses: Numba compiles a complex128 element into two
  8-byte accesses (``LDG.E.64`` at +0 and +8, tests/fixtures/h200-probe/sass_c128.txt), so
  complex elements are recorded as two accesses of half their size (complex64 by analogy,
  unconfirmed). Wider vector loads (16 bytes per lane) are not expressible in a Numba kernel:
  the lab measures those with CUDA C kernels, whose simulated twins hold records of
  :func:`vector_dtype`, each element access recorded as one 8- or 16-byte access (what
  ``float2``/``float4`` are in CUDA C). Supported element sizes: 1, 2, 4, 8 bytes, and those records.
- Divergence inside loops: a lane that skips the access in some iterations (a data-dependent
  ``if`` or ``continue`` before it) has its later visits matched with the other lanes' earlier
  ones, where a GPU matches iterations. Lanes that leave a loop early, or skip an access once
  outside loops, are grouped right.
- Not traced: dynamic shared memory (``cuda.shared.array(0, ...)``, refused), local arrays,
  atomics (ncu counts them as op_atom / op_red, not as loads and stores), slice assignment
  (refused).
"""

from __future__ import annotations

import bisect
import dis
import functools
import gc
import linecache
import os
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import NamedTuple

import numpy as np

from labkit.models.access import (DRAM_FETCH_BYTES, KernelCounts, Op, Space, Totals, WarpAccess, WIDTHS_BYTES,
    WARP_LANES, analyze, total, translates_union)
from labkit.errors import LabkitError
from labkit.gpu.backend import select_backend
from labkit.simulator import threads as simulator_threads

select_backend()

#: The simulated threads of a block run in turn (greenlets), whoever imported numba.cuda first: a
#: learner's script that does ``from numba import cuda`` gets the same runs as labkit's own code.
_THREADS_IN_TURN = simulator_threads.install()

import numba.cuda.simulator as _simulator  # noqa: E402  (after the backend choice)
from numba.core import types  # noqa: E402
from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray  # noqa: E402
from numba.cuda.simulator.kernel import FakeCUDAKernel  # noqa: E402
from numba.cuda.simulator.kernelapi import FakeCUDAShared  # noqa: E402
from numba.np import numpy_support  # noqa: E402

GLOBAL_ALIGNMENT_BYTES = 4096
SHARED_ALIGNMENT_BYTES = 128

_SIMULATOR_DIR = os.path.dirname(_simulator.__file__) + os.sep
_ATOMICS_FILE = os.path.join(os.path.dirname(_simulator.__file__), "kernelapi.py")
#: Not the kernel's code: the simulator (with labkit's threads in it), NumPy, this module.
_SKIPPED_PREFIXES = (_SIMULATOR_DIR, simulator_threads.__file__, os.path.dirname(np.__file__) + os.sep, __file__)
_ASSIGNED_NAME = re.compile(r"\s*(\w+)\s*=")


class AccessTraceUnavailable(LabkitError, RuntimeError):
    """The simulator here is not one whose threads labkit runs in turn: a trace would depend on
    the order its Python threads happened to run in."""


@dataclass(frozen=True)
class TracedInstruction:
    """One warp-level access the trace saw: where it is in the source, and its 32 lanes."""

    block: tuple[int, int, int]
    warp: int
    array: str
    function: str
    line: int
    instance: int
    access: WarpAccess


@dataclass
class KernelTrace:
    """The instructions of one traced launch, in the order each warp first reached them, and the
    base address each global array (by parameter name) was given: an address minus its array's
    base is a byte offset from the start of the array the kernel received."""

    instructions: list[TracedInstruction] = field(default_factory=list)
    global_bases: dict[str, int] = field(default_factory=dict)

    def counts(self) -> KernelCounts:
        """The analyzer's sums over every instruction: what ncu would count for the launch."""
        return total(i.access for i in self.instructions)

    def by_array(self) -> dict[tuple[str, Op], Totals]:
        """Sums per (array, load or store): which access of the source costs what."""
        sums: dict[tuple[str, Op], Totals] = {}
        for instruction in self.instructions:
            key = (instruction.array, instruction.access.op)
            sums[key] = sums.get(key, Totals()).plus(analyze(instruction.access))
        return sums


def trace_launch(kernel, griddim, blockdim, *args) -> KernelTrace:
    """Run ``kernel[griddim, blockdim](*args)`` in the simulator, recording every element access.

    NumPy arrays (and simulator device arrays) among ``args`` are traced as global memory under
    their parameter names and written in place; other arguments pass unchanged. Shared arrays
    the kernel creates are traced under the name they are assigned to.
    """
    if not isinstance(kernel, FakeCUDAKernel):
        raise ValueError(
            "trace_launch needs a kernel compiled by Numba's CUDA simulator: set "
            "NUMBA_ENABLE_CUDASIM=1 before numba.cuda is imported (a separate process on a GPU machine)"
        )
    if not _THREADS_IN_TURN:
        raise AccessTraceUnavailable(
            f"the access trace needs numba-cuda {simulator_threads.NUMBA_CUDA_VERSION}'s simulator (its threads run "
            f"in turn there), this environment has numba-cuda {version('numba-cuda')}: install the course's pinned "
            "versions (make env)")
    recorder = _Recorder()
    names = kernel.py_func.__code__.co_varnames[:kernel.py_func.__code__.co_argcount]
    recorded = {name: recorder.global_array(_host_array(arg), name)
                for name, arg in zip(names, args) if _host_array(arg) is not None}
    traced_args = [FakeCUDAArray(recorded[name]) if name in recorded else arg
                   for name, arg in zip(names, args)] + list(args[len(names):])
    with _shared_arrays_recorded(recorder), _without_cycle_collection():
        kernel[griddim, blockdim](*traced_args)
        instructions = recorder.instructions()
    return KernelTrace(instructions, {name: view._traced.base_address for name, view in recorded.items()})


@contextmanager
def _without_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused while a launch is traced: the log is hundreds of thousands of
    small tuples that form no cycle, which the collector would otherwise walk again and again (a
    fifth of the trace's time). Memory is still freed by reference counting."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def vector_dtype(scalar: str, lanes: int) -> np.dtype:
    """The record that stands for a CUDA C vector type in a simulated twin: ``vector_dtype("f4", 4)``
    is ``float4``, fields x, y, z, w, aligned to its size. The trace records an element access of
    it as one access of ``lanes x 4`` bytes (8 or 16), as ``LDG.E.64``/``LDG.E.128`` make it on a GPU."""
    names = ("x", "y", "z", "w")[:lanes]
    return np.dtype({"names": list(names), "formats": [scalar] * lanes,
                     "offsets": [4 * k for k in range(lanes)], "itemsize": 4 * lanes, "aligned": True})


@dataclass(frozen=True)
class GridCounts:
    """A whole launch's counts, from a trace of its first thread blocks (:func:`scale_to_grid`).

    ``counts``: every (space, op) total of one traced block times ``grid_blocks``.
    ``dram_fetched_bytes``: what DRAM delivers to the launch's global loads under
    :func:`labkit.models.access.fetched_bytes`, over the whole grid (1-D grids; None for others).
    """

    counts: KernelCounts
    grid_blocks: int
    traced_blocks: int
    dram_fetched_bytes: int | None


class NotTranslationInvariant(ValueError):
    """The traced blocks do not repeat one another: scaling the trace to the grid would not be exact."""


def scale_to_grid(trace: KernelTrace, grid_blocks: int, fetch_bytes: int = DRAM_FETCH_BYTES) -> GridCounts:
    """The counts of a launch of ``grid_blocks`` blocks, from a trace of its first blocks.

    Exact when every block repeats the first one moved in memory: the same instructions (source
    line, visit, width, active lanes) in the same order, each global array's addresses moved by
    one constant multiple of 128 bytes per block (same sectors and lines, so the same counts)
    and shared addresses unmoved. That is checked on every traced block (at least two), and
    NotTranslationInvariant names the first difference; it is then assumed for the blocks not
    traced, whose index arithmetic is the same affine function of ``blockIdx``.
    """
    blocks: dict[tuple, list[TracedInstruction]] = defaultdict(list)
    for instruction in trace.instructions:
        blocks[instruction.block].append(instruction)
    if len(blocks) < 2:
        raise NotTranslationInvariant("scaling a trace to a grid needs at least two traced blocks")
    order = sorted(blocks, key=lambda b: (b[2], b[1], b[0]))
    first = blocks[order[0]]
    shifts: dict[tuple, dict[str, int]] = {}
    for block in order[1:]:
        shifts[block] = _shifts(first, blocks[block], block)
    totals: dict[tuple[Space, Op], Totals] = {}
    for instruction in first:
        key = (instruction.access.space, instruction.access.op)
        totals[key] = totals.get(key, Totals()).plus(analyze(instruction.access))
    scaled = {key: Totals(**{name: getattr(t, name) * grid_blocks for name in Totals.__dataclass_fields__})
              for key, t in totals.items()}
    one_dimensional = all(block[1] == 0 and block[2] == 0 for block in order)
    dram = None
    if one_dimensional:
        dram = 0
        loaded: dict[str, set[int]] = defaultdict(set)
        for instruction in first:
            if instruction.access.space is Space.GLOBAL and instruction.access.op is Op.LOAD:
                loaded[instruction.array].update(a // fetch_bytes for a in instruction.access.addresses
                                                 if a is not None)
        second = order[1]
        for array, chunks in loaded.items():
            shift = shifts[second].get(array, 0) // (second[0] - order[0][0])
            if shift % fetch_bytes:
                dram = None
                break
            dram += fetch_bytes * (len(chunks) if shift == 0 else translates_union(chunks, shift // fetch_bytes,
                                                                                   grid_blocks))
    return GridCounts(KernelCounts(totals=scaled), grid_blocks, len(order), dram)


def _shifts(first: list[TracedInstruction], other: list[TracedInstruction], block: tuple) -> dict[str, int]:
    """Per array, the constant byte shift from the first block to ``block``; raises where there is none."""
    if len(first) != len(other):
        raise NotTranslationInvariant(f"block {block} makes {len(other)} accesses, the first block {len(first)}")
    shifts: dict[str, int] = {}
    for a, b in zip(first, other):
        same = (a.array, a.function, a.line, a.instance, a.access.op, a.access.space, a.access.width_bytes) == (
            b.array, b.function, b.line, b.instance, b.access.op, b.access.space, b.access.width_bytes)
        lanes_a = [x is None for x in a.access.addresses]
        if not same or lanes_a != [x is None for x in b.access.addresses]:
            raise NotTranslationInvariant(f"block {block}: {b.array} at {b.function}:{b.line} differs from the "
                                          f"first block's {a.array} at {a.function}:{a.line}")
        deltas = {y - x for x, y in zip(a.access.addresses, b.access.addresses) if x is not None}
        for delta in deltas:
            if shifts.setdefault(b.array, delta) != delta:
                raise NotTranslationInvariant(f"block {block}: {b.array} moves by {sorted(deltas)} bytes across "
                                              f"lanes or instructions, not by one constant")
    for array, delta in shifts.items():
        space = next(i.access.space for i in first if i.array == array)
        if (space is Space.SHARED and delta) or delta % 128:
            raise NotTranslationInvariant(f"block {block}: {space.value} array {array} moves by {delta} bytes "
                                          "(global: a multiple of 128 keeps sectors and lines; shared: 0)")
    return shifts


def _host_array(arg) -> np.ndarray | None:
    if isinstance(arg, FakeCUDAArray):
        arg = arg._ary
    return arg if isinstance(arg, np.ndarray) and arg.ndim > 0 else None


@dataclass(frozen=True)
class _Array:
    """A traced array: name, space, virtual base address, and the memory it covers."""

    recorder: _Recorder
    name: str
    space: Space
    base_address: int
    root_pointer: int
    root_bytes: int


class _Event(NamedTuple):
    """One lane's element access (a named tuple: some hundred thousand are made per launch)."""

    block: tuple[int, int, int]
    warp: int
    lane: int
    point: tuple
    instance: int
    sequence: int
    array: str
    function: str
    line: int
    op: Op
    space: Space
    address: int
    width_bytes: int


class _ThreadState:
    """What the log keeps of one simulated thread: where it is in the grid, how many accesses it
    made, and how many times it reached each program point."""

    __slots__ = ("block", "warp", "lane", "sequence", "visits", "above_kernel")

    def __init__(self, thread) -> None:
        self.block = tuple(thread.blockIdx)
        self.warp, self.lane = divmod(thread.thread_id, WARP_LANES)
        self.sequence = 0
        self.visits: dict[tuple, int] = {}
        #: The frame that called the kernel (the simulator's), once the thread's first access found it.
        self.above_kernel = None


class _Recorded(np.ndarray):
    """A view of traced memory: element loads and stores by simulated threads are logged."""

    _traced: _Array | None = None
    _offset_bytes: int = 0

    def __array_finalize__(self, parent) -> None:
        traced = getattr(parent, "_traced", None)
        self._traced = None
        if traced is not None:
            offset = self.__array_interface__["data"][0] - traced.root_pointer
            if 0 <= offset < max(traced.root_bytes, 1):
                self._traced, self._offset_bytes = traced, offset

    def __getitem__(self, index):
        value = super().__getitem__(index)
        if self._traced is not None and not isinstance(value, np.ndarray):
            self._traced.recorder.record(self, index, Op.LOAD)
        return value

    def __setitem__(self, index, value) -> None:
        if self._traced is not None:
            self._traced.recorder.record(self, index, Op.STORE)
        super().__setitem__(index, value)


class _Recorder:
    """The log of one launch: arrays handed out, events, per-thread visit counts."""

    def __init__(self) -> None:
        self.events: list[_Event] = []
        self._threads: dict[object, _ThreadState] = {}
        self._next_global = GLOBAL_ALIGNMENT_BYTES
        self._next_shared = 0

    def global_array(self, array: np.ndarray, name: str) -> _Recorded:
        base, self._next_global = _place(self._next_global, array.nbytes, GLOBAL_ALIGNMENT_BYTES)
        return self._recorded(array, name, Space.GLOBAL, base)

    def shared_array(self, array: np.ndarray, name: str) -> _Recorded:
        base, self._next_shared = _place(self._next_shared, array.nbytes, SHARED_ALIGNMENT_BYTES)
        return self._recorded(array, name, Space.SHARED, base)

    def _recorded(self, array: np.ndarray, name: str, space: Space, base: int) -> _Recorded:
        view = array.view(_Recorded)
        view._traced = _Array(self, name, space, base, view.__array_interface__["data"][0], array.nbytes)
        return view

    def record(self, view: _Recorded, index, op: Op) -> None:
        """Log one element access if a simulated thread (not an atomic, not the host) made it.

        A thread's n-th visit of a program point is counted per thread (each simulated thread
        is a greenlet of its own: labkit.simulator.threads)."""
        thread = simulator_threads.current_thread()
        state = self._threads.get(thread)
        if state is None:
            if not hasattr(thread, "thread_id"):
                return
            state = self._threads[thread] = _ThreadState(thread)
        point, function, line = _program_point(sys._getframe(2), state)
        if point is None:
            return
        traced = view._traced
        address = traced.base_address + view._offset_bytes + _element_offset(view, index)
        for part, (delta, width) in enumerate(_parts(view.dtype)):
            key = (point, part)
            instance = state.visits.get(key, 0)
            state.visits[key] = instance + 1
            sequence = state.sequence
            state.sequence = sequence + 1
            self.events.append(tuple.__new__(_Event, (  # _Event's fields, without its __new__'s Python call
                state.block, state.warp, state.lane, point + (part,), instance, sequence, traced.name, function, line,
                op, traced.space, address + delta, width,
            )))

    def instructions(self) -> list[TracedInstruction]:
        """Events grouped by (block, warp, point, visit), ordered by the warp's first lane to get there."""
        groups: dict[tuple, list[_Event]] = defaultdict(list)
        for event in self.events:
            groups[(event.block, event.warp, event.point, event.instance, event.space, event.op)].append(event)
        ordered = sorted(groups.items(), key=lambda item: (item[0][0], item[0][1], min(e.sequence for e in item[1]), item[0][2]))
        instructions = []
        for (block, warp, _, instance, space, op), events in ordered:
            addresses: list[int | None] = [None] * WARP_LANES
            for event in events:
                addresses[event.lane] = event.address
            first = events[0]
            instructions.append(TracedInstruction(
                block=block, warp=warp, array=first.array, function=first.function, line=first.line,
                instance=instance, access=WarpAccess(tuple(addresses), first.width_bytes, op, space),
            ))
        return instructions


def _place(next_free: int, size_bytes: int, alignment: int) -> tuple[int, int]:
    base = -(-next_free // alignment) * alignment
    return base, base + max(size_bytes, 1)


def _program_point(frame, state: _ThreadState) -> tuple[tuple | None, str, int]:
    """The call path of kernel code (file, first line, instruction offset) up to the kernel.

    None for accesses made by the simulator's atomics. Also the innermost function and line.
    This walk runs for every element access of every simulated thread, so what a frame
    contributes is found once per code and instruction (:func:`_frame_info`), and the walk stops
    below the kernel's own frame: the frames above it (labkit.simulator.threads') are the
    same for the whole life of the thread, and found on its first access.
    """
    path = []
    function, line = "", 0
    stop, outermost = state.above_kernel, None
    while frame is not stop:
        key = (id(frame.f_code), frame.f_lasti)
        info = _FRAMES.get(key)
        if info is None:
            info = _FRAMES[key] = _frame_info(frame)
        kind = info[1]
        if kind is _KERNEL:
            if not path:
                function, line = info[3], info[4]
            path.append(info[2])
            outermost = frame
        elif kind is _ATOMIC:
            return None, "", 0
        frame = frame.f_back
    if stop is None and outermost is not None:
        state.above_kernel = outermost.f_back
    return tuple(path), function, line


_KERNEL, _SKIPPED, _ATOMIC = "kernel", "skipped", "atomic"


def _frame_info(frame) -> tuple:
    """(code, kind, path entry, function, line) of a frame, which its code and instruction decide: kind is
    _ATOMIC for the simulator's atomics, _SKIPPED for the simulator, NumPy and this
    module, _KERNEL for the kernel's own code, whose entry is (file, first line, instruction
    offset). The code object is kept so that its id, the cache's key, is not reused."""
    code = frame.f_code
    filename = code.co_filename
    if filename == _ATOMICS_FILE:
        return code, _ATOMIC, None, "", 0
    if filename.startswith(_SKIPPED_PREFIXES):
        return code, _SKIPPED, None, "", 0
    entry = (filename, code.co_firstlineno, _instruction_offset(code, frame.f_lasti))
    return code, _KERNEL, entry, code.co_name, frame.f_lineno


def _instruction_offset(code, lasti: int) -> int:
    """The offset of the instruction ``lasti`` is in: a specialised subscript (CPython 3.11+)
    reports an offset inside its inline cache, the plain one its own offset."""
    offsets = [instruction.offset for instruction in dis.get_instructions(code)]
    return offsets[bisect.bisect_right(offsets, lasti) - 1]


#: (id(code), lasti) -> :func:`_frame_info` of a frame there, found once per pair.
_FRAMES: dict[tuple[int, int], tuple] = {}


def _element_offset(view: np.ndarray, index) -> int:
    """Byte offset of ``view[index]`` from the view's first element; refuses anything but one element."""
    if type(index) is int and view.ndim == 1:  # the common case, a Python int into a vector
        return (index + view.shape[0] if index < 0 else index) * view.strides[0]
    index = index if isinstance(index, tuple) else (index,)
    if len(index) != view.ndim:
        raise _not_an_element(view, index)
    offset = 0
    for i, n, stride in zip(index, view.shape, view.strides):
        if type(i) is not int and (isinstance(i, bool) or not isinstance(i, (int, np.integer))):
            raise _not_an_element(view, index)
        offset += (int(i) + n if i < 0 else int(i)) * stride
    return offset


def _not_an_element(view: np.ndarray, index: tuple) -> ValueError:
    return ValueError(f"access trace records element accesses only, got index {index!r} on a {view.ndim}-d array")


@functools.lru_cache(maxsize=None)
def _parts(dtype: np.dtype) -> list[tuple[int, int]]:
    """(byte delta, width) of the accesses one element costs: complex numbers are two halves;
    a record of 8 or 16 bytes (:func:`vector_dtype`) is one access of its size."""
    if dtype.kind == "c":
        half = dtype.itemsize // 2
        return [(0, half), (half, half)]
    if dtype.fields is not None:
        if dtype.itemsize not in (8, 16):
            raise ValueError(f"access trace: records of {dtype.itemsize} bytes are not a vector width (8, 16)")
        return [(0, dtype.itemsize)]
    if dtype.itemsize not in WIDTHS_BYTES or dtype.itemsize > 8:
        raise ValueError(f"access trace: {dtype} elements of {dtype.itemsize} bytes are not a Numba load width (1, 2, 4, 8)")
    return [(0, dtype.itemsize)]


@contextmanager
def _shared_arrays_recorded(recorder: _Recorder) -> Iterator[None]:
    """Patch the simulator's ``cuda.shared.array`` to hand out recording arrays, one per call site."""
    original = FakeCUDAShared.array

    def array(shared, shape, dtype):
        if shape == 0:
            raise ValueError("access trace: dynamic shared memory (cuda.shared.array(0, ...)) is not supported")
        caller = sys._getframe(1)
        site = ("labkit.simulator.trace", caller.f_code.co_filename, caller.f_code.co_firstlineno, caller.f_lasti)
        if site not in shared._allocations:  # (the block's threads take turns: no two run this at once)
            if isinstance(dtype, types.Type):
                dtype = numpy_support.as_dtype(dtype)
            name = _assigned_name(caller) or f"shared@{caller.f_code.co_name}:{caller.f_lineno}"
            shared._allocations[site] = recorder.shared_array(np.zeros(shape, dtype), name)
        return shared._allocations[site]

    FakeCUDAShared.array = array
    try:
        yield
    finally:
        FakeCUDAShared.array = original


def _assigned_name(frame) -> str | None:
    """``tile`` for a source line ``tile = cuda.shared.array(...)``."""
    match = _ASSIGNED_NAME.match(linecache.getline(frame.f_code.co_filename, frame.f_lineno))
    return match.group(1) if match else None
