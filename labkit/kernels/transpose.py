"""Matrix transpose: the naive version's writes are strided (uncoalesced); the tiled one stages
a 32 x 32 tile in shared memory, padded to 33 columns so the column reads hit 32 different banks.
"""

from __future__ import annotations

import numpy as np
from numba import float32

from labkit.gpu import cuda
from labkit.kernels.jit import kernel

TILE = 32
#: A tile row padded by one float, so that reading a column hits 32 different banks.
TILE_PADDED = TILE + 1
#: Threads per block of both kernels: TILE x ROWS_PER_PASS; each thread moves TILE / ROWS_PER_PASS elements.
ROWS_PER_PASS = 8


@kernel
def transpose_naive(source, target):
    """target[x, y] = source[y, x]: reads along rows (coalesced), writes down columns (a stride of a row)."""
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y0 = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    for k in range(0, TILE, ROWS_PER_PASS):
        y = y0 + k
        if y < source.shape[0] and x < source.shape[1]:
            target[x, y] = source[y, x]


@kernel
def transpose_tiled(source, target):
    """Read a tile along rows, write it along rows of the target: both sides coalesced."""
    tile = cuda.shared.array(shape=(TILE, TILE_PADDED), dtype=float32)
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


def launch_shape(rows: int, cols: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(grid, block) covering a rows x cols source with TILE x TILE tiles."""
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    return grid, (TILE, ROWS_PER_PASS)


def transpose_reference(source: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(source.T)
