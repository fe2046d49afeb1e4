"""Caught by: correct
One thread per word, coalesced, but only the positions are written, as an in-place drift would
do: the other five fields of out keep the NaN they arrived with."""

from labkit.gpu import cuda

FIELDS = 8
THREADS = 256


@cuda.jit
def drift_words(p, dt, out):
    w = cuda.grid(1)
    if w < p.shape[0] * FIELDS:
        i = w // FIELDS
        f = w % FIELDS
        if f < 3:
            out[i, f] = p[i, f] + p[i, f + 3] * dt


def drift(p, dt, out):
    blocks = (p.shape[0] * FIELDS + THREADS - 1) // THREADS
    drift_words[blocks, THREADS](p, dt, out)
