"""Exercice 01-fuse · 练习 01-fuse — out = max(a·x + y, 0)

FR. Tel quel, ce fichier est juste et gaspilleur : le premier noyau écrit a·x + y dans le tableau
temporaire tmp, le second le relit pour la ReLU. Comptez les octets que chaque noyau déplace, puis
faites que run() ne déplace que ce dont le résultat a besoin (tmp peut rester inutilisé).

中文。这个文件原样是对的，但很浪费：第一个 kernel 把 a·x + y 写进临时数组 tmp，第二个再读回来做
ReLU。数一数每个 kernel 搬运了多少字节，再让 run() 只搬运结果真正需要的数据（tmp 可以不用）。

make exercise-01-fuse   (sans GPU, le simulateur vérifie la sortie et les octets · 没有 GPU 时，模拟器检查输出和字节数)
"""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def saxpy(a, x, y, tmp):
    i = cuda.grid(1)
    if i < x.size:
        tmp[i] = a * x[i] + y[i]


@cuda.jit
def relu(tmp, out):
    i = cuda.grid(1)
    if i < tmp.size:
        out[i] = max(tmp[i], 0.0)


def run(a, x, y, out, tmp):
    # ---- your code: from here ------------------------------------------------------------------
    blocks = (x.size + THREADS - 1) // THREADS
    saxpy[blocks, THREADS](a, x, y, tmp)
    relu[blocks, THREADS](tmp, out)
    # ---- to here -------------------------------------------------------------------------------
