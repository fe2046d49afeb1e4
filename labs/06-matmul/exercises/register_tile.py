"""Exercice 06-regtile · 练习 06-regtile — c = a @ b

FR. Tel quel, ce fichier est juste : chaque thread calcule un élément de c, à partir de tuiles de
32 × 32 en mémoire partagée. À chaque pas de k, un warp lit deux mots en mémoire partagée pour une
FMA par thread : 32 FLOP par wavefront, un huitième du débit FP32 d'un SM. Faites calculer à chaque
thread un bloc de r × r éléments gardé en registres (cuda.local.array, boucles de taille fixe),
jusqu'à au moins 128 FLOP par wavefront. Les côtés des matrices sont des multiples de 64, K un
multiple de 32.

中文。这个文件原样是对的：每个线程根据 shared memory 中 32 × 32 的块计算 c 的一个元素。每一步 k，
一个 warp 从 shared memory 读两个字，每个线程只做一次 FMA：每个 wavefront 32 FLOP，只有一个 SM
FP32 吞吐量的八分之一。让每个线程计算 r × r 个元素并保存在寄存器里（cuda.local.array，固定大小的循环），
使每个 wavefront 至少对应 128 FLOP。矩阵边长是 64 的倍数，K 是 32 的倍数。

make exercise-06-regtile   (sans GPU, le simulateur vérifie la sortie et compte les wavefronts · 没有 GPU 时，模拟器检查输出并统计 wavefront)
"""

from numba import float32

from labkit.gpu import cuda

TILE = 32


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def gemm_tiled(a, b, c):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for k0 in range(0, a.shape[1], TILE):
        sa[ty, tx] = a[row, k0 + tx]
        sb[ty, tx] = b[k0 + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[ty, k] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


def run(a, b, c):
    m, n = c.shape
    gemm_tiled[(n // TILE, m // TILE), (TILE, TILE)](a, b, c)
# ---- to here -----------------------------------------------------------------------------------
