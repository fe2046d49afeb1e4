"""Caught by: nothing in the simulator
Caught on the GPU by: local_bytes
Sixteen loads before the stores, and one loop for the whole array: each trip copies
min(16, what is left) elements. Right, and in the simulator's trace sixteen loads precede each
group of stores. But a loop whose trip count is known only at run time is not unrolled, so held
stays an array in local memory (64 bytes per thread in ptxas's stack frame): every value goes
there and back, and only the compiler's own runtime unroll (4 loads on sm_90) goes out before
the first local store, which waits for its load."""

from numba import float32

from labkit.gpu import cuda

LOADS = 16


@cuda.jit
def copy(x, out):
    n = x.size
    stride = cuda.gridsize(1)
    i = cuda.grid(1)
    held = cuda.local.array(LOADS, float32)
    while i < n:
        count = min(LOADS, (n - i + stride - 1) // stride)
        for j in range(count):
            held[j] = x[i + j * stride]
        for j in range(count):
            out[i + j * stride] = held[j]
        i += count * stride
