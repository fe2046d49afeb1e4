"""What the learner's code did in Numba's CUDA simulator: every kernel launch, traced by the
chapter 2 analyzer (labkit.simulator.trace), every atomic operation, counted, and which output
elements host code wrote last rather than a kernel.

:func:`watched` patches the simulator's kernel launch and atomics for the duration of a ``with``
block, so the learner's code runs unchanged: any number of launches, of any kernels, from a host
function or directly. It needs the simulator (NUMBA_ENABLE_CUDASIM=1 before numba.cuda loads).

Host writes. The outputs are compared, byte for byte, before and after each launch: an element
that changed during a launch was written by a kernel; one that changed between launches (or
after the last) was written by host code (``copy_to_device``, an assignment from the host, ...).
An element's last writer counts: host code may zero an output that kernels then accumulate into.

Inputs read. Each launch's global loads through a parameter that shares memory with an input
mark the elements they hit: an input element no launch loaded was not read by any kernel (an
answer computed on the host from copies of the inputs, then moved into the output by a kernel,
reads none of them on the device).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import Protocol

import numpy as np

from labkit.models.access import KernelCounts, Op, Space, Totals
from labkit.simulator.trace import KernelTrace, trace_launch


@dataclass(frozen=True)
class Launch:
    """One kernel launch: its name, grid and block, and the trace of its memory accesses."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    trace: KernelTrace

    @cached_property
    def counts(self) -> KernelCounts:
        """The analyzer's counts of the launch, computed once (a trace of 2 048 threads holds some
        ten thousand instructions, each analysed lane by lane)."""
        return self.trace.counts()

    @property
    def threads(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2] * self.block[0] * self.block[1] * self.block[2]


@dataclass
class Evidence:
    """Every launch of a run, in order, and the atomic operations its threads performed; the
    learner's module (for metrics that ask it something, e.g. a launch configuration); per output,
    how many of its elements host code wrote last; per input watched, how many no kernel read."""

    elements: int
    module: object = None
    launches: list[Launch] = field(default_factory=list)
    atomics: int = 0
    host_written: dict[str, int] = field(default_factory=dict)
    inputs_unread: dict[str, int] = field(default_factory=dict)

    @property
    def counts(self) -> KernelCounts:
        """The analyzer's sums over every launch's instructions, per (space, op): each launch's
        totals added up (DRAM floors per launch, summed)."""
        totals: dict[tuple[Space, Op], Totals] = {}
        for launch in self.launches:
            for key, launch_totals in launch.counts.totals.items():
                totals[key] = _added(totals.get(key, Totals()), launch_totals)
        return KernelCounts(totals=totals,
                            dram_read_bytes=sum(launch.counts.dram_read_bytes for launch in self.launches),
                            dram_write_bytes=sum(launch.counts.dram_write_bytes for launch in self.launches))


def _added(a: Totals, b: Totals) -> Totals:
    """Two sums of instructions' counts, summed field by field."""
    return Totals(**{f.name: getattr(a, f.name) + getattr(b, f.name) for f in fields(Totals)})


class LaunchListener(Protocol):
    """Told of each launch as it starts and ends (the check's progress line, its time limit's verdict)."""

    def launch(self, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None: ...

    def launched(self) -> None: ...


class _LastWriters:
    """Per output, which elements host code wrote last. An element is a kernel's when a launch
    stored to it (the trace's global stores) or changed it (atomics, which the trace does not
    record); host code's when it changed between launches. Snapshots of the outputs' bytes are
    taken at each launch's start and end."""

    def __init__(self, outputs: Mapping[str, object]):
        self.outputs = {name: _host_memory(array) for name, array in outputs.items()}
        self.snapshots = {name: self._bytes(name) for name in self.outputs}
        self.by_host = {name: np.zeros(memory.size, bool) for name, memory in self.outputs.items()}

    def _bytes(self, name: str) -> np.ndarray:
        """One row of bytes per element."""
        memory = np.ascontiguousarray(self.outputs[name])
        return memory.reshape(-1).view(np.uint8).reshape(memory.size, -1).copy()

    def _changed(self, name: str) -> np.ndarray:
        now = self._bytes(name)
        changed = (now != self.snapshots[name]).any(axis=1)
        self.snapshots[name] = now
        return changed

    def host_ran(self) -> None:
        """Host code ran since the last snapshot: what changed, it wrote."""
        for name in self.outputs:
            self.by_host[name] |= self._changed(name)

    def kernel_ran(self, parameters: Mapping[str, object], trace: KernelTrace) -> None:
        """A launch ran with these arguments (by parameter name): what it stored to or changed is its."""
        for name, memory in self.outputs.items():
            written = self._changed(name)
            for parameter, argument in parameters.items():
                array = _host_memory(argument)
                if array is not None and parameter in trace.global_bases and np.may_share_memory(array, memory):
                    written |= _stored(trace, parameter, array, memory)
            self.by_host[name] &= ~written

    def counts(self) -> dict[str, int]:
        return {name: int(mask.sum()) for name, mask in self.by_host.items()}


class _Readers:
    """Per input, which elements a launch's global loads hit."""

    def __init__(self, inputs: Mapping[str, object]):
        self.inputs = {name: _host_memory(array) for name, array in inputs.items()}
        self.read = {name: np.zeros(memory.size, bool) for name, memory in self.inputs.items()}

    def kernel_ran(self, parameters: Mapping[str, object], trace: KernelTrace) -> None:
        for name, memory in self.inputs.items():
            for parameter, argument in parameters.items():
                array = _host_memory(argument)
                if array is not None and parameter in trace.global_bases and np.may_share_memory(array, memory):
                    self.read[name] |= _hit(trace, parameter, array, memory, Op.LOAD)

    def counts(self) -> dict[str, int]:
        return {name: int((~mask).sum()) for name, mask in self.read.items()}


def _host_memory(array) -> np.ndarray | None:
    """The NumPy array behind a simulator device array (or a NumPy array itself)."""
    array = getattr(array, "_ary", array)
    return array if isinstance(array, np.ndarray) and array.ndim > 0 else None


def _stored(trace: KernelTrace, parameter: str, argument: np.ndarray, output: np.ndarray) -> np.ndarray:
    """Which elements of ``output`` (C order) the launch's global stores through ``parameter`` hit."""
    return _hit(trace, parameter, argument, output, Op.STORE)


def _hit(trace: KernelTrace, parameter: str, argument: np.ndarray, array: np.ndarray, op: Op) -> np.ndarray:
    """Which elements of ``array`` (C order) the launch's global accesses ``op`` through ``parameter`` hit."""
    hit = np.zeros(array.size, bool)
    start = argument.__array_interface__["data"][0] - trace.global_bases[parameter]
    first = array.__array_interface__["data"][0]
    for instruction in trace.instructions:
        access = instruction.access
        if instruction.array != parameter or access.op is not op or access.space is not Space.GLOBAL:
            continue
        for address in access.addresses:
            byte = None if address is None else start + address - first
            if byte is not None and 0 <= byte < array.nbytes:
                hit[byte // array.itemsize] = True
    return hit


@contextmanager
def watched(elements: int, module: object = None, outputs: Mapping[str, object] | None = None,
            listener: LaunchListener | None = None, inputs: Mapping[str, object] | None = None) -> Iterator[Evidence]:
    """Within the block, each kernel launch is traced and each atomic counted into the Evidence;
    ``outputs`` (name: device array) are watched for host writes, ``inputs`` for the elements
    kernels read; ``listener`` hears of each launch."""
    from numba.cuda.simulator import kernel as simulated
    from numba.cuda.simulator import kernelapi

    evidence = Evidence(elements, module)
    writers = _LastWriters(outputs or {})
    readers = _Readers(inputs or {})
    lock = threading.Lock()
    launch = simulated.FakeCUDAKernel.__call__
    tracing = threading.local()

    def traced_call(kernel, *args):
        if kernel._device or simulated._kernel_context or getattr(tracing, "on", False):
            return launch(kernel, *args)
        grid, block = kernel.grid_dim, kernel.block_dim
        writers.host_ran()
        if listener is not None:
            listener.launch(kernel.py_func.__name__, tuple(grid), tuple(block))
        tracing.on = True
        try:
            trace = trace_launch(kernel, grid, block, *args)
        finally:
            tracing.on = False
        parameters = dict(zip(kernel.py_func.__code__.co_varnames[:kernel.py_func.__code__.co_argcount], args))
        writers.kernel_ran(parameters, trace)
        readers.kernel_ran(parameters, trace)
        if listener is not None:
            listener.launched()
        evidence.launches.append(Launch(kernel.py_func.__name__, tuple(grid), tuple(block), trace))

    def counted(method):
        def atomic(self, *args, **kwargs):
            with lock:
                evidence.atomics += 1
            return method(self, *args, **kwargs)
        return atomic

    atomics = {name: getattr(kernelapi.FakeCUDAAtomic, name) for name in vars(kernelapi.FakeCUDAAtomic)
               if not name.startswith("_") and callable(getattr(kernelapi.FakeCUDAAtomic, name))}
    simulated.FakeCUDAKernel.__call__ = traced_call
    for name, method in atomics.items():
        setattr(kernelapi.FakeCUDAAtomic, name, counted(method))
    try:
        yield evidence
        writers.host_ran()
        evidence.host_written = writers.counts()
        evidence.inputs_unread = readers.counts()
    finally:
        simulated.FakeCUDAKernel.__call__ = launch
        for name, method in atomics.items():
            setattr(kernelapi.FakeCUDAAtomic, name, method)
