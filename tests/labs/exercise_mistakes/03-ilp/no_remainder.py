"""Caught by: correct
Eight loads before the stores, in bounds, but nothing copies what is left after the last whole
trip: the last elements of out keep the poison they arrived with."""

from numba import float32

from labkit.gpu import cuda

LOADS = 8


@cuda.jit
def copy(x, out):
    n = x.size
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    held = cuda.local.array(LOADS, float32)
    while i + (LOADS - 1) * stride < n:
        for j in range(LOADS):
            held[j] = x[i + j * stride]
        for j in range(LOADS):
            out[i + j * stride] = held[j]
        i += LOADS * stride
