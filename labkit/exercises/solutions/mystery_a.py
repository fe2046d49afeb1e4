"""Exercice 05-mystery-a, notre solution · 练习 05-mystery-a 参考解

FR. Le diagnostic met la coalescence en tête : des threads voisins ont des r consécutifs et le même
c, donc ils descendent une colonne d'une matrice rangée par lignes, un secteur de 32 octets chacun.
Il suffit d'échanger les deux lignes d'indices : des t consécutifs donnent alors des c consécutifs
sur une même ligne, et un warp lit et écrit 128 octets contigus, 4 secteurs.
中文。诊断把合并访存排在第一位：相邻线程的 r 连续、c 相同，也就是沿着按行存储的矩阵的一列往下走，
每个线程各占一个 32 字节 sector。只需交换两行下标计算：连续的 t 对应同一行上连续的 c，一个 warp
读写连续的 128 字节，4 个 sector。
"""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def kernel_a_repaired(x, y, a):
    t = cuda.grid(1)
    rows, cols = x.shape
    if t < rows * cols:
        r = t // cols
        c = t % cols
        y[r, c] = a * x[r, c]


def run(x, y, a):
    kernel_a_repaired[(x.size + THREADS - 1) // THREADS, THREADS](x, y, a)
