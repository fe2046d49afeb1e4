"""Caught by: correct
One wave from the calculator, and each thread loops over its own run of n // threads consecutive
elements: the last n mod threads elements belong to no thread and are never written."""

from numba import uint32

from labkit.gpu import cuda
from labkit.models.occupancy import KernelLaunch, architecture, calculate

THREADS = 64
SHARED_BYTES = 48 * 1024
REGISTERS = 32
KERNEL = KernelLaunch(threads_per_block=THREADS, registers_per_thread=REGISTERS, dynamic_shared_bytes=SHARED_BYTES)


@cuda.jit(device=True)
def scramble(h, rounds):
    for _ in range(rounds):
        h = uint32(h ^ (h << 13))
        h = uint32(h ^ (h >> 17))
        h = uint32(h ^ (h << 5))
    return h


@cuda.jit
def mix(x, out, rounds):
    chunk = x.size // cuda.gridsize(1)
    first = cuda.grid(1) * chunk
    for i in range(first, first + chunk):
        out[i] = scramble(x[i], rounds)


def blocks(n, sm_count, compute_capability):
    return sm_count * calculate(KERNEL, architecture(compute_capability)).blocks_per_sm
