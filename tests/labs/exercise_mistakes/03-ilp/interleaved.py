"""Caught by: bytes_in_flight_per_warp
Caught on the GPU by: time_ratio
Unrolled four times, but each load is followed by the store that uses it: the store waits for its
load, and the next load cannot pass the store (out and x may overlap, so neither compiler moves
it): one 128-byte load in flight per warp, as in the skeleton."""

from labkit.gpu import cuda


@cuda.jit
def copy(x, out):
    n = x.size
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    while i + 3 * stride < n:
        out[i] = x[i]
        out[i + stride] = x[i + stride]
        out[i + 2 * stride] = x[i + 2 * stride]
        out[i + 3 * stride] = x[i + 3 * stride]
        i += 4 * stride
    while i < n:
        out[i] = x[i]
        i += stride
