"""Register pressure: one kernel that keeps LIVE float32 values live in every thread, compiled
at several register limits (Numba's ``max_registers``, ptxas's ``-maxrregcount``).

Each thread loads LIVE values (coalesced: value k of thread i is data[k x threads + i]), then runs
``rounds`` rounds of v[k] = v[(k + 1) mod LIVE] x a + v[k] for k = 0 .. LIVE - 1, in that order,
and writes the sum. Every value is read and rewritten in every round, so all LIVE stay live
across the loop: under a limit below what they need, the compiler keeps the rest in local memory
(spills: a store and a load per value per round), and the kernel's occupancy rises as its speed
falls. The updates of one round are independent of each other but for the last (v[LIVE - 1]
reads the new v[0]), so a thread has LIVE-fold instruction-level parallelism: a few warps per
scheduler are enough to keep the FMA pipes busy.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import float32

from labkit.gpu import cuda
from labkit.kernels.jit import kernel

LIVE = 64


@functools.cache
def register_mix(max_registers: int | None):
    """The kernel compiled with at most ``max_registers`` registers per thread (None: no limit)."""

    def mix(data, out, rounds, a):
        i = cuda.grid(1)
        threads = cuda.gridsize(1)
        v = cuda.local.array(LIVE, float32)
        for k in range(LIVE):
            v[k] = data[k * threads + i]
        for _ in range(rounds):
            for k in range(LIVE):
                v[k] = cuda.fma(v[(k + 1) % LIVE], a, v[k])
        total = float32(0.0)
        for k in range(LIVE):
            total += v[k]
        out[i] = total

    mix.__name__ = mix.__qualname__ = f"register_mix_{max_registers or 'free'}"
    return kernel(mix, max_registers=max_registers)


def mix_flops(threads_total: int, rounds: int) -> float:
    """2 FLOP per FMA, LIVE FMAs per round per thread."""
    return 2.0 * threads_total * rounds * LIVE


def mix_reference(data: np.ndarray, threads_total: int, rounds: int, a: float) -> np.ndarray:
    """The same updates in float32, all threads at once (a multiply then an add: NumPy has no fused
    FMA, so compare with a relative tolerance)."""
    v = [data[k * threads_total:(k + 1) * threads_total].astype(np.float32) for k in range(LIVE)]
    a = np.float32(a)
    for _ in range(rounds):
        for k in range(LIVE):
            v[k] = v[(k + 1) % LIVE] * a + v[k]
    total = np.zeros(threads_total, dtype=np.float32)
    for k in range(LIVE):
        total = total + v[k]
    return total
