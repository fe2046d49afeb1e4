"""Caught by: wave_efficiency
Caught on the GPU by: time_ratio
A grid-stride kernel and no tail, but one block per SM where an H200's SM holds 4: a quarter of
the block slots work, each thread takes 4 times the elements, and the kernel takes about 4 times
as long (its chains are latency-bound: the idle slots are not made up for by the others)."""

from numba import uint32

from labkit.gpu import cuda

THREADS = 64


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
    return sm_count
