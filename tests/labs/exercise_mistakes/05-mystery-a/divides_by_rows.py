"""Caught by: error
The two index lines swapped, but still dividing by rows: right on a square matrix only; on this
one the row index runs past the last row."""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def kernel_a(x, y, a):
    t = cuda.grid(1)
    rows, cols = x.shape
    if t < rows * cols:
        r = t // rows
        c = t % rows
        y[r, c] = a * x[r, c]


def run(x, y, a):
    kernel_a[(x.size + THREADS - 1) // THREADS, THREADS](x, y, a)
