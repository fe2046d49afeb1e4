"""Caught by: wave_efficiency
A grid-stride kernel and one wave, with the blocks per SM from the calculator, but the H200's 132
SMs written in: on an H100 PCIe (114 SMs, the same 4 blocks per SM) 528 blocks make 1.16 waves,
and the last 72 blocks run alone for as long as a whole wave."""

from numba import uint32

from labkit.gpu import cuda
from labkit.models.occupancy import KernelLaunch, architecture, calculate

THREADS = 64
SHARED_BYTES = 48 * 1024
REGISTERS = 32
KERNEL = KernelLaunch(threads_per_block=THREADS, registers_per_thread=REGISTERS, dynamic_shared_bytes=SHARED_BYTES)
H200_SMS = 132


@cuda.jit(device=True)
def scramble(h, rounds):
    for _ in range(rounds):
        h = uint32(h ^ (h << 13))
        h = uint32(h ^ (h >> 17))
        h = uint32(h ^ (h << 5))
    return h


@cuda.jit
def mix(x, out, rounds):
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        out[i] = scramble(x[i], rounds)


def blocks(n, sm_count, compute_capability):
    return H200_SMS * calculate(KERNEL, architecture(compute_capability)).blocks_per_sm
