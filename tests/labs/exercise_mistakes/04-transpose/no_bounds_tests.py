"""Caught by: error
Tiled and padded, but without the bounds tests (as if the matrix were a multiple of 32 on both
sides): the edge tiles read past the end of source (the simulator names the line; on a GPU the
guard zones catch the writes past target)."""

from numba import float32

from labkit.gpu import cuda

TILE = 32
PADDED = TILE + 1   # a shared array's shape is a compile-time constant
ROWS_PER_PASS = 8


@cuda.jit
def transpose_tiled(source, target):
    tile = cuda.shared.array(shape=(TILE, PADDED), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y0 = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, ROWS_PER_PASS):
        tile[ty + k, tx] = source[y0 + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y0 = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, ROWS_PER_PASS):
        target[y0 + k, x] = tile[tx, ty + k]


def transpose(source, target):
    grid = ((source.shape[1] + TILE - 1) // TILE, (source.shape[0] + TILE - 1) // TILE)
    transpose_tiled[grid, (TILE, ROWS_PER_PASS)](source, target)
