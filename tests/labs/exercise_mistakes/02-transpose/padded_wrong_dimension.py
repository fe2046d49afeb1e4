"""Caught by: shared_conflicts_per_request
Caught on the GPU by: time_ratio
Padded, but the extra word went to the rows, tile[33][32]: a row is still 32 words, so the 32
elements of a column are still in one bank (32 wavefronts per read, as in the skeleton)."""

from numba import float32

from labkit.gpu import cuda

TILE = 32
PADDED = TILE + 1   # a shared array's shape is a compile-time constant
ROWS = 8


@cuda.jit
def transpose_padded(source, target):
    tile = cuda.shared.array(shape=(PADDED, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, ROWS):
        if y + k < source.shape[0] and x < source.shape[1]:
            tile[ty + k, tx] = source[y + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, ROWS):
        if y + k < target.shape[0] and x < target.shape[1]:
            target[y + k, x] = tile[tx, ty + k]


def run(source, target):
    rows, cols = source.shape
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    transpose_padded[grid, (TILE, ROWS)](source, target)
