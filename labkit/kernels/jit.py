"""The decorator of every lab kernel: line information on a GPU (Nsight Compute's Source
Counters need it), plain in the simulator, whose ``cuda.jit`` takes no such option.
"""

from __future__ import annotations

from labkit.gpu import SIMULATED, cuda


def kernel(function=None, *, max_registers: int | None = None, launch_bounds: tuple[int, int] | None = None):
    """cuda.jit(lineinfo=True) on a GPU, cuda.jit in the simulator. ``@kernel`` or
    ``kernel(f, max_registers=N)``: at most N registers per thread (ptxas's -maxrregcount);
    ``launch_bounds=(threads, blocks)``: CUDA C's ``__launch_bounds__``, at most ``threads`` per
    block and registers for ``blocks`` of them per SM (the simulator has no registers to limit)."""
    if function is None:
        return lambda f: kernel(f, max_registers=max_registers, launch_bounds=launch_bounds)
    if SIMULATED:
        return cuda.jit(function)
    bounds = {} if launch_bounds is None else {"launch_bounds": launch_bounds}
    return cuda.jit(lineinfo=True, max_registers=max_registers, **bounds)(function)


def device_function(function):
    """A function callable from kernels: cuda.jit(device=True), with line information on a GPU."""
    return cuda.jit(device=True)(function) if SIMULATED else cuda.jit(device=True, lineinfo=True)(function)
