"""Exercice 05-mystery-h · 练习 05-mystery-h — deux suites de FMA selon la parité · 按奇偶走两条 FMA 链

FR. Le noyau H du lab 05, tel quel : les éléments pairs subissent 128 pas v ← A·v + B, les impairs
64 doubles pas, (A2, B2) puis (A3, B3). Il est juste, et plus lent qu'il ne devrait. Ce que Nsight
Compute en a enregistré sur notre H200 :

    .venv/bin/labkit diagnose labs/05-checklist/results/nvidia-h200/ -k kernel_h --lang fr

Trouvez l'élément de la checklist qui se déclenche et réparez : chaque élément garde sa suite de
pas (c'est sa parité dans x qui la choisit), mais répartissez le travail autrement entre les threads.

中文。这是 lab 05 的 kernel H，原样照搬：偶数元素做 128 步 v ← A·v + B，奇数元素做 64 个双步，
先 (A2, B2) 再 (A3, B3)。结果正确，但比应有的慢。Nsight Compute 在我们的 H200 上为它记录的结果：

    .venv/bin/labkit diagnose labs/05-checklist/results/nvidia-h200/ -k kernel_h --lang zh

找出被触发的清单条目并修好它：每个元素仍走自己的那条链（由它在 x 中下标的奇偶决定），
但要换一种方式在线程之间分配工作。

make exercise-05-mystery-h   (sans GPU, le simulateur compte les threads actifs · 没有 GPU 时，模拟器统计活跃线程数)
"""

import numpy as np

from labkit.gpu import cuda

THREADS = 256
STEPS = 128
A, B = np.float32(0.999), np.float32(0.001)
A2, B2 = np.float32(0.998), np.float32(0.002)
A3, B3 = np.float32(0.9995), np.float32(0.0005)


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def kernel_h(x, y):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if i % 2 == 0:
            for _ in range(STEPS):
                v = cuda.fma(v, A, B)
        else:
            for _ in range(STEPS // 2):
                v = cuda.fma(v, A2, B2)
                v = cuda.fma(v, A3, B3)
        y[i] = v


def run(x, y):
    kernel_h[(x.size + THREADS - 1) // THREADS, THREADS](x, y)
# ---- to here -----------------------------------------------------------------------------------
