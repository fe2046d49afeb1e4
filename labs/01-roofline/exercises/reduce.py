"""Exercice 01-reduce · 练习 01-reduce — out[0] = x[0] + x[1] + ... + x[n-1]

FR. Tel quel, ce fichier est juste et bien plus lent que la mémoire ne le permet : chaque thread
ajoute son élément à out[0] par une atomique, et les atomiques sur une même adresse passent l'une
après l'autre. Une somme lit 4 octets par élément : faites-la tourner à la vitesse de ces octets.
total() peut lancer autant de noyaux qu'il veut ; out arrive rempli de NaN, fixez-le avant d'y
ajouter quoi que ce soit.

中文。这个文件原样是对的，却比内存允许的速度慢得多：每个线程用原子操作把自己的元素加到 out[0]，
而对同一地址的原子操作只能一个接一个地执行。求和每个元素读 4 字节：让它以这些字节的速度运行。
total() 可以启动任意多个 kernel；out 传进来时填满了 NaN，往里加之前先给它赋初值。

make exercise-01-reduce   (sans GPU, le simulateur vérifie la somme et les atomiques · 没有 GPU 时，模拟器检查和与原子操作)
"""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def zero(out):
    out[0] = 0.0


@cuda.jit
def add_each(x, out):
    i = cuda.grid(1)
    if i < x.size:
        cuda.atomic.add(out, 0, x[i])


def total(x, out):
    # ---- your code: from here ------------------------------------------------------------------
    zero[1, 1](out)
    add_each[(x.size + THREADS - 1) // THREADS, THREADS](x, out)
    # ---- to here -------------------------------------------------------------------------------
