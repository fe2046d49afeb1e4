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
# # Lab 01 · Le roofline mesuré
#
# On mesure d'abord les plafonds de la machine avec les noyaux de `labkit` (une copie
# pour la bande passante HBM, des chaînes de FMA pour le débit FP32 et FP64), puis on balaie
# l'intensité arithmétique d'un même noyau de 1/8 à 256 FLOP/octet, et on place sur ce roofline
# les noyaux du chapitre 1 avec leur verdict t_réel / t_min. Sans GPU, les noyaux tournent dans
# le simulateur CUDA de Numba (vérification seulement) et l'on affiche les résultats enregistrés.

# %% [markdown] lang="zh"
# # Lab 01 · 实测 roofline
#
# 先用 `labkit` 的 kernel 实测机器的上限（用拷贝测 HBM 带宽，用 FMA 链测 FP32 与 FP64 吞吐量），再让同一个 kernel 的算术强度从 1/8 扫到 256 FLOP/byte，最后把第 1 章的 kernel 放到这条 roofline 上，给出 t_real / t_min 的结论。没有 GPU 时，kernel 在 Numba 的 CUDA 模拟器里运行（只做正确性检查），并展示已记录的结果。

# %% lang="fr"
from labkit.labs.notebook import LabSession

session = LabSession("lab-01", lang="fr")

# %% lang="zh"
from labkit.labs.notebook import LabSession

session = LabSession("lab-01", lang="zh")

# %% [markdown] lang="fr"
# ## 0 · Les noyaux sont-ils justes ?

# %% [markdown] lang="zh"
# ## 0 · kernel 算得对吗？

# %%
session.check()

# %% [markdown] lang="fr"
# ## 1-3 · Plafonds, balayage, placement
#
# Sur un GPU, `session.measure_or_show_recorded()` fait les trois étapes (c'est `make lab-01`) ; dans le
# simulateur, on affiche les résultats enregistrés.

# %% [markdown] lang="zh"
# ## 1-3 · 上限、扫描、定位
#
# 在 GPU 上，`session.measure_or_show_recorded()` 完成三步（即 `make lab-01`）；在模拟器里展示已记录的结果。

# %%
session.measure_or_show_recorded()
