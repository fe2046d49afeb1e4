"""Caught by: error
The twin's remapping, but with the bounds test on the thread's index instead of the element's:
where the vector ends inside a pair of warps, threads below the size take elements past its end."""

import numpy as np

from labkit.gpu import cuda

THREADS = 256
STEPS = 128
A, B = np.float32(0.999), np.float32(0.001)
A2, B2 = np.float32(0.998), np.float32(0.002)
A3, B3 = np.float32(0.9995), np.float32(0.0005)


@cuda.jit
def kernel_h_remapped(x, y):
    t = cuda.grid(1)
    if t < x.size:
        i = (t // 64) * 64 + 2 * (t % 32) + (t // 32) % 2
        v = x[i]
        if i % 2 == 0:
            for _ in range(STEPS):
                v = cuda.fma(v, A, B)
        else:
            for _ in range(STEPS // 2):
                v = cuda.fma(v, A2, B2)
                v = cuda.fma(v, A3, B3)
        y[i] = v


def run(x, y):
    kernel_h_remapped[(x.size + THREADS - 1) // THREADS, THREADS](x, y)
