"""Caught by: flops_per_shared_wavefront
A 4 x 4 block of c per thread held in registers, but each thread's rows and columns are
consecutive (4 ty + i, 4 tx + j), the layout one writes first. Per k, the two rows of a that a
warp reads (4 ty for two values of ty) are 64 words apart, in one bank: 2 wavefronts per read;
its 16 columns of b are 4 words apart, lanes tx and tx + 8 in the same bank: 2 wavefronts per read.
16 wavefronts for 1 024 FLOP: 64 per wavefront, half the criterion."""

from numba import float32

from labkit.gpu import cuda

BM = BN = 64
BK = 16
TM = TN = 4
THREADS = 256
SIDE = BN // TN


@cuda.jit
def gemm_regtile(a, b, c):
    sa = cuda.shared.array((BM, BK), dtype=float32)   # sa[m, k]
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
            sa[e // BK, e % BK] = a[row0 + e // BK, k0 + e % BK]
            sb[e // BN, e % BN] = b[k0 + e // BN, col0 + e % BN]
        cuda.syncthreads()
        for k in range(BK):
            for i in range(TM):
                ra[i] = sa[TM * ty + i, k]
            for j in range(TN):
                rb[j] = sb[k, TN * tx + j]
            for i in range(TM):
                for j in range(TN):
                    acc[i, j] += ra[i] * rb[j]
        cuda.syncthreads()
    for i in range(TM):
        for j in range(TN):
            c[row0 + TM * ty + i, col0 + TN * tx + j] = acc[i, j]


def run(a, b, c):
    m, n = c.shape
    gemm_regtile[(n // BN, m // BM), THREADS](a, b, c)
