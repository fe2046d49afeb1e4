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
# # Lab 03 · Occupancy et latence
#
# On mesure d'abord les latences (une chasse de pointeurs sur des jeux de données de 4 Kio
# à 1 Gio : paliers L1, L2, HBM), puis la loi de Little : une copie dont le nombre de chargements
# en vol par thread et le nombre de warps résidents par SM varient, des chaînes de FMA
# indépendantes de même. Viennent ensuite un noyau compilé sous plusieurs limites de registres,
# les vagues d'une grille, l'occupancy atteinte selon Nsight Compute et le calculateur
# d'occupancy de `labkit` face au pilote CUDA. Sans GPU, les noyaux tournent dans le simulateur
# CUDA de Numba (vérification seulement), le calculateur fonctionne tel quel, et l'on affiche
# les résultats enregistrés.

# %% [markdown] lang="zh"
# # Lab 03 · 占用率与延迟
#
# 先测延迟（指针追逐，工作集从 4 KiB 到 1 GiB：L1、L2、HBM 三个平台），再验证 Little 定律：一个拷贝 kernel，改变每线程的在途 load 数和每个 SM 的驻留 warp 数；FMA 独立链同理。接着是同一 kernel 在不同寄存器上限下的表现、grid 的波次、Nsight Compute 给出的实际占用率，以及 `labkit` 的占用率计算器与 CUDA 驱动的对照。没有 GPU 时，kernel 在 Numba 的 CUDA 模拟器里运行（只做正确性检查），计算器照常可用，并展示已记录的结果。

# %% lang="fr"
from labkit.labs.notebook import LabSession

session = LabSession("lab-03", lang="fr")

# %% lang="zh"
from labkit.labs.notebook import LabSession

session = LabSession("lab-03", lang="zh")

# %% [markdown] lang="fr"
# ## 0 · Les noyaux sont-ils justes ?

# %% [markdown] lang="zh"
# ## 0 · kernel 算得对吗？

# %%
session.check()

# %% [markdown] lang="fr"
# ## Le calculateur, sans GPU
#
# 256 threads par bloc, 64 registres par thread, sur un H200 (CC 9.0) : combien de blocs
# par SM, quelle occupancy, quelle ressource limite ?

# %% [markdown] lang="zh"
# ## 不需要 GPU 的计算器
#
# 每个 block 256 个线程、每线程 64 个寄存器，在 H200（CC 9.0）上：每个 SM 能放几个 block？占用率多少？瓶颈是哪种资源？

# %%
from labkit.models.occupancy import KernelLaunch, calculate

answer = calculate(KernelLaunch(threads_per_block=256, registers_per_thread=64))
session.show_occupancy(answer)

# %% [markdown] lang="fr"
# ## 1-7 · Mesurer
#
# Sur un GPU, `session.measure_or_show_recorded()` fait les sept étapes (c'est `make lab-03`) ;
# dans le simulateur, on affiche les résultats enregistrés.

# %% [markdown] lang="zh"
# ## 1-7 · 测量
#
# 在 GPU 上，`session.measure_or_show_recorded()` 完成全部七步（即 `make lab-03`）；在模拟器里展示已记录的结果。

# %%
session.measure_or_show_recorded()
