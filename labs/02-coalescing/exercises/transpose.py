"""Exercice 02-transpose · 练习 02-transpose — target = sourceᵀ

FR. Tel quel, ce fichier est juste, et ses accès globaux sont coalescés : chaque bloc lit une tuile
de 32 × 32 flottants en lignes, la range dans la mémoire partagée, puis écrit en lignes la tuile
transposée en la relisant en colonnes. Mais une colonne de tile[32][32] est dans un seul banc :
chaque lecture de la tuile coûte 32 wavefronts. Supprimez les conflits de banc sans rien perdre de
la coalescence ni de la justesse (la matrice n'a pas forcément des côtés multiples de 32).

中文。这个文件原样是对的，全局访存也都是合并的：每个 block 按行读入一块 32 × 32 的 float tile，
存进共享内存，再按列读出，按行写出转置后的 tile。但 tile[32][32] 的一列全落在同一个 bank：
每次读 tile 都要 32 个 wavefront。去掉 bank 冲突，同时保持合并访存和结果正确（矩阵的边长不一定是
32 的倍数）。

make exercise-02-transpose   (sans GPU, le simulateur vérifie la sortie, les secteurs et les conflits · 没有 GPU 时，模拟器检查输出、sector 与冲突)
"""

from numba import float32

from labkit.gpu import cuda

TILE = 32   # côté d'une tuile · tile 的边长
ROWS = 8    # lignes de threads par bloc : chaque thread déplace TILE // ROWS éléments · 每个 block 的线程行数


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def transpose_tiled(source, target):
    tile = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, ROWS):
        if y + k < source.shape[0] and x < source.shape[1]:
            tile[ty + k, tx] = source[y + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, ROWS):
        if y + k < target.shape[0] and x < target.shape[1]:
            target[y + k, x] = tile[tx, ty + k]


def run(source, target):
    rows, cols = source.shape
    grid = ((cols + TILE - 1) // TILE, (rows + TILE - 1) // TILE)
    transpose_tiled[grid, (TILE, ROWS)](source, target)
# ---- to here -----------------------------------------------------------------------------------
