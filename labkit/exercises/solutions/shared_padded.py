"""Exercice 06-padding, notre solution · 练习 06-padding 参考解

FR. Un mot de marge à chaque ligne de sa : la ligne k commence au mot 33·k, et la colonne m qu'un
warp écrit (k = tx de 0 à 31) tombe dans les bancs (33·tx + ty) mod 32, tous différents. L'écriture
coûte 1 wavefront au lieu de 32 ; les lectures sa[k, ty] restent des diffusions. C'est l'étape 2b
du chapitre (labkit.kernels.gemm_simt.gemm_shared_padded). La permutation XOR marche aussi :
sa[tx, ty ^ tx] à l'écriture, sa[k, ty ^ k] à la lecture.
中文。给 sa 的每行加一个字的填充：第 k 行从第 33·k 个字开始，warp 写入的那一列（k = tx 从 0 到 31）
落在 bank (33·tx + ty) mod 32，互不相同。写入只需 1 个 wavefront，而不是 32 个；读取 sa[k, ty]
仍是广播。这就是本章的第 2b 步（labkit.kernels.gemm_simt.gemm_shared_padded）。异或重排同样可行：
写入用 sa[tx, ty ^ tx]，读取用 sa[k, ty ^ k]。
"""

from numba import float32

from labkit.gpu import cuda

TILE = 32
PADDED = TILE + 1   # a shared array's shape is a compile-time constant


@cuda.jit
def gemm_shared_padded(a, b, c):
    sa = cuda.shared.array((TILE, PADDED), dtype=float32)  # sa[k, m], one word of padding per row
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
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
    gemm_shared_padded[(n // TILE, m // TILE), (TILE, TILE)](a, b, c)
