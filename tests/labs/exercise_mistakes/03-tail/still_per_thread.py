"""Caught by: correct
One wave from the calculator, but the kernel unchanged: each thread still takes 32 elements, so a
grid smaller than the data asks for leaves the last elements unwritten (in the simulator's
stand-in GPU, 2 blocks of 64 threads reach 4,096 of the 5,000 elements)."""

from numba import uint32

from labkit.gpu import cuda
from labkit.models.occupancy import KernelLaunch, architecture, calculate

THREADS = 64
SHARED_BYTES = 48 * 1024
REGISTERS = 32
KERNEL = KernelLaunch(threads_per_block=THREADS, registers_per_thread=REGISTERS, dynamic_shared_bytes=SHARED_BYTES)
PER_THREAD = 32


@cuda.jit(device=True)
def scramble(h, rounds):
    for _ in range(rounds):
        h = uint32(h ^ (h << 13))
        h = uint32(h ^ (h >> 17))
        h = uint32(h ^ (h << 5))
    return h


@cuda.jit
def mix(x, out, rounds):
    first = cuda.blockIdx.x * cuda.blockDim.x * PER_THREAD + cuda.threadIdx.x
    for k in range(PER_THREAD):
        i = first + k * cuda.blockDim.x
        if i < x.size:
            out[i] = scramble(x[i], rounds)


def blocks(n, sm_count, compute_capability):
    return sm_count * calculate(KERNEL, architecture(compute_capability)).blocks_per_sm
