"""Caught by: load_sectors_per_request
Caught on the GPU by: time_ratio
One thread per field, numbered as if the data were a structure of arrays: thread t handles field
t // n of particle t % n. Consecutive lanes take consecutive particles, so in memory that is still
an array of structures they are 32 bytes apart: 32 sectors per request, loads and stores; and each
sector is visited 8 times, by warps far apart in time."""

from labkit.gpu import cuda

FIELDS = 8
THREADS = 256


@cuda.jit
def drift_fields(p, dt, out):
    t = cuda.grid(1)
    n = p.shape[0]
    if t < n * FIELDS:
        f = t // n
        i = t % n
        value = p[i, f]
        if f < 3:
            value += p[i, f + 3] * dt
        out[i, f] = value


def drift(p, dt, out):
    blocks = (p.shape[0] * FIELDS + THREADS - 1) // THREADS
    drift_fields[blocks, THREADS](p, dt, out)
