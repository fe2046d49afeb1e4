"""Chapter 1's sample kernels, as a reader would first write them, to be placed on the roofline.

Their FLOP and byte counts live in labkit.models.workloads (one place for each fact); the sample
reduction is labkit.kernels.reduction.block_sum.
"""

from __future__ import annotations

import numpy as np
from numba import float32

from labkit.gpu import cuda
from labkit.kernels.jit import kernel

GEMM_TILE = 32


@kernel
def saxpy(a, x, y):
    """y = a * x + y."""
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + y[i]


@kernel
def gemm_tiled(a, b, c):
    """c = a @ b (square, n a multiple of GEMM_TILE), one output per thread, GEMM_TILE^2 tiles in
    shared memory: each block streams n / GEMM_TILE tiles of a and of b."""
    sa = cuda.shared.array((GEMM_TILE, GEMM_TILE), dtype=float32)
    sb = cuda.shared.array((GEMM_TILE, GEMM_TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * GEMM_TILE + ty
    col = cuda.blockIdx.x * GEMM_TILE + tx
    acc = float32(0.0)
    for k0 in range(0, a.shape[1], GEMM_TILE):
        sa[ty, tx] = a[row, k0 + tx]
        sb[ty, tx] = b[k0 + ty, col]
        cuda.syncthreads()
        for k in range(GEMM_TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


@kernel
def stencil_5pt(grid, out, c0, c1):
    """out = c0 * centre + c1 * (north + south + east + west) inside; the border is copied."""
    x, y = cuda.grid(2)
    n, m = grid.shape
    if y < n and x < m:
        if 0 < y < n - 1 and 0 < x < m - 1:
            out[y, x] = c0 * grid[y, x] + c1 * (grid[y - 1, x] + grid[y + 1, x] + grid[y, x - 1] + grid[y, x + 1])
        else:
            out[y, x] = grid[y, x]


def stencil_reference(grid: np.ndarray, c0: float, c1: float) -> np.ndarray:
    out = grid.copy()
    out[1:-1, 1:-1] = c0 * grid[1:-1, 1:-1] + c1 * (grid[:-2, 1:-1] + grid[2:, 1:-1] + grid[1:-1, :-2] + grid[1:-1, 2:])
    return out
