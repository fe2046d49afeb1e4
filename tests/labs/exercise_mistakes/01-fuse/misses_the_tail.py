"""Caught by: correct
Fused, but the grid is rounded down: the last partial block's elements are never written."""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def saxpy_relu(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = max(a * x[i] + y[i], 0.0)


def run(a, x, y, out, tmp):
    saxpy_relu[x.size // THREADS - 1, THREADS](a, x, y, out)
