"""Exercice 04-transpose, notre solution · 练习 04-transpose 参考解

FR. Le profil désigne les écritures : des threads voisins écrivent dans une colonne de target, un
secteur chacun. Le bloc lit une tuile de 32 × 32 le long des lignes de source (coalescé), la range
en mémoire partagée, puis l'écrit le long des lignes de target (coalescé) en la relisant par
colonnes. Une colonne de rembourrage (33 flottants par ligne) met les 32 éléments d'une colonne
dans 32 bancs différents : sans elle, chaque lecture de colonne serait un conflit à 32 voies.
中文。剖析结果指向写操作：相邻线程写 target 的同一列，每个线程各占一个 sector。block 沿 source 的行
读入一个 32 × 32 的 tile（合并访存），放进 shared memory，再按列读出、沿 target 的行写出（合并访存）。
每行多填充一个元素（每行 33 个 float），让一列的 32 个元素落在 32 个不同的 bank：不填充的话，
每次按列读取都是 32 路 bank 冲突。
"""

from numba import float32

from labkit.gpu import cuda

TILE = 32
TILE_PADDED = TILE + 1
ROWS_PER_PASS = 8


@cuda.jit
def transpose_tiled(source, target):
    tile = cuda.shared.array(shape=(TILE, TILE_PADDED), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y0 = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, ROWS_PER_PASS):
        if y0 + k < source.shape[0] and x < source.shape[1]:
            tile[ty + k, tx] = source[y0 + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y0 = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, ROWS_PER_PASS):
        if y0 + k < target.shape[0] and x < target.shape[1]:
            target[y0 + k, x] = tile[tx, ty + k]


def transpose(source, target):
    grid = ((source.shape[1] + TILE - 1) // TILE, (source.shape[0] + TILE - 1) // TILE)
    transpose_tiled[grid, (TILE, ROWS_PER_PASS)](source, target)
