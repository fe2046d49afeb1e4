"""Elementwise chains: many tiny launches (latency- and launch-bound) versus one fused kernel.

Each step of the chain is y = a_k * y + b_k. Applied as separate kernels, every step reads and
writes the whole vector and pays one launch; fused, the vector is read and written once.
"""

from __future__ import annotations

import numpy as np
from labkit.gpu import cuda
from labkit.kernels.jit import kernel


@kernel
def scale_add(y, a, b):
    """One step in place: y[i] = a * y[i] + b."""
    i = cuda.grid(1)
    if i < y.size:
        y[i] = a * y[i] + b


@kernel
def fused_chain(y, coefficients):
    """All steps in one pass: for each (a, b) row of coefficients, y[i] = a * y[i] + b."""
    i = cuda.grid(1)
    if i < y.size:
        value = y[i]
        for k in range(coefficients.shape[0]):
            value = coefficients[k, 0] * value + coefficients[k, 1]
        y[i] = value


def chain_reference(y: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    out = y.astype(np.float32).copy()
    for a, b in coefficients.astype(np.float32):
        out = a * out + b
    return out
