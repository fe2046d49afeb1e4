"""Caught by: error
Padded, but the write loop's bounds test was copied from the read loop: it tests the source's
shape, not the target's. On a matrix that is not square, the edge threads write past the end of a
row of target (the simulator names the line; on a GPU, the write lands in the next row, or past the
array, in the guard zone)."""

from numba import float32

from labkit.gpu import cuda

TILE = 32
PADDED = TILE + 1   # a shared array's shape is a compile-time constant
ROWS = 8


@cuda.jit
def transpose_padded(source, target):
    tile = cuda.shared.array(shape=(TILE, PADDED), dtype=float32)
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
        if y + k < source.shape[0] and x < source.shape[1]:
            target[y + k, x] = tile[tx, ty + k]


def run(source, target):
    rows, cols = source.shape
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    transpose_padded[grid, (TILE, ROWS)](source, target)
