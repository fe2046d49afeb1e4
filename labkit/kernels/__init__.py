"""Numba CUDA kernels of the labs, each beside the NumPy reference it is checked against.

Each module takes ``cuda`` from :mod:`labkit.gpu`, which chooses the backend first: a CUDA GPU
when there is one, otherwise Numba's CUDA simulator (correctness and access patterns, no timing).
"""
