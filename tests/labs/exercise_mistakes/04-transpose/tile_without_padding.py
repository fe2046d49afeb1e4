"""Caught by: shared_conflicts_per_request
Caught on the GPU by: time_ratio
Through shared memory, both global sides coalesced, but the tile is 32 x 32: reading one of its
columns puts the 32 lanes of a warp in one bank, 32 wavefronts per read."""

from numba import float32

from labkit.gpu import cuda

TILE = 32
ROWS_PER_PASS = 8


@cuda.jit
def transpose_tiled(source, target):
    tile = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y0 = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, ROWS_PER_PASS):
        if y0 + k < source.shape[0] and x < source.shape[1]:
            tile[ty + k, tx] = source[y0 + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y0 = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, ROWS_PER_PASS):
        if y0 + k < target.shape[0] and x < target.shape[1]:
            target[y0 + k, x] = tile[tx, ty + k]


def transpose(source, target):
    grid = ((source.shape[1] + TILE - 1) // TILE, (source.shape[0] + TILE - 1) // TILE)
    transpose_tiled[grid, (TILE, ROWS_PER_PASS)](source, target)
