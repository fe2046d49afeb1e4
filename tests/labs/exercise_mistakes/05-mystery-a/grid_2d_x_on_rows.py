"""Caught by: load_sectors_per_request
Caught on the GPU by: time_ratio
A 2-D grid, with x (the index that varies fastest within a warp) taken as the row: the warp still
walks down a column, the same flaw as kernel_a."""

from labkit.gpu import cuda

BLOCK = (32, 8)


@cuda.jit
def scale_2d(x, y, a):
    r, c = cuda.grid(2)
    if r < x.shape[0] and c < x.shape[1]:
        y[r, c] = a * x[r, c]


def run(x, y, a):
    rows, cols = x.shape
    grid = ((rows + BLOCK[0] - 1) // BLOCK[0], (cols + BLOCK[1] - 1) // BLOCK[1])
    scale_2d[grid, BLOCK](x, y, a)
