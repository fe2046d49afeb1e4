"""Caught by: nothing in the simulator
Caught on the GPU by: time_ratio
Right, one atomic in all, and slow: a single block of 256 threads reads the whole array, so one SM
of the GPU works and the others wait."""

from numba import float32

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def one_block_sum(x, out):
    acc = float32(0.0)
    for i in range(cuda.threadIdx.x, x.size, THREADS):
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
        out[0] = partial[0]


def total(x, out):
    one_block_sum[1, THREADS](x, out)
