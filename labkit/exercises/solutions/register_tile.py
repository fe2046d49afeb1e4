"""Exercice 06-regtile, notre solution · 练习 06-regtile 参考解

FR. Un bloc de 256 threads calcule une tuile de 64 × 64 de c, chaque thread 4 × 4 éléments gardés
en registres, K par tranches de 16. À chaque k, un thread lit 4 mots de a et 4 de b en mémoire
partagée pour 16 FMA : un warp fait 1 024 FLOP pour 8 wavefronts, 128 FLOP par wavefront. Les
lignes d'un thread sont ty + 16·i et ses colonnes tx + 16·j : un warp lit 16 mots consécutifs
d'une ligne de sb, et deux mots de sa (deux valeurs de ty) qui tombent dans deux bancs distincts.
L'étape 3 du chapitre (labkit.kernels.gemm_simt.gemm_regtile) va jusqu'à 8 × 8 par thread sur une
tuile de 128 × 128 : 256 FLOP par wavefront.
中文。一个 256 线程的 block 计算 c 的一块 64 × 64，每个线程 4 × 4 个元素保存在寄存器里，K 按 16
分段。每一步 k，一个线程从 shared memory 读 a 的 4 个字和 b 的 4 个字，做 16 次 FMA：一个 warp
用 8 个 wavefront 完成 1 024 FLOP，即每个 wavefront 128 FLOP。线程负责的行是 ty + 16·i，列是
tx + 16·j：一个 warp 读 sb 一行中 16 个连续的字，读 sa 的两个字（两个 ty 值）落在两个不同的 bank。
本章第 3 步（labkit.kernels.gemm_simt.gemm_regtile）做到每线程 8 × 8、每块 128 × 128：每个
wavefront 256 FLOP。
"""

from numba import float32

from labkit.gpu import cuda

BM = BN = 64
BK = 16
TM = TN = 4
THREADS = 256
SIDE = BN // TN          # 16 threads along a block's columns (and rows)


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
                ra[i] = sa[ty + SIDE * i, k]
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
