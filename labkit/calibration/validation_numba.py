"""The validation set's Numba kernels (labkit.calibration.validation_kernels): kept apart so that the
set's plan imports no Numba."""

from __future__ import annotations

import numpy as np

from labkit.gpu import cuda
from labkit.kernels.jit import kernel

_A, _B = np.float32(0.9999), np.float32(0.0001)


@kernel
def fma_eight_chains(x, out, rounds):
    """FP32 FMA at its roof: eight independent chains per thread, float32 constants."""
    i = cuda.grid(1)
    v = x[i]
    c0, c1, c2, c3, c4, c5, c6, c7 = v, v + _A, v + _B, v - _A, v - _B, v * _A, v * _B, v + _A + _B
    for _ in range(rounds):
        c0 = c0 * _A + _B
        c1 = c1 * _A + _B
        c2 = c2 * _A + _B
        c3 = c3 * _A + _B
        c4 = c4 * _A + _B
        c5 = c5 * _A + _B
        c6 = c6 * _A + _B
        c7 = c7 * _A + _B
    out[i] = c0 + c1 + c2 + c3 + c4 + c5 + c6 + c7


@kernel
def damp_with_double_constants(x, out, rounds):
    """What a learner writes: float32 data, Python float constants, the result cast back to float32
    each round: every round is a conversion to FP64, a DFMA and a conversion back (F2F, F2F)."""
    i = cuda.grid(1)
    v = x[i]
    for _ in range(rounds):
        v = np.float32(v * 0.9999 + 0.0001)
    out[i] = v
