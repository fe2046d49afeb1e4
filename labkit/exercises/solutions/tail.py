"""Exercice 03-tail, notre solution · 练习 03-tail 参考解

FR. mix() parcourt les éléments en boucle grid-stride : toute grille les couvre tous, et chaque
thread en reçoit autant que les autres, à un près. blocks() lance une seule vague, ni plus ni
moins : les SM du GPU multipliés par les blocs qu'un SM héberge, que le calculateur du chapitre
donne pour les ressources de KERNEL et la capacité de calcul du GPU (4 sur un H200, 3 sur un A100,
1 sur un T4). Tous les blocs démarrent ensemble et finissent ensemble : pas de queue. (Moins de
blocs quand il y a moins d'éléments que de threads dans une vague.)
中文。mix() 用 grid-stride 循环遍历元素：任何 grid 都能覆盖全部元素，每个线程分到的元素数相差至多一个。
blocks() 只启动一个波次，不多不少：GPU 的 SM 数乘以一个 SM 能驻留的 block 数，后者由本章的计算器根据
KERNEL 的资源和 GPU 的计算能力给出（H200 上是 4，A100 上是 3，T4 上是 1）。所有 block 同时开始、同时
结束：没有尾巴。（元素比一个波次的线程还少时，block 也相应减少。）
"""

from numba import uint32

from labkit.gpu import cuda
from labkit.models.occupancy import KernelLaunch, architecture, calculate

THREADS = 64
SHARED_BYTES = 48 * 1024
REGISTERS = 32
KERNEL = KernelLaunch(threads_per_block=THREADS, registers_per_thread=REGISTERS, dynamic_shared_bytes=SHARED_BYTES)


@cuda.jit(device=True)
def scramble(h, rounds):
    for _ in range(rounds):
        h = uint32(h ^ (h << 13))
        h = uint32(h ^ (h >> 17))
        h = uint32(h ^ (h << 5))
    return h


@cuda.jit
def mix(x, out, rounds):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = scramble(x[i], rounds)


def blocks(n, sm_count, compute_capability):
    wave = sm_count * calculate(KERNEL, architecture(compute_capability)).blocks_per_sm
    return min(wave, (n + THREADS - 1) // THREADS)
