"""Exercice 03-tail · 练习 03-tail — une grille en vagues entières · 以整数个波次组织 grid

FR. mix() applique à chaque élément `rounds` tours de xorshift32 : une chaîne d'opérations
dépendantes, si bien qu'un bloc dure autant que ses éléments par thread, quel que soit le nombre de
blocs qui partagent son SM. L'exercice lance mix() avec THREADS threads et SHARED_BYTES de mémoire
partagée dynamique par bloc (KERNEL résume ces ressources), sur une grille de blocks(n, sm_count,
compute_capability) blocs. Tel quel, la grille suit les données : PER_THREAD éléments par thread,
soit 1,25 vague sur un H200, dont le dernier quart tourne seul aussi longtemps qu'une vague
pleine. Faites de mix() une boucle grid-stride qui traite tous les éléments quelle que soit la
grille, et faites que blocks() donne un nombre entier de vagues sur n'importe quel GPU :
labkit.models.occupancy vous dit combien de blocs de ce noyau un SM héberge.

中文。mix() 对每个元素做 `rounds` 轮 xorshift32：一条相互依赖的运算链，所以一个 block 的耗时只取决于
每个线程处理多少元素，与多少 block 共享同一个 SM 无关。练习以每个 block THREADS 个线程、SHARED_BYTES
字节动态共享内存启动 mix()（KERNEL 汇总了这些资源），grid 为 blocks(n, sm_count, compute_capability)
个 block。原样的 grid 跟着数据走：每个线程 PER_THREAD 个元素，在 H200 上是 1.25 个波次，最后那四分之一
要单独跑满一整个波次的时间。把 mix() 改成 grid-stride 循环，不论 grid 多大都处理所有元素；再让
blocks() 在任何 GPU 上都给出整数个波次：labkit.models.occupancy 会告诉你一个 SM 能驻留多少个这个 kernel 的 block。

make exercise-03-tail   (sans GPU, le simulateur vérifie la sortie et les vagues sur six GPU · 没有 GPU 时，模拟器检查输出和六种 GPU 上的波次)
"""

from numba import uint32

from labkit.gpu import cuda
from labkit.models.occupancy import KernelLaunch, architecture, calculate  # noqa: F401  (for your blocks())

THREADS = 64                 # threads per block of the exercise's launch
SHARED_BYTES = 48 * 1024     # dynamic shared memory per block of the exercise's launch
REGISTERS = 32               # registers per thread, at most
KERNEL = KernelLaunch(threads_per_block=THREADS, registers_per_thread=REGISTERS, dynamic_shared_bytes=SHARED_BYTES)
PER_THREAD = 32


@cuda.jit(device=True)
def scramble(h, rounds):
    for _ in range(rounds):
        h = uint32(h ^ (h << 13))
        h = uint32(h ^ (h >> 17))
        h = uint32(h ^ (h << 5))
    return h


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def mix(x, out, rounds):
    first = cuda.blockIdx.x * cuda.blockDim.x * PER_THREAD + cuda.threadIdx.x
    for k in range(PER_THREAD):
        i = first + k * cuda.blockDim.x
        if i < x.size:
            out[i] = scramble(x[i], rounds)


def blocks(n, sm_count, compute_capability):
    return (n + THREADS * PER_THREAD - 1) // (THREADS * PER_THREAD)
# ---- to here -----------------------------------------------------------------------------------
