"""Caught by: active_threads
Regrouped by parity, but in groups of 16 threads: the first half of each warp takes even elements,
the second half odd ones, so every warp still runs both paths."""

import numpy as np

from labkit.gpu import cuda

THREADS = 256
STEPS = 128
A, B = np.float32(0.999), np.float32(0.001)
A2, B2 = np.float32(0.998), np.float32(0.002)
A3, B3 = np.float32(0.9995), np.float32(0.0005)


@cuda.jit
def kernel_h_halves(x, y):
    t = cuda.grid(1)
    i = (t // 32) * 32 + 2 * (t % 16) + (t // 16) % 2
    if i < x.size:
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
    kernel_h_halves[(x.size + THREADS - 1) // THREADS, THREADS](x, y)
