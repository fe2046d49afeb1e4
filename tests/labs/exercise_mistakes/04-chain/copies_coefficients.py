"""Caught by: nothing in the simulator
Caught on the GPU by: time_ratio
One fused launch, but the host's coefficients are copied to the GPU at every call: an allocation
and a copy from pageable memory, which waits for the stream and puts the GPU back to waiting for
the host (lab 04's transfer fault), while the same values were already on the GPU."""

import numpy as np

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def fused_chain(x, coefficients, y):
    i = cuda.grid(1)
    if i < y.size:
        value = x[i]
        for k in range(coefficients.shape[0]):
            value = coefficients[k, 0] * value + coefficients[k, 1]
        y[i] = value


def normalise(x, coefficients, host_coefficients, y):
    on_device = cuda.to_device(np.array(host_coefficients, dtype=np.float32))
    fused_chain[(y.size + THREADS - 1) // THREADS, THREADS](x, on_device, y)
