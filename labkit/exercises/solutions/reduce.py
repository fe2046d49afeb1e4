"""Exercice 01-reduce, notre solution · 练习 01-reduce 参考解

FR. Chaque thread somme ses éléments dans un registre (boucle grid-stride : lectures coalescées,
beaucoup en vol), le bloc additionne les sommes de ses threads en mémoire partagée (un arbre qui
divise par deux), et un thread par bloc ajoute la somme du bloc à out[0] : une atomique par bloc,
pas par élément.
中文。每个线程先在寄存器里累加自己负责的元素（grid-stride 循环：合并访存，在途读取多），block
再在 shared memory 中把各线程的部分和逐半相加，最后每个 block 由一个线程把结果加到 out[0]：每个 block
一次原子操作，而不是每个元素一次。
"""

from numba import float32

from labkit.gpu import cuda

THREADS = 256
#: At most this many blocks: enough to fill every SM of a large GPU several times over.
MAX_BLOCKS = 1024
#: Each thread sums at least this many elements before the block reduction.
PER_THREAD = 4


@cuda.jit
def zero(out):
    out[0] = 0.0


@cuda.jit
def block_sums(x, out):
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    partial = cuda.shared.array(THREADS, dtype=float32)
    t = cuda.threadIdx.x
    partial[t] = acc
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(out, 0, partial[0])


def total(x, out):
    blocks = min(MAX_BLOCKS, (x.size + THREADS * PER_THREAD - 1) // (THREADS * PER_THREAD))
    zero[1, 1](out)
    block_sums[blocks, THREADS](x, out)
