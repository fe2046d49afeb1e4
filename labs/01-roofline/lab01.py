# ---
# jupyter:
#   jupytext:
#     formats: py:percent
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Lab 01 · Le roofline mesuré · 实测 roofline
#
# **FR.** On mesure d'abord les plafonds de la machine avec les noyaux de `labkit` (une copie
# pour la bande passante HBM, des chaînes de FMA pour le débit FP32 et FP64), puis on balaie
# l'intensité arithmétique d'un même noyau de 1/8 à 256 FLOP/octet, et on place sur ce roofline
# les noyaux du chapitre 1 avec leur verdict t_réel / t_min. Sans GPU, les noyaux tournent dans
# le simulateur CUDA de Numba (vérification seulement) et l'on affiche les résultats enregistrés.
#
# **中文。** 先用 `labkit` 的 kernel 实测机器的上限（用拷贝测 HBM 带宽，用 FMA 链测 FP32 与
# FP64 吞吐），再让同一个 kernel 的算术强度从 1/8 扫到 256 FLOP/byte，最后把第 1 章的 kernel
# 放到这条 roofline 上，给出 t_real / t_min 的结论。没有 GPU 时，kernel 在 Numba 的 CUDA 模拟器
# 里运行（只做正确性检查），并展示已记录的结果。

# %%
from rich.console import Console

from labkit.backend import NO_GPU_NOTICE, select_backend
from labkit.labs import load_lab, load_program
from labkit.labs.runner import show_recorded, show_tables

backend = select_backend()
lab, program = load_lab("lab-01"), load_program("lab-01")
console = Console(width=110)
print(backend if backend == "cuda" else NO_GPU_NOTICE)

# %% [markdown]
# ## 0 · Les noyaux sont-ils justes ? · kernel 算得对吗？

# %%
for name, passed in program.check_against_numpy(lab.SIMULATOR_SIZES):
    print("ok  " if passed else "FAIL", name)

# %% [markdown]
# ## 1-3 · Plafonds, balayage, placement · 上限、扫描、定位
#
# **FR.** Sur un GPU, `program.measure` fait les trois étapes (c'est `make lab-01`) ; dans le
# simulateur, on affiche les résultats enregistrés. **中文。** 在 GPU 上，`program.measure` 完成
# 三步（即 `make lab-01`）；在模拟器里展示已记录的结果。

# %%
import tempfile
from pathlib import Path

if backend == "cuda":
    with tempfile.TemporaryDirectory() as work_dir:
        results = program.measure(lambda step: print(step), Path(work_dir), lab.GPU_SIZES)
    show_tables(lab.tables(results), console)
else:
    show_recorded(lab, console)
