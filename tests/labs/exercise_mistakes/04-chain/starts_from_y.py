"""Caught by: correct
Fused into one launch, but the chain starts from y, as the skeleton's later steps did: y arrives
poisoned, and the poison goes through every step."""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def fused_chain(y, coefficients):
    i = cuda.grid(1)
    if i < y.size:
        value = y[i]
        for k in range(coefficients.shape[0]):
            value = coefficients[k, 0] * value + coefficients[k, 1]
        y[i] = value


def normalise(x, coefficients, host_coefficients, y):
    fused_chain[(y.size + THREADS - 1) // THREADS, THREADS](y, coefficients)
