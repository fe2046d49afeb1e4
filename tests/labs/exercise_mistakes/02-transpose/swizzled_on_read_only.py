"""Caught by: correct
The XOR swizzle applied when reading the tile but not when writing it: the reads are free of
conflicts, and they fetch the wrong elements."""

from numba import float32

from labkit.gpu import cuda

TILE = 32
ROWS = 8


@cuda.jit
def transpose_swizzled(source, target):
    tile = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
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
            target[y + k, x] = tile[tx, (ty + k) ^ tx]


def run(source, target):
    rows, cols = source.shape
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    transpose_swizzled[grid, (TILE, ROWS)](source, target)
