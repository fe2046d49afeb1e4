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
# # Lab 05 · La checklist d'optimisation
#
# Huit noyaux mystères : sept portent chacun un défaut planté (accès non coalescés,
# conflits de banc, occupancy bridée par les registres, grille minuscule, FP64 accidentel, mémoire
# locale, divergence) et ont un jumeau réparé ; le huitième est déjà au plafond de la DRAM, c'est le
# témoin négatif. Le lab vérifie chaque noyau face à NumPy, chronomètre chaque mystère contre son
# jumeau, profile tout avec Nsight Compute, et `labkit diagnose` doit trouver chaque défaut en tête.
# Sans GPU, les noyaux tournent dans le simulateur CUDA de Numba (vérification seulement) et le
# carnet affiche les résultats enregistrés sur GPU, signalés comme tels.

# %% [markdown] lang="zh"
# # Lab 05 · 优化清单
#
# 八个神秘 kernel：其中七个各埋了一个缺陷（非合并访存、bank 冲突、寄存器压低占用率、极小的 grid、意外的 FP64、local memory、warp 分歧），并各有一个修复版；第八个已经到达 DRAM 屋顶，是阴性对照。本实验用 NumPy 检查每个 kernel，对每个神秘 kernel 与其修复版计时，用 Nsight Compute 剖析全部 kernel，并要求 `labkit diagnose` 把每个缺陷排在首位。没有 GPU 时，kernel 在 Numba 的 CUDA 模拟器里运行（只做正确性检查），并展示在 GPU 上记录的结果，明确标注为记录值。

# %% lang="fr"
from labkit.labs.notebook import LabSession

session = LabSession("lab-05", lang="fr")

# %% lang="zh"
from labkit.labs.notebook import LabSession

session = LabSession("lab-05", lang="zh")

# %% [markdown] lang="fr"
# ## 0 · Les noyaux sont-ils justes ?
#
# Chaque noyau et son jumeau, à petite taille, comparés à NumPy.

# %% [markdown] lang="zh"
# ## 0 · kernel 算得对吗？
#
# 每个 kernel 及其修复版以小规模运行，与 NumPy 对照。

# %%
session.check()

# %% [markdown] lang="fr"
# ## 1 · Mesurer, puis diagnostiquer
#
# Sur un GPU, `session.measure_or_show_recorded()` chronomètre et profile (c'est ce que fait
# `make lab-05`). Dans le simulateur, on affiche les résultats enregistrés.

# %% [markdown] lang="zh"
# ## 1 · 测量，然后诊断
#
# 在 GPU 上，`session.measure_or_show_recorded()` 会计时并做剖析（`make lab-05` 做的就是这件事）；在模拟器里则展示已记录的结果。

# %%
session.measure_or_show_recorded()

# %% [markdown] lang="fr"
# ## 2 · `labkit diagnose` sur un rapport enregistré
#
# La même commande que `labkit diagnose labs/05-checklist/results/nvidia-h200 -k kernel_a --lang fr`.

# %% [markdown] lang="zh"
# ## 2 · 对已记录的报告运行 `labkit diagnose`
#
# 与命令 `labkit diagnose labs/05-checklist/results/nvidia-h200 -k kernel_a --lang zh` 相同。

# %%
from labkit.commands.diagnose import diagnose_report

recorded = session.lab.lab_dir(session.project) / "results" / "nvidia-h200"
if recorded.is_dir():
    diagnose_report([recorded], "^kernel_a$", session.lang, False)   # writes the text as it goes
else:
    print("make lab-05")
