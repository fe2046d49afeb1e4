"""Sum of squares into one device scalar (a 'loss'): block partial sums in shared memory, then
one atomic add per block.
"""

from __future__ import annotations

import numpy as np
from numba import cuda, float32

from labkit.kernels.jit import kernel

THREADS = 256


@kernel
def sum_squares(x, total):
    """total[0] += sum(x * x), with a grid-stride loop and a shared-memory tree per block."""
    partial = cuda.shared.array(THREADS, dtype=float32)
    t = cuda.threadIdx.x
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i] * x[i]
    partial[t] = acc
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(total, 0, partial[0])


def sum_squares_reference(x: np.ndarray) -> float:
    return float(np.sum(x.astype(np.float64) ** 2))
