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
# # Lab 02 · Coalescence et conflits de banc
#
# On prédit, sans GPU, ce que Nsight Compute comptera pour chaque noyau du lab
# (secteurs par requête, wavefronts, conflits de banc, octets lus en DRAM) : l'analyseur
# d'accès de `labkit` trace les noyaux dans le simulateur CUDA de Numba. Sur un GPU, on mesure
# ensuite quatre expériences (balayage de pas en mémoire globale, particules AoS/SoA,
# balayage de pas en mémoire partagée, transposées face à une copie) et ncu compte les mêmes
# choses : égales exactement pour les compteurs globaux et les compteurs partagés par
# instruction ; les compteurs partagés matériels n'y ajoutent que l'arbitrage (chapitre 2). Sans
# GPU, les noyaux tournent dans le simulateur et l'on affiche les résultats enregistrés sur
# notre H200.

# %% [markdown] lang="zh"
# # Lab 02 · 合并访存与 bank 冲突
#
# 不需要 GPU，就能预测 Nsight Compute 会为本实验的每个 kernel 数出什么（每请求 sector 数、wavefront、bank 冲突、DRAM 读取字节）：`labkit` 的访存分析器在 Numba 的 CUDA 模拟器里追踪这些 kernel。有 GPU 时，再测四组实验（全局内存步长扫描、AoS/SoA 粒子、shared memory 步长扫描、转置对照拷贝），由 ncu 数同样的东西：全局计数器与逐指令的 shared memory 计数器必须精确相等；shared memory 的硬件计数器只多出仲裁部分（第 2 章）。没有 GPU 时，kernel 在模拟器里运行，并展示在我们的 H200 上记录的结果。

# %% lang="fr"
from labkit.labs.notebook import LabSession

session = LabSession("lab-02", lang="fr")

# %% lang="zh"
from labkit.labs.notebook import LabSession

session = LabSession("lab-02", lang="zh")

# %% [markdown] lang="fr"
# ## 0 · Les noyaux sont-ils justes ?
#
# Sans GPU, les noyaux CUDA C sont remplacés par leurs jumeaux Numba simulés (même
# arithmétique d'indices).

# %% [markdown] lang="zh"
# ## 0 · kernel 算得对吗？
#
# 没有 GPU 时，CUDA C kernel 由模拟器中的 Numba 孪生 kernel 代替（索引算术完全相同）。

# %%
session.check()

# %% [markdown] lang="fr"
# ## 1-4 · Mesures et compteurs
#
# Sur un GPU, `session.measure_or_show_recorded()` fait les quatre étapes (c'est
# `make lab-02`, sans l'enregistrement) ; dans le simulateur, on affiche les résultats
# enregistrés.

# %% [markdown] lang="zh"
# ## 1-4 · 测量与计数器
#
# 在 GPU 上，`session.measure_or_show_recorded()` 完成四个步骤（即不记录结果的 `make lab-02`）；在模拟器里展示已记录的结果。

# %%
session.measure_or_show_recorded()
