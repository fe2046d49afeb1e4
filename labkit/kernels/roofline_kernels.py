"""Lab 01's kernels: the two ceilings (a copy for bandwidth, FMA chains for FLOP/s) and the
intensity sweep, each with the NumPy reference it is checked against.

The sweep kernel reads a float32, applies ``fmas`` dependent FMAs (2 FLOP each; ``fmas = 0``
means one add, 1 FLOP), writes it back: 8 bytes per element, so I = 2 * fmas / 8 = fmas / 4
FLOP/byte (1/8 for the add).
"""

from __future__ import annotations

import numpy as np
from numba import float32, float64, int32, uint64

from labkit.gpu import cuda
from labkit.kernels.jit import device_function, kernel

#: Loads each copy thread has in flight.
ELEMENTS_PER_THREAD = 4
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


#: Threads per sweep block. A compile-time constant, so that the 16 addresses of a chunk are one
#: register plus immediate offsets.
SWEEP_THREADS = 128
#: Independent FMA chains per chunk: one chunk is 16 elements, SWEEP_THREADS apart.
SWEEP_CHAINS = 16
#: Two chunks per thread.
SWEEP_ELEMENTS_PER_THREAD = 2 * SWEEP_CHAINS


#: Offsets of a chunk's elements from its first, as unsigned constants (an int literal times a
#: uint64 would be typed float64 by Numba).
_CHUNK_OFFSETS = tuple(np.uint64(k * SWEEP_THREADS) for k in range(SWEEP_CHAINS))


@device_function
def _load16(data, first):
    """The 16 elements of a chunk: data[first + k * SWEEP_THREADS], k = 0..15 (coalesced per k)."""
    d, f, o = data, first, _CHUNK_OFFSETS
    return (d[f], d[f + o[1]], d[f + o[2]], d[f + o[3]], d[f + o[4]], d[f + o[5]], d[f + o[6]], d[f + o[7]],
            d[f + o[8]], d[f + o[9]], d[f + o[10]], d[f + o[11]], d[f + o[12]], d[f + o[13]], d[f + o[14]],
            d[f + o[15]])


@device_function
def _store16(data, first, v):
    d, f, o = data, first, _CHUNK_OFFSETS
    d[f] = v[0]
    d[f + o[1]] = v[1]
    d[f + o[2]] = v[2]
    d[f + o[3]] = v[3]
    d[f + o[4]] = v[4]
    d[f + o[5]] = v[5]
    d[f + o[6]] = v[6]
    d[f + o[7]] = v[7]
    d[f + o[8]] = v[8]
    d[f + o[9]] = v[9]
    d[f + o[10]] = v[10]
    d[f + o[11]] = v[11]
    d[f + o[12]] = v[12]
    d[f + o[13]] = v[13]
    d[f + o[14]] = v[14]
    d[f + o[15]] = v[15]


@device_function
def _fma16(v, a, b):
    """One FMA on each of the 16 chains: v[k] * a + b."""
    return (cuda.fma(v[0], a, b), cuda.fma(v[1], a, b), cuda.fma(v[2], a, b), cuda.fma(v[3], a, b),
            cuda.fma(v[4], a, b), cuda.fma(v[5], a, b), cuda.fma(v[6], a, b), cuda.fma(v[7], a, b),
            cuda.fma(v[8], a, b), cuda.fma(v[9], a, b), cuda.fma(v[10], a, b), cuda.fma(v[11], a, b),
            cuda.fma(v[12], a, b), cuda.fma(v[13], a, b), cuda.fma(v[14], a, b), cuda.fma(v[15], a, b))


@device_function
def _add16(v, b):
    return (v[0] + b, v[1] + b, v[2] + b, v[3] + b, v[4] + b, v[5] + b, v[6] + b, v[7] + b,
            v[8] + b, v[9] + b, v[10] + b, v[11] + b, v[12] + b, v[13] + b, v[14] + b, v[15] + b)


@device_function
def _chains16(v, fmas, a, b):
    """``fmas`` dependent FMAs on each chain (one add when fmas == 0): trips of 16 unrolled
    rounds (256 FMAs), then the rest one round at a time. 32-bit trip counts keep the loop
    bookkeeping to a few instructions per trip."""
    if fmas == 0:
        return _add16(v, b)
    for _ in range(int32(fmas // 16)):
        for _ in range(16):
            v = _fma16(v, a, b)
    for _ in range(int32(fmas % 16)):
        v = _fma16(v, a, b)
    return v


@kernel
def sweep(data, fmas, a, b):
    """In place: each element gets one add (fmas == 0) or ``fmas`` dependent FMAs.

    Launch with SWEEP_THREADS threads per block and ``sweep_blocks(n)`` blocks. Each thread
    owns two chunks of SWEEP_CHAINS elements: it loads both, computes and stores the first while
    the second's loads are in flight, then the second. Near the ridge the kernel must keep the
    FMA pipes and HBM busy at once, so every instruction that is not an FMA or a load or store
    counts; hence unsigned 64-bit indices (Numba emits no negative-index wraparound for them),
    a compile-time block width (immediate address offsets) and 32-bit trip counts.
    """
    first = uint64(cuda.blockIdx.x) * uint64(SWEEP_THREADS * SWEEP_ELEMENTS_PER_THREAD) + uint64(cuda.threadIdx.x)
    second = first + uint64(SWEEP_THREADS * SWEEP_CHAINS)
    u = _load16(data, first)
    w = _load16(data, second)
    _store16(data, first, _chains16(u, fmas, a, b))
    _store16(data, second, _chains16(w, fmas, a, b))


def sweep_blocks(n: int) -> int:
    """Blocks for ``n`` elements: n / (SWEEP_THREADS x SWEEP_ELEMENTS_PER_THREAD), which must divide."""
    per_block = SWEEP_THREADS * SWEEP_ELEMENTS_PER_THREAD
    if n % per_block:
        raise ValueError(f"sweep size {n} must be a multiple of {per_block}")
    return n // per_block


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
