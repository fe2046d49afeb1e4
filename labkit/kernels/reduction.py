"""Block reductions into one device scalar: each thread's partial sum goes through a
shared-memory tree, then one atomic add per block. Used for lab 04's loss (a sum of squares)
and lab 01's sample reduction (a plain sum).
"""

from __future__ import annotations

import numpy as np
from numba import float32

from labkit.gpu import cuda
from labkit.kernels.jit import device_function, kernel
from labkit.kernels.reduction_launch import THREADS


@device_function
def add_block_to(total, partial_sum):
    """total[0] += the sum over the block of each thread's partial_sum (a halving tree)."""
    partial = cuda.shared.array(THREADS, dtype=float32)
    t = cuda.threadIdx.x
    partial[t] = partial_sum
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(total, 0, partial[0])


@kernel
def sum_squares(x, total):
    """total[0] += sum(x * x), with a grid-stride loop."""
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i] * x[i]
    add_block_to(total, acc)


@kernel
def block_sum(x, total):
    """total[0] += sum(x), with a grid-stride loop."""
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    add_block_to(total, acc)


def sum_squares_reference(x: np.ndarray) -> float:
    return float(np.sum(x.astype(np.float64) ** 2))
