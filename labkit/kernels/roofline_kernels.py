"""Lab 01's kernels: the two ceilings (a copy for bandwidth, FMA chains for FLOP/s) and the
intensity sweep, each with the NumPy reference it is checked against.

The sweep kernel reads a float32, applies ``fmas`` dependent FMAs (2 FLOP each; ``fmas = 0``
means one add, 1 FLOP), writes it back: 8 bytes per element, so I = 2 * fmas / 8 = fmas / 4
FLOP/byte (1/8 for the add).
"""

from __future__ import annotations

import numpy as np
from numba import cuda, float32, float64

from labkit.kernels.jit import device_function, kernel

#: Loads each copy thread has in flight.
ELEMENTS_PER_THREAD = 4
#: Elements each sweep thread carries: two chunks of 8 independent FMA chains.
SWEEP_ELEMENTS_PER_THREAD = 16
#: Independent FMA chains per thread of the peak kernels.
FMA_CHAINS = 8
#: FMAs per chain per loop trip of the peak kernels (the inner loop has a constant trip count).
FMAS_PER_TRIP = 16


@kernel
def copy_wide(source, target):
    """target = source, each thread moving ELEMENTS_PER_THREAD elements one block-width apart:
    all loads issued before any store (memory-level parallelism), no grid-stride loop."""
    base = cuda.blockIdx.x * cuda.blockDim.x * ELEMENTS_PER_THREAD + cuda.threadIdx.x
    step = cuda.blockDim.x
    n = source.size
    if base + 3 * step < n:
        a = source[base]
        b = source[base + step]
        c = source[base + 2 * step]
        d = source[base + 3 * step]
        target[base] = a
        target[base + step] = b
        target[base + 2 * step] = c
        target[base + 3 * step] = d
    else:
        for k in range(ELEMENTS_PER_THREAD):
            if base + k * step < n:
                target[base + k * step] = source[base + k * step]


def copy_blocks(n: int, threads: int) -> int:
    return (n + threads * ELEMENTS_PER_THREAD - 1) // (threads * ELEMENTS_PER_THREAD)


def _fma_peak(scalar):
    """The peak kernel in one precision: FMA_CHAINS independent chains x = x * a + b,
    FMAS_PER_TRIP per chain per trip.

    FLOPs = threads x trips x FMA_CHAINS x FMAS_PER_TRIP x 2; out is written so nothing is elided.
    """

    def fma_peak(out, trips, a, b):
        i = cuda.grid(1)
        x0 = scalar(i)
        x1 = x0 + scalar(1.0)
        x2 = x0 + scalar(2.0)
        x3 = x0 + scalar(3.0)
        x4 = x0 + scalar(4.0)
        x5 = x0 + scalar(5.0)
        x6 = x0 + scalar(6.0)
        x7 = x0 + scalar(7.0)
        for _ in range(trips):
            for _ in range(FMAS_PER_TRIP):
                x0 = cuda.fma(x0, a, b)
                x1 = cuda.fma(x1, a, b)
                x2 = cuda.fma(x2, a, b)
                x3 = cuda.fma(x3, a, b)
                x4 = cuda.fma(x4, a, b)
                x5 = cuda.fma(x5, a, b)
                x6 = cuda.fma(x6, a, b)
                x7 = cuda.fma(x7, a, b)
        out[i] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7

    fma_peak.__name__ = f"fma_peak_{scalar.name}"
    return kernel(fma_peak)


fma_peak_f32 = _fma_peak(float32)
fma_peak_f64 = _fma_peak(float64)


def fma_peak_flops(threads_total: int, trips: int) -> float:
    return 2.0 * threads_total * trips * FMA_CHAINS * FMAS_PER_TRIP


def fma_peak_reference(threads_total: int, trips: int, a: float, b: float, dtype) -> np.ndarray:
    x = np.arange(threads_total, dtype=dtype)[:, None] + np.arange(FMA_CHAINS, dtype=dtype)[None, :]
    a, b = dtype(a), dtype(b)
    for _ in range(trips * FMAS_PER_TRIP):
        x = x * a + b
    return x.sum(axis=1, dtype=dtype)


@device_function
def _load8(data, base, step):
    return (data[base], data[base + step], data[base + 2 * step], data[base + 3 * step], data[base + 4 * step],
            data[base + 5 * step], data[base + 6 * step], data[base + 7 * step])


@device_function
def _store8(data, base, step, v0, v1, v2, v3, v4, v5, v6, v7):
    data[base] = v0
    data[base + step] = v1
    data[base + 2 * step] = v2
    data[base + 3 * step] = v3
    data[base + 4 * step] = v4
    data[base + 5 * step] = v5
    data[base + 6 * step] = v6
    data[base + 7 * step] = v7


@device_function
def _chains8(v0, v1, v2, v3, v4, v5, v6, v7, fmas, a, b):
    """Eight independent chains: one add each (fmas == 0) or ``fmas`` dependent FMAs, 8 per trip."""
    if fmas == 0:
        return v0 + b, v1 + b, v2 + b, v3 + b, v4 + b, v5 + b, v6 + b, v7 + b
    for _ in range(fmas // 8):
        for _ in range(8):
            v0 = cuda.fma(v0, a, b)
            v1 = cuda.fma(v1, a, b)
            v2 = cuda.fma(v2, a, b)
            v3 = cuda.fma(v3, a, b)
            v4 = cuda.fma(v4, a, b)
            v5 = cuda.fma(v5, a, b)
            v6 = cuda.fma(v6, a, b)
            v7 = cuda.fma(v7, a, b)
    for _ in range(fmas % 8):
        v0 = cuda.fma(v0, a, b)
        v1 = cuda.fma(v1, a, b)
        v2 = cuda.fma(v2, a, b)
        v3 = cuda.fma(v3, a, b)
        v4 = cuda.fma(v4, a, b)
        v5 = cuda.fma(v5, a, b)
        v6 = cuda.fma(v6, a, b)
        v7 = cuda.fma(v7, a, b)
    return v0, v1, v2, v3, v4, v5, v6, v7


@kernel
def sweep(data, fmas, a, b):
    """In place: each element gets one add (fmas == 0) or ``fmas`` dependent FMAs.

    Each thread owns two chunks of 8 elements, one block-width apart: it loads both, computes
    and stores the first while the second's loads are still in flight, then the second. On the
    H200 this overlapped memory and arithmetic better than one chunk per thread or a
    software-pipelined grid-stride loop. The size must be a multiple of
    SWEEP_ELEMENTS_PER_THREAD x the block size (``sweep_blocks``).
    """
    step = cuda.blockDim.x
    first = cuda.blockIdx.x * step * SWEEP_ELEMENTS_PER_THREAD + cuda.threadIdx.x
    second = first + 8 * step
    a0, a1, a2, a3, a4, a5, a6, a7 = _load8(data, first, step)
    b0, b1, b2, b3, b4, b5, b6, b7 = _load8(data, second, step)
    a0, a1, a2, a3, a4, a5, a6, a7 = _chains8(a0, a1, a2, a3, a4, a5, a6, a7, fmas, a, b)
    _store8(data, first, step, a0, a1, a2, a3, a4, a5, a6, a7)
    b0, b1, b2, b3, b4, b5, b6, b7 = _chains8(b0, b1, b2, b3, b4, b5, b6, b7, fmas, a, b)
    _store8(data, second, step, b0, b1, b2, b3, b4, b5, b6, b7)


def sweep_blocks(n: int, threads: int) -> int:
    if n % (threads * SWEEP_ELEMENTS_PER_THREAD):
        raise ValueError(f"sweep size {n} must be a multiple of {threads * SWEEP_ELEMENTS_PER_THREAD}")
    return n // (threads * SWEEP_ELEMENTS_PER_THREAD)


def sweep_flops_per_element(fmas: int) -> float:
    return 1.0 if fmas == 0 else 2.0 * fmas


SWEEP_BYTES_PER_ELEMENT = 8.0


def sweep_reference(data: np.ndarray, fmas: int, a: float, b: float) -> np.ndarray:
    out = data.astype(np.float32).copy()
    a, b = np.float32(a), np.float32(b)
    if fmas == 0:
        return out + b
    for _ in range(fmas):
        out = out * a + b
    return out
