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
# # Lab 99 · Jetable · 一次性实验

# %%
from labkit.labs.notebook import LabSession

session = LabSession("lab-99")

# %%
session.check()

# %%
session.measure_or_show_recorded()
