"""The other remedy the chapter names: no padding, an XOR swizzle. Element (m, k) of the A tile is
stored at sa[k, m ^ k]: the 32 lanes of a warp (k = tx, one m = ty) write 32 words of 32 different
rows in 32 different columns, so 32 different banks; a read sa[k, ty ^ k] is one word for the
whole warp (a broadcast), as before."""

from numba import float32

from labkit.gpu import cuda

TILE = 32


@cuda.jit
def gemm_shared_swizzled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)  # sa[k, m ^ k]
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for k0 in range(0, a.shape[1], TILE):
        sa[tx, ty ^ tx] = a[cuda.blockIdx.y * TILE + ty, k0 + tx]
        sb[ty, tx] = b[k0 + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[k, ty ^ k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


def run(a, b, c):
    m, n = c.shape
    gemm_shared_swizzled[(n // TILE, m // TILE), (TILE, TILE)](a, b, c)
