"""Lab 03's throughput kernels, whose parallelism per thread is a parameter: a copy with ``loads``
16-byte loads in flight per thread, and FP32 FMA with ``chains`` independent chains per thread.
Each factory returns one compiled kernel per value (cached), each with its NumPy reference.

Both are persistent: launched with exactly (SMs x resident blocks per SM) blocks, every block is
resident from start to end, so the warps resident per SM are the launch's, never fewer (no tail)
and never more (the dynamic shared memory of the launch caps residency; labkit.models.occupancy says how
much).
"""

from __future__ import annotations

import functools

import numpy as np
from numba import float32, uint64

from labkit.gpu import cuda
from labkit.kernels.intrinsics import clock64, load4, load4_streaming, store4, store4_streaming
from labkit.kernels.jit import device_function, kernel

@functools.cache
def stream_copy(loads: int, streaming: bool = False):
    """target = source (float32, length a multiple of 4), ``loads`` 16-byte loads in flight per thread.

    Grid-stride over chunks of blockDim x loads float4: in each trip a thread issues its ``loads``
    loads (blockDim float4 apart, so each load instruction of a warp reads 512 contiguous bytes),
    then its ``loads`` stores; the trip's loads are independent, so they are in flight together.
    Then the remainder, one guarded float4 at a time. 64-bit unsigned indices: no sign handling.
    ``streaming``: the evict-first cache hint (.cs) on every access.
    """
    read, write = (load4_streaming, store4_streaming) if streaming else (load4, store4)
    last = loads - 1

    def copy(source, target):
        n4 = uint64(source.size // 4)
        width = uint64(cuda.blockDim.x)
        base = uint64(cuda.blockIdx.x) * width * uint64(loads) + uint64(cuda.threadIdx.x)
        chunk = uint64(cuda.gridDim.x) * width * uint64(loads)
        held = cuda.local.array((loads, 4), float32)
        while base + uint64(last) * width < n4:
            for j in range(loads):
                value = read(source, base + uint64(j) * width)
                held[j, 0] = value[0]
                held[j, 1] = value[1]
                held[j, 2] = value[2]
                held[j, 3] = value[3]
            for j in range(loads):
                write(target, base + uint64(j) * width, (held[j, 0], held[j, 1], held[j, 2], held[j, 3]))
            base += chunk
        for j in range(loads):
            i = base + uint64(j) * width
            if i < n4:
                write(target, i, read(source, i))

    copy.__name__ = copy.__qualname__ = f"stream_copy_{loads}{'_cs' if streaming else ''}"
    return kernel(copy)


def stream_bytes_moved(elements: int) -> int:
    """A copy of ``elements`` float32 reads and writes each once: 8 bytes per element."""
    return 8 * elements


#: FMAs per chain per trip of the FMA kernels (an inner loop of constant trip count, unrolled).
FMAS_PER_TRIP = 16


@functools.cache
def fma_chains(chains: int, a_literal: float | None = None):
    """``chains`` independent FP32 chains x = x * a + b per thread, FMAS_PER_TRIP FMAs per chain per
    trip, ``trips`` trips; out[thread] = the sum of the chains (so nothing is elided).
    FLOPs = threads x trips x chains x FMAS_PER_TRIP x 2.

    ``a_literal``: ``a`` is that constant, compiled into each FFMA as an immediate operand (the
    ``a`` argument is then unused): each FFMA reads two registers (x, b) instead of three, with the
    same chains, instructions and loop (``fma_chains_<chains>_imm``)."""
    if a_literal is None:
        multiplier = device_function(lambda a: a)
    else:
        literal = float32(a_literal)
        multiplier = device_function(lambda a: literal)   # a constant: the FFMA's immediate operand

    def fma(out, trips, a, b):
        i = cuda.grid(1)
        x = cuda.local.array(chains, float32)
        m = multiplier(a)
        for c in range(chains):
            x[c] = float32(i) + float32(c)
        for _ in range(trips):
            for _ in range(FMAS_PER_TRIP):
                for c in range(chains):
                    x[c] = cuda.fma(x[c], m, b)
        total = float32(0.0)
        for c in range(chains):
            total += x[c]
        out[i] = total

    fma.__name__ = fma.__qualname__ = f"fma_chains_{chains}" + ("" if a_literal is None else "_imm")
    return kernel(fma)


def fma_flops(threads_total: int, trips: int, chains: int) -> float:
    return 2.0 * threads_total * trips * chains * FMAS_PER_TRIP


def fma_reference(threads_total: int, trips: int, chains: int, a: float, b: float) -> np.ndarray:
    """What fma_chains writes: per thread, the sum over its chains of ``trips x FMAS_PER_TRIP``
    steps x = x * a + b from x = thread + chain, in float32."""
    x = np.arange(threads_total, dtype=np.float32)[:, None] + np.arange(chains, dtype=np.float32)[None, :]
    a, b = np.float32(a), np.float32(b)
    for _ in range(trips * FMAS_PER_TRIP):
        x = x * a + b
    total = np.zeros(threads_total, dtype=np.float32)
    for c in range(chains):
        total = total + x[:, c]
    return total


@kernel
def fma_dependent(out, cycles, trips, a, b):
    """One thread, one chain of trips x FMAS_PER_TRIP dependent FMAs x = x * a + b from x = 1, timed by
    the SM's cycle counter: cycles[0] / (trips x FMAS_PER_TRIP) is the FMA's dependent-issue latency
    (loop bookkeeping issues in the chain's shadow). out[0] = x."""
    x = float32(1.0)
    start = clock64()
    for _ in range(trips):
        for _ in range(FMAS_PER_TRIP):
            x = cuda.fma(x, a, b)
    out[0] = x  # the store reads x: it waits for the last FMA, so the clock below comes after it
    cycles[0] = clock64() - start


def fma_dependent_reference(trips: int, a: float, b: float) -> np.float32:
    x, a, b = np.float32(1.0), np.float32(a), np.float32(b)
    for _ in range(trips * FMAS_PER_TRIP):
        x = x * a + b
    return x
