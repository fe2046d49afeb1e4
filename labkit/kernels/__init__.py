"""Numba CUDA kernels of the labs, each beside the NumPy reference it is checked against.

Importing this package chooses the backend first: a CUDA GPU when there is one, otherwise
Numba's CUDA simulator (correctness and access patterns, no timing).
"""

from labkit.backend import select_backend

select_backend()
