"""Exercice 06-regtile, notre solution · 练习 06-regtile 参考解

FR. L'étape 3 du chapitre (labkit.kernels.gemm_simt.gemm_regtile) : un bloc de 256 threads calcule
une tuile de 128 × 128 de c, chaque thread 8 × 8 éléments gardés en registres, K par tranches de 8.
À chaque k, un thread lit 8 mots de a et 8 de b en mémoire partagée pour 64 FMA : 256 FLOP par
wavefront. Les lignes d'un thread sont ty + 16·i et ses colonnes tx + 16·j, pour qu'un warp lise 16
mots consécutifs d'une ligne de sb ; la tranche de a est rangée en k avec 4 mots de marge par ligne.
Un bloc de 4 × 4 par thread (tuiles de 64 × 64) atteint déjà 128 FLOP par wavefront.
中文。本章第 3 步（labkit.kernels.gemm_simt.gemm_regtile）：一个 256 线程的 block 计算 c 的一块
128 × 128，每个线程 8 × 8 个元素保存在寄存器里，K 按 8 分段。每一步 k，一个线程从 shared memory
读 a 的 8 个字和 b 的 8 个字，做 64 次 FMA：每个 wavefront 256 FLOP。线程负责的行是 ty + 16·i，
列是 tx + 16·j，这样一个 warp 读取 sb 一行中 16 个连续的字；a 的分段按 k 存放，每行填充 4 个字。
每线程 4 × 4（64 × 64 的块）就已达到每个 wavefront 128 FLOP。
"""

from numba import float32

from labkit.gpu import cuda

BM = BN = 128
BK = 8
TM = TN = 8
THREADS = 256
SIDE = BN // TN          # 16 threads along a block's columns (and rows)
A_PAD = 4
A_ROW = BM + A_PAD   # a shared array's shape is a compile-time constant


@cuda.jit
def gemm_regtile(a, b, c):
    sa = cuda.shared.array((BK, A_ROW), dtype=float32)  # sa[k, m]
    sb = cuda.shared.array((BK, BN), dtype=float32)          # sb[k, n]
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
    gemm_regtile[(n // BN, m // BM), THREADS](a, b, c)
