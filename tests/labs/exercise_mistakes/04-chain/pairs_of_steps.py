"""Caught by: launches
Caught on the GPU by: time_ratio
Two steps per launch: half as many launches, each still a few microseconds for almost no work."""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def two_steps(source, y, coefficients, k):
    i = cuda.grid(1)
    if i < y.size:
        value = coefficients[k, 0] * source[i] + coefficients[k, 1]
        if k + 1 < coefficients.shape[0]:
            value = coefficients[k + 1, 0] * value + coefficients[k + 1, 1]
        y[i] = value


def normalise(x, coefficients, host_coefficients, y):
    blocks = (y.size + THREADS - 1) // THREADS
    source = x
    for k in range(0, len(host_coefficients), 2):
        two_steps[blocks, THREADS](source, y, coefficients, k)
        source = y
