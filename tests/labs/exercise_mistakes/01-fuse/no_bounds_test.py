"""Caught by: error
Fused, but without the bounds test: the last block's extra threads write past the end of out (the
simulator names the line; on a GPU, the guard zone after out catches it)."""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def saxpy_relu(a, x, y, out):
    i = cuda.grid(1)
    out[i] = max(a * x[i] + y[i], 0.0)


def run(a, x, y, out, tmp):
    blocks = x.size // THREADS + 1
    saxpy_relu[blocks, THREADS](a, x, y, out)
