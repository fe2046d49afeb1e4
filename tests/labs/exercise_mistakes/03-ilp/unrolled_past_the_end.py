"""Caught by: error
Eight loads before the stores, but the loop only tests that the first index is in bounds: in the
last trip the other seven read past the end of x and write past the end of out (the simulator
names the line; on a GPU, the guard zone after out shows it)."""

from numba import float32

from labkit.gpu import cuda

LOADS = 8


@cuda.jit
def copy(x, out):
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    held = cuda.local.array(LOADS, float32)
    while i < x.size:
        for j in range(LOADS):
            held[j] = x[i + j * stride]
        for j in range(LOADS):
            out[i + j * stride] = held[j]
        i += LOADS * stride
