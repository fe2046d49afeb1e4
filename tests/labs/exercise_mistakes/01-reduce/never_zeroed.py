"""Caught by: correct
One atomic per block, but out[0] is never set: the sum is added to the NaN it arrived with."""

from numba import float32

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def block_sums(x, out):
    acc = float32(0.0)
    for i in range(cuda.grid(1), x.size, cuda.gridsize(1)):
        acc += x[i]
    partial = cuda.shared.array(THREADS, dtype=float32)
    t = cuda.threadIdx.x
    partial[t] = acc
    cuda.syncthreads()
    step = THREADS // 2
    while step > 0:
        if t < step:
            partial[t] += partial[t + step]
        cuda.syncthreads()
        step //= 2
    if t == 0:
        cuda.atomic.add(out, 0, partial[0])


def total(x, out):
    block_sums[4, THREADS](x, out)
