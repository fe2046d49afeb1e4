"""Exercice 04-transpose · 练习 04-transpose — target = transposée de source · source 的转置

FR. Voici la couche du lab 04, telle que Nsight Compute l'a profilée sur notre H200. Avant de
toucher au code, lisez ce que le profil en dit :

    .venv/bin/labkit diagnose labs/04-profiling/results/nvidia-h200/ -k transpose_naive --lang fr

et, pour séparer les lectures des écritures, le même avec --json (evidence : load_bytes et
store_bytes, les octets utiles par secteur de 32). Trouvez quel accès gaspille ses secteurs, puis
réparez transpose() : même résultat, chaque accès global coalescé. Après la réparation, relisez
le profil en pensée : une correction peut en créer une autre.

中文。这是 lab 04 的 layer 阶段，也就是 Nsight Compute 在我们的 H200 上剖析过的那个 kernel。
动代码之前，先读一读剖析结果：

    .venv/bin/labkit diagnose labs/04-profiling/results/nvidia-h200/ -k transpose_naive --lang zh

再加上 --json，把读和写分开看（evidence 中的 load_bytes 和 store_bytes：每个 32 字节 sector 里
有用的字节数）。找出是哪一个访问浪费了 sector，然后修好 transpose()：结果不变，每个全局访问都合并。
修好之后，想一想再剖析一次会看到什么：一处修正可能带来新的问题。

make exercise-04-transpose   (sans GPU, le simulateur compte secteurs et conflits · 没有 GPU 时，模拟器统计 sector 数和 bank 冲突)
"""

from labkit.gpu import cuda

TILE = 32
#: Threads per block: TILE x ROWS_PER_PASS; each thread moves TILE / ROWS_PER_PASS elements.
ROWS_PER_PASS = 8


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def transpose_naive(source, target):
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y0 = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    for k in range(0, TILE, ROWS_PER_PASS):
        y = y0 + k
        if y < source.shape[0] and x < source.shape[1]:
            target[x, y] = source[y, x]


def transpose(source, target):
    grid = ((source.shape[1] + TILE - 1) // TILE, (source.shape[0] + TILE - 1) // TILE)
    transpose_naive[grid, (TILE, ROWS_PER_PASS)](source, target)
# ---- to here -----------------------------------------------------------------------------------
