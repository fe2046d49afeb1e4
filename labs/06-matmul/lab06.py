# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown] lang="fr"
# # Lab 06 · Étude de cas : la multiplication de matrices
#
# Le produit de deux matrices carrées, étape par étape : un thread par élément, des tuiles
# en mémoire partagée (la tuile A rangée en k, puis élargie d'un mot), 8 × 8 sorties par thread en
# registres (Numba, puis CUDA C), des chargements de 16 octets et deux tampons, puis les tensor
# cores (WMMA, puis `mma.sync` avec `ldmatrix` et `cp.async`). Chaque étape est vérifiée face à
# NumPy, chronométrée à côté de cuBLAS dans la même précision pendant la même exécution, et
# profilée par Nsight Compute. Sans GPU, les étapes Numba tournent dans le simulateur CUDA de Numba
# (vérification seulement) et le carnet affiche les résultats enregistrés sur GPU, signalés comme tels.

# %% [markdown] lang="zh"
# # Lab 06 · 案例研究：矩阵乘法
#
# 两个方阵的乘积，一步一步来：每个元素一个线程；shared memory 分块（A 块按 k 存放，
# 再每行加一个字的填充）；每线程在寄存器里算 8 × 8 个输出（先 Numba，后 CUDA C）；16 字节加载与
# 双缓冲；最后是 tensor core（WMMA，然后是配合 `ldmatrix` 与 `cp.async` 的 `mma.sync`）。每一步都与
# NumPy 对照检查，在同一次运行中与同精度的 cuBLAS 一起计时，并用 Nsight Compute 剖析。没有 GPU 时，
# Numba 的步骤在 Numba 的 CUDA 模拟器里运行（只做正确性检查），并展示在 GPU 上记录的结果，明确标注为记录值。

# %% lang="fr"
from labkit.labs.notebook import LabSession

session = LabSession("lab-06", lang="fr")

# %% lang="zh"
from labkit.labs.notebook import LabSession

session = LabSession("lab-06", lang="zh")

# %% [markdown] lang="fr"
# ## 0 · Les noyaux sont-ils justes ?
#
# Chaque étape qui peut tourner ici, à petite taille, comparée à NumPy avec la tolérance de
# sa précision.

# %% [markdown] lang="zh"
# ## 0 · kernel 算得对吗？
#
# 每个能在此运行的步骤以小规模运行，按其精度的容差与 NumPy 对照。

# %%
session.check()

# %% [markdown] lang="fr"
# ## 1 · Mesurer
#
# Sur un GPU, `session.measure_or_show_recorded()` chronomètre et profile (c'est ce que fait
# `make lab-06`). Dans le simulateur, on affiche les résultats enregistrés.

# %% [markdown] lang="zh"
# ## 1 · 测量
#
# 在 GPU 上，`session.measure_or_show_recorded()` 会计时并做剖析（`make lab-06` 做的就是这件事）；在模拟器里则展示已记录的结果。

# %%
session.measure_or_show_recorded()
