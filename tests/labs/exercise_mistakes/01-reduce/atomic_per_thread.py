"""Caught by: atomics_per_element
Caught on the GPU by: time_ratio
Each thread sums its share in a register, then every thread adds its sum with an atomic: fewer
atomics than one per element, still one per thread."""

from numba import float32

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def zero(out):
    out[0] = 0.0


@cuda.jit
def thread_sums(x, out):
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    cuda.atomic.add(out, 0, acc)


def total(x, out):
    zero[1, 1](out)
    thread_sums[min(1024, (x.size + 4 * THREADS - 1) // (4 * THREADS)), THREADS](x, out)
