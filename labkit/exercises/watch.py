"""What the learner's code did in Numba's CUDA simulator: every kernel launch, traced by the
chapter 2 analyzer (labkit.access_trace), and every atomic operation, counted.

:func:`watched` patches the simulator's kernel launch and atomics for the duration of a ``with``
block, so the learner's code runs unchanged: any number of launches, of any kernels, from a host
function or directly. It needs the simulator (NUMBA_ENABLE_CUDASIM=1 before numba.cuda loads).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from labkit.access import KernelCounts, total
from labkit.access_trace import KernelTrace, trace_launch


@dataclass(frozen=True)
class Launch:
    """One kernel launch: its name, grid and block, and the trace of its memory accesses."""

    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    trace: KernelTrace

    @property
    def counts(self) -> KernelCounts:
        return self.trace.counts()

    @property
    def threads(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2] * self.block[0] * self.block[1] * self.block[2]


@dataclass
class Evidence:
    """Every launch of a run, in order, and the atomic operations its threads performed; the
    learner's module (for metrics that ask it something, e.g. a launch configuration)."""

    elements: int
    module: object = None
    launches: list[Launch] = field(default_factory=list)
    atomics: int = 0

    @property
    def counts(self) -> KernelCounts:
        """The analyzer's sums over every launch's instructions (DRAM floors per launch, summed)."""
        merged = total(i.access for launch in self.launches for i in launch.trace.instructions)
        return KernelCounts(totals=merged.totals,
                            dram_read_bytes=sum(launch.counts.dram_read_bytes for launch in self.launches),
                            dram_write_bytes=sum(launch.counts.dram_write_bytes for launch in self.launches))


@contextmanager
def watched(elements: int, module: object = None) -> Iterator[Evidence]:
    """Within the block, each kernel launch is traced and each atomic counted into the Evidence."""
    from numba.cuda.simulator import kernel as simulated
    from numba.cuda.simulator import kernelapi

    evidence = Evidence(elements, module)
    lock = threading.Lock()
    launch = simulated.FakeCUDAKernel.__call__
    tracing = threading.local()

    def traced_call(kernel, *args):
        if kernel._device or simulated._kernel_context or getattr(tracing, "on", False):
            return launch(kernel, *args)
        grid, block = kernel.grid_dim, kernel.block_dim
        tracing.on = True
        try:
            trace = trace_launch(kernel, grid, block, *args)
        finally:
            tracing.on = False
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
    finally:
        simulated.FakeCUDAKernel.__call__ = launch
        for name, method in atomics.items():
            setattr(kernelapi.FakeCUDAAtomic, name, method)
