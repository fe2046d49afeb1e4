"""Exercice 03-ilp · 练习 03-ilp — out = x, à 25 % d'occupancy · 25% occupancy 下的拷贝

FR. L'exercice lance copy() lui-même, avec un bloc de 512 threads par SM : 16 warps par SM, un
quart de ce qu'un SM peut héberger, et vous ne pouvez pas en ajouter. Tel quel, chaque tour de la
boucle lit un élément puis l'écrit : l'écriture a besoin de la valeur lue, le warp l'attend pendant
toute la latence de la HBM, et il n'a jamais qu'un chargement de 128 octets en vol. La loi de
Little dit combien d'octets chaque warp doit avoir demandés avant d'attendre pour que la copie
atteigne la bande passante : faites que chaque thread émette plusieurs chargements indépendants
avant sa première écriture, sans oublier les éléments qui restent après le dernier tour complet.

中文。练习自己启动 copy()：每个 SM 一个 512 线程的 block，即每个 SM 16 个 warp，只有 SM 容量的
四分之一，而且你不能增加 warp。原样的代码每轮循环读一个元素再写出去：写入要用读到的值，warp 要等完
整个 HBM 延迟，在途的始终只有一次 128 字节的读取。Little 定律告诉你，要让拷贝达到带宽，每个 warp
在等待之前必须已经发出多少字节的请求：让每个线程在第一次写入之前发出多个互不依赖的读取，别忘了最后
一整轮之后剩下的元素。

make exercise-03-ilp   (sans GPU, le simulateur vérifie la copie et les octets en vol · 没有 GPU 时，模拟器检查拷贝结果和在途字节数)
"""

from labkit.gpu import cuda


@cuda.jit
def copy(x, out):
    # ---- your code: from here ------------------------------------------------------------------
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    while i < x.size:
        out[i] = x[i]
        i += stride
    # ---- to here -------------------------------------------------------------------------------
