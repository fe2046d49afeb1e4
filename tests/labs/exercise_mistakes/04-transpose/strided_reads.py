"""Caught by: load_sectors_per_request
The indices swapped so that neighbouring threads write neighbouring addresses of target: the stores
are coalesced, and the stride has moved to the loads, which now walk down a column of source."""

from labkit.gpu import cuda

TILE = 32
ROWS_PER_PASS = 8


@cuda.jit
def transpose_swapped(source, target):
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x      # a column of target, a row of source
    y0 = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    for k in range(0, TILE, ROWS_PER_PASS):
        y = y0 + k
        if y < target.shape[0] and x < target.shape[1]:
            target[y, x] = source[x, y]


def transpose(source, target):
    grid = ((target.shape[1] + TILE - 1) // TILE, (target.shape[0] + TILE - 1) // TILE)
    transpose_swapped[grid, (TILE, ROWS_PER_PASS)](source, target)
