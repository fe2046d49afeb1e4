"""Step 3's thread tile on a smaller block: 64 threads, each 8 x 8 outputs of a 64 x 64 tile of c
(rows ty + 8 i, columns tx + 8 j), the A slice stored k-major. Per k a warp reads 4 consecutive
words of sa (one wavefront) 8 times and 8 consecutive words of sb (one wavefront) 8 times, for
64 FMAs per thread: 256 FLOP per wavefront, twice the criterion."""

from numba import float32

from labkit.gpu import cuda

BM = BN = 64
BK = 8
TM = TN = 8
THREADS = 64
SIDE = BN // TN          # 8 threads along a block's columns (and rows)


@cuda.jit
def gemm_regtile_8x8(a, b, c):
    sa = cuda.shared.array((BK, BM), dtype=float32)   # sa[k, m]
    sb = cuda.shared.array((BK, BN), dtype=float32)   # sb[k, n]
    acc = cuda.local.array((TM, TN), dtype=float32)
    ra = cuda.local.array(TM, dtype=float32)
    rb = cuda.local.array(TN, dtype=float32)
    tid = cuda.threadIdx.x
    ty = tid // SIDE
    tx = tid % SIDE
    row0 = cuda.blockIdx.y * BM
    col0 = cuda.blockIdx.x * BN
    for i in range(TM):
        for j in range(TN):
            acc[i, j] = float32(0.0)
    for k0 in range(0, a.shape[1], BK):
        for i in range(BM * BK // THREADS):
            e = tid + THREADS * i
            sa[e % BK, e // BK] = a[row0 + e // BK, k0 + e % BK]
            sb[e // BN, e % BN] = b[k0 + e // BN, col0 + e % BN]
        cuda.syncthreads()
        for k in range(BK):
            for i in range(TM):
                ra[i] = sa[k, ty + SIDE * i]
            for j in range(TN):
                rb[j] = sb[k, tx + SIDE * j]
            for i in range(TM):
                for j in range(TN):
                    acc[i, j] += ra[i] * rb[j]
        cuda.syncthreads()
    for i in range(TM):
        for j in range(TN):
            c[row0 + ty + SIDE * i, col0 + tx + SIDE * j] = acc[i, j]


def run(a, b, c):
    m, n = c.shape
    gemm_regtile_8x8[(n // BN, m // BM), THREADS](a, b, c)
