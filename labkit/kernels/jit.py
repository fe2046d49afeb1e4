"""The decorator of every lab kernel: line information on a GPU (Nsight Compute's Source
Counters need it), plain in the simulator, whose ``cuda.jit`` takes no such option.
"""

from __future__ import annotations

from labkit.gpu import SIMULATED, cuda


def kernel(function):
    """cuda.jit(lineinfo=True) on a GPU, cuda.jit in the simulator."""
    return cuda.jit(function) if SIMULATED else cuda.jit(lineinfo=True)(function)


def device_function(function):
    """A function callable from kernels: cuda.jit(device=True), with line information on a GPU."""
    return cuda.jit(device=True)(function) if SIMULATED else cuda.jit(device=True, lineinfo=True)(function)
