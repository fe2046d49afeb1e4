"""Exercice 02-transpose, notre solution · 练习 02-transpose 参考解

FR. Une colonne de plus à la tuile : la ligne r commence au mot 33·r, l'élément (r, c) est dans le
banc (r + c) mod 32, et les 32 lignes d'une colonne tombent dans 32 bancs différents. Lire une
colonne coûte 1 wavefront au lieu de 32 ; les lectures et écritures globales ne changent pas.
La permutation XOR est l'autre remède : tile[32][32], l'élément (r, c) rangé en colonne c ^ r, à
l'écriture (tile[ty + k, tx ^ (ty + k)]) comme à la lecture (tile[tx, (ty + k) ^ tx]).
中文。给 tile 多加一列：第 r 行从第 33·r 个字开始，元素 (r, c) 位于 bank (r + c) mod 32，一列的
32 行落在 32 个不同的 bank。读一列只需 1 个 wavefront，而不是 32 个；全局读写不变。
另一种办法是异或重排：tile[32][32]，元素 (r, c) 存在第 c ^ r 列，写入（tile[ty + k, tx ^ (ty + k)]）
和读出（tile[tx, (ty + k) ^ tx]）都要用同一规则。
"""

from numba import float32

from labkit.gpu import cuda

TILE = 32
PADDED = TILE + 1   # a shared array's shape is a compile-time constant
ROWS = 8


@cuda.jit
def transpose_padded(source, target):
    tile = cuda.shared.array(shape=(TILE, PADDED), dtype=float32)
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
    transpose_padded[grid, (TILE, ROWS)](source, target)
