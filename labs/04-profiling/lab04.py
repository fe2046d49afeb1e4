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
# # Lab 04 · Profilage avec Nsight
#
# Un petit programme GPU porte les quatre défauts du chapitre 4 : une synchronisation
# hôte à chaque itération (comme `.item()`), des transferts depuis la mémoire paginable sans
# recouvrement, une phase de petits noyaux limités par le lancement, un noyau non coalescé.
# Sa version réparée corrige les quatre. Ce carnet suit les quatre étapes du chapitre en
# appelant `labkit` : chronomètre, chronologie, Nsight Compute, SASS. Sans GPU, les noyaux
# tournent dans le simulateur CUDA de Numba (vérification seulement) et le carnet affiche les
# résultats enregistrés sur GPU, signalés comme tels.

# %% [markdown] lang="zh"
# # Lab 04 · 用 Nsight 做性能剖析
#
# 一个小型 GPU 程序里埋了第 4 章讲到的四个问题：每次迭代都与主机同步（就像 `.item()`）、从可分页内存拷贝且不与计算重叠、一串受启动开销限制的小 kernel、一个非合并访存的 kernel；修复版把四个问题都改掉。本 notebook 调用 `labkit`，按章节的四步走：计时、时间线、Nsight Compute、SASS。没有 GPU 时，kernel 在 Numba 的 CUDA 模拟器里运行（只做正确性检查），并展示在真实 GPU 上记录的结果，并明确标注为记录值。

# %% lang="fr"
from labkit.labs.notebook import LabSession

session = LabSession("lab-04", lang="fr")

# %% lang="zh"
from labkit.labs.notebook import LabSession

session = LabSession("lab-04", lang="zh")

# %% [markdown] lang="fr"
# ## 0 · Les noyaux sont-ils justes ?
#
# Les deux versions, à petite taille, comparées à NumPy.

# %% [markdown] lang="zh"
# ## 0 · kernel 算得对吗？
#
# 两个版本以小规模运行，与 NumPy 对照。

# %%
session.check()

# %% [markdown] lang="fr"
# ## 1-4 · Mesurer, puis lire
#
# Sur un GPU, `session.measure_or_show_recorded()` exécute les quatre étapes (c'est ce que fait
# `make lab-04`). Dans le simulateur, aucune mesure de temps n'a de sens : on affiche les
# résultats enregistrés.

# %% [markdown] lang="zh"
# ## 1-4 · 测量，然后解读
#
# 在 GPU 上，`session.measure_or_show_recorded()` 执行全部四步（`make lab-04` 做的就是这件事）；在模拟器里计时没有意义，因此展示已记录的结果。

# %%
session.measure_or_show_recorded()
