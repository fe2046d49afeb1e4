"""How the reductions (labkit.kernels.reduction) are launched: their block size, a compile-time
shape of their shared-memory tree, kept apart from the kernels so that the chapters' figures
(lab 04's chain grid) need neither Numba nor a CUDA toolchain.
"""

#: Threads per block of every reduction: the shared-memory tree is sized for it at compile time.
THREADS = 256
