"""Caught by: store_sectors_per_request
Caught on the GPU by: time_ratio
No shared memory, hence no bank conflicts: the naive transpose. Its reads are coalesced, its
writes go down a column of target, each lane in its own row: 32 sectors per request."""

from labkit.gpu import cuda

TILE = 32
ROWS = 8


@cuda.jit
def transpose_naive(source, target):
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    for k in range(0, TILE, ROWS):
        if y + k < source.shape[0] and x < source.shape[1]:
            target[x, y + k] = source[y + k, x]


def run(source, target):
    rows, cols = source.shape
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    transpose_naive[grid, (TILE, ROWS)](source, target)
