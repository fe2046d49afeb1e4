"""Caught by: error
One thread per word, but no bounds test: the grid is rounded up to whole blocks, and the last
block's extra threads read and write past the last particle (the simulator names the line; on a
GPU, the guard zone after out catches the writes)."""

from labkit.gpu import cuda

FIELDS = 8
THREADS = 256


@cuda.jit
def drift_words(p, dt, out):
    w = cuda.grid(1)
    i = w // FIELDS
    f = w % FIELDS
    value = p[i, f]
    if f < 3:
        value += p[i, f + 3] * dt
    out[i, f] = value


def drift(p, dt, out):
    blocks = (p.shape[0] * FIELDS + THREADS - 1) // THREADS
    drift_words[blocks, THREADS](p, dt, out)
