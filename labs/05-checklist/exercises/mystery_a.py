"""Exercice 05-mystery-a · 练习 05-mystery-a — y = a·x sur une matrice · 对矩阵计算 y = a·x

FR. Le noyau A du lab 05, tel quel : juste, et lent. Appliquez la checklist avant de toucher au
code : ce que Nsight Compute en a enregistré sur notre H200 se lit avec

    .venv/bin/labkit diagnose labs/05-checklist/results/nvidia-h200/ -k kernel_a --lang fr

Trouvez le premier élément de la checklist qui se déclenche, son symptôme dans le code, puis
réparez le noyau : même résultat, un élément par thread si vous voulez, sans le défaut.

中文。这是 lab 05 的 kernel A，原样照搬：结果正确，但很慢。动代码之前先走一遍清单：Nsight Compute
在我们的 H200 上为它记录的结果可以这样查看：

    .venv/bin/labkit diagnose labs/05-checklist/results/nvidia-h200/ -k kernel_a --lang zh

找出清单中第一个被触发的条目，在代码里找到它的症状，再修好这个 kernel：结果不变，
仍然可以每个线程处理一个元素，但不能再有这个缺陷。

make exercise-05-mystery-a   (sans GPU, le simulateur compte les secteurs · 没有 GPU 时，模拟器统计 sector 数)
"""

from labkit.gpu import cuda

THREADS = 256


# ---- your code: from here ----------------------------------------------------------------------
@cuda.jit
def kernel_a(x, y, a):
    t = cuda.grid(1)
    rows, cols = x.shape
    if t < rows * cols:
        r = t % rows
        c = t // rows
        y[r, c] = a * x[r, c]


def run(x, y, a):
    kernel_a[(x.size + THREADS - 1) // THREADS, THREADS](x, y, a)
# ---- to here -----------------------------------------------------------------------------------
