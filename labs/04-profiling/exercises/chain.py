"""Exercice 04-chain · 练习 04-chain — y = x puis, pour chaque pas k, y = a_k·y + b_k · 对每一步 k：y = a_k·y + b_k

FR. Voici la normalisation du lab 04 : une chaîne de pas y = a·y + b sur un petit vecteur, un
lancement de noyau par pas. Lisez ce que Nsight Compute a enregistré pour l'un de ces lancements :

    .venv/bin/labkit diagnose labs/04-profiling/results/nvidia-h200/ -k scale_add --lang fr

(la durée et le nombre de blocs face au nombre de SM), puis réparez normalise() pour que la chaîne
entière ne coûte qu'un lancement. Les coefficients sont là deux fois : sur le GPU
(coefficients, une ligne (a, b) par pas) et sur l'hôte (host_coefficients, les mêmes, en tuple).

中文。这是 lab 04 的 normalise 阶段：在一个小向量上做一串 y = a·y + b，每一步启动一次 kernel。
先读一读 Nsight Compute 为其中一次启动记录的结果：

    .venv/bin/labkit diagnose labs/04-profiling/results/nvidia-h200/ -k scale_add --lang zh

（看它的耗时，以及 block 数和 SM 数的对比），再修好 normalise()，让整条链只启动一次。系数有两份：
一份在 GPU 上（coefficients，每一步一行 (a, b)），一份在主机上（host_coefficients，同样的值，元组形式）。

make exercise-04-chain   (sans GPU, le simulateur compte les lancements · 没有 GPU 时，模拟器统计启动次数)
"""

from labkit.gpu import cuda

THREADS = 256


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def scale_add(source, y, a, b):
    i = cuda.grid(1)
    if i < y.size:
        y[i] = a * source[i] + b


def normalise(x, coefficients, host_coefficients, y):
    blocks = (y.size + THREADS - 1) // THREADS
    source = x
    for a, b in host_coefficients:
        scale_add[blocks, THREADS](source, y, a, b)
        source = y
# ---- to here -----------------------------------------------------------------------------------
