"""Lab 99's kernel, with the NumPy reference it is checked against: out = factor * x, one float32
read and one written per element (8 bytes)."""

from __future__ import annotations

import numpy as np

from labkit.gpu import cuda
from labkit.kernels.jit import kernel

THREADS = 256
BYTES_PER_ELEMENT = 8


@kernel
def scale(x, out, factor):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = factor * x[i]


def scale_reference(x: np.ndarray, factor: np.float32) -> np.ndarray:
    return factor * x


def blocks(n: int) -> int:
    return (n + THREADS - 1) // THREADS
