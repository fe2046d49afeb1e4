"""Caught by: shared_conflicts_per_request
Caught on the GPU by: time_ratio
A word of padding, but on the B tile: sb is stored row by row (32 consecutive words, no conflict
to remove), while the k-major store into sa still puts the 32 lanes of a warp in one bank."""

from numba import float32

from labkit.gpu import cuda

TILE = 32
PADDED = TILE + 1


@cuda.jit
def gemm_shared(a, b, c):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)     # sa[k, m]
    sb = cuda.shared.array((TILE, PADDED), dtype=float32)   # sb[k, n], padded for nothing
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for k0 in range(0, a.shape[1], TILE):
        sa[tx, ty] = a[cuda.blockIdx.y * TILE + ty, k0 + tx]
        sb[ty, tx] = b[k0 + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[k, ty] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


def run(a, b, c):
    m, n = c.shape
    gemm_shared[(n // TILE, m // TILE), (TILE, TILE)](a, b, c)
