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
# # Lab 99 · Jetable

# %% [markdown] lang="zh"
# # Lab 99 · 一次性实验

# %% lang="fr"
from labkit.labs.notebook import LabSession

session = LabSession("lab-99", lang="fr")

# %% lang="zh"
from labkit.labs.notebook import LabSession

session = LabSession("lab-99", lang="zh")

# %%
session.check()

# %%
session.measure_or_show_recorded()
