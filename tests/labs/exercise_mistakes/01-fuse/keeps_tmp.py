"""Caught by: dram_bytes_per_element
Fused into one kernel, but still writing tmp "in case": 16 bytes per element instead of 12."""

from labkit.gpu import cuda

THREADS = 256


@cuda.jit
def saxpy_relu(a, x, y, out, tmp):
    i = cuda.grid(1)
    if i < x.size:
        t = a * x[i] + y[i]
        tmp[i] = t
        out[i] = max(t, 0.0)


def run(a, x, y, out, tmp):
    saxpy_relu[(x.size + THREADS - 1) // THREADS, THREADS](a, x, y, out, tmp)
