"""Caught by: store_sectors_per_request
The block's records are loaded into shared memory with coalesced loads (9 words per record, so
that reading one field across 32 threads has no bank conflict), but each thread then writes its
own particle's record to out: the stores are still a stride of 8 floats, 32 sectors per request."""

from numba import float32

from labkit.gpu import cuda

FIELDS = 8
PITCH = FIELDS + 1
THREADS = 256
SLOTS = THREADS * PITCH   # a shared array's shape is a compile-time constant


@cuda.jit
def drift_staged(p, dt, out):
    records = cuda.shared.array(SLOTS, dtype=float32)
    t = cuda.threadIdx.x
    first = cuda.blockIdx.x * THREADS
    n = p.shape[0]
    for k in range(FIELDS):
        w = k * THREADS + t
        i = first + w // FIELDS
        if i < n:
            records[(w // FIELDS) * PITCH + w % FIELDS] = p[i, w % FIELDS]
    cuda.syncthreads()
    i = first + t
    if i < n:
        for f in range(3):
            out[i, f] = records[t * PITCH + f] + records[t * PITCH + f + 3] * dt
        for f in range(3, FIELDS):
            out[i, f] = records[t * PITCH + f]


def drift(p, dt, out):
    blocks = (p.shape[0] + THREADS - 1) // THREADS
    drift_staged[blocks, THREADS](p, dt, out)
