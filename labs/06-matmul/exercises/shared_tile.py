"""Exercice 06-padding · 练习 06-padding — c = a @ b

FR. Tel quel, ce fichier est juste : chaque bloc de 32 × 32 threads calcule une tuile de c en
parcourant K par tranches de 32, la tuile de a rangée en k (sa[k, m]) et celle de b telle quelle.
Mais les 32 threads d'un warp écrivent une colonne de sa : 32 mots distants de 32 mots, tous dans
le même banc, 32 wavefronts par écriture. Supprimez ces conflits en gardant sa rangée en k.

中文。这个文件原样是对的：每个 32 × 32 线程的 block 按 32 一段遍历 K，计算 c 的一块；a 的块按 k
存放（sa[k, m]），b 的块原样存放。但一个 warp 的 32 个线程写的是 sa 的一列：32 个字彼此相隔 32 个字，
全落在同一个 bank，每次写入要 32 个 wavefront。在保持 sa 按 k 存放的前提下去掉这些冲突。

make exercise-06-padding   (sans GPU, le simulateur vérifie la sortie et les conflits · 没有 GPU 时，模拟器检查输出与冲突)
"""

from numba import float32

from labkit.gpu import cuda

TILE = 32   # côté d'une tuile et d'un bloc · tile 与 block 的边长


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def gemm_shared(a, b, c):
    sa = cuda.shared.array((TILE, TILE), dtype=float32)  # sa[k, m]
    sb = cuda.shared.array((TILE, TILE), dtype=float32)  # sb[k, n]
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
# ---- to here -----------------------------------------------------------------------------------
