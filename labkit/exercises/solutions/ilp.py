"""Exercice 03-ilp, notre solution · 练习 03-ilp 参考解

FR. Chaque tour de la boucle grid-stride émet LOADS chargements indépendants, à une grille
d'écart les uns des autres (chaque instruction d'un warp lit 128 octets contigus), puis les
LOADS écritures : un warp a 16 × 128 = 2 Kio en vol au lieu de 128 octets, plus de cinq fois le
minimum de la loi de Little à 16 warps par SM. LOADS est une constante : le compilateur déroule les deux
boucles et garde held en registres. Les éléments du dernier tour incomplet sont copiés un à un.
中文。grid-stride 循环的每一轮先发出 LOADS 个互不依赖的读取（彼此相隔一个 grid 的宽度，warp 的每条
指令读连续的 128 字节），再做 LOADS 次写入：每个 warp 在途 16 × 128 = 2 KiB，而不是 128 字节，是每个
SM 16 个 warp 时 Little 定律下限的五倍多。LOADS 是常量：编译器把两个循环完全展开，held 留在寄存器里。
最后不完整的一轮逐个元素拷贝。
"""

from numba import float32

from labkit.gpu import cuda

#: Independent loads in flight per thread.
LOADS = 16


@cuda.jit
def copy(x, out):
    n = x.size
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    held = cuda.local.array(LOADS, float32)
    while i + (LOADS - 1) * stride < n:
        for j in range(LOADS):
            held[j] = x[i + j * stride]
        for j in range(LOADS):
            out[i + j * stride] = held[j]
        i += LOADS * stride
    while i < n:
        out[i] = x[i]
        i += stride
