"""Simulated twins of lab 02's CUDA C kernels (labkit.kernels.coalescing_cuda), for the analyzer.

Each twin is a Numba kernel with its CUDA C kernel's index arithmetic, line for line: the same
threads touch the same byte offsets of the same buffers, with the same widths (a ``float4``,
``uint2``... is a record of :func:`labkit.simulator.trace.vector_dtype`, recorded as one 8- or
16-byte access). They run only in Numba's CUDA simulator, where :mod:`labkit.simulator.trace`
records their accesses; on a GPU the CUDA C kernels run, and the lab's record compares their ncu
counters with what the twins predict. Each twin computes what its kernel computes, and the
lab's checks hold both to NumPy.
"""

from __future__ import annotations

from numba import float32, uint32

from labkit.gpu import SIMULATED, cuda
from labkit.kernels.coalescing import SWEEP_LOADS
from labkit.kernels.coalescing_cuda import ROOF_LOADS, ROWS, SHARED_SLOTS, THREADS, TILE
from labkit.simulator.trace import vector_dtype

if not SIMULATED:
    raise ImportError("labkit.kernels.coalescing_twins runs in Numba's CUDA simulator only "
                      "(NUMBA_ENABLE_CUDASIM=1): on a GPU the CUDA C kernels run")

UINT2, UINT4 = vector_dtype("u4", 2), vector_dtype("u4", 4)
FLOAT2, FLOAT4 = vector_dtype("f4", 2), vector_dtype("f4", 4)
PER_THREAD = TILE // ROWS


@cuda.jit
def strided_read_16(x, out, stride, offset, sentinel):
    e = cuda.blockIdx.x * cuda.blockDim.x * SWEEP_LOADS + cuda.threadIdx.x
    v = [x[(e + k * cuda.blockDim.x) * stride + offset] for k in range(SWEEP_LOADS)]
    hit = False
    for k in range(SWEEP_LOADS):
        hit |= v[k]["x"] ^ v[k]["y"] ^ v[k]["z"] ^ v[k]["w"] == sentinel
    if hit:
        out[0] = sentinel


@cuda.jit
def read_roof(x, out):
    partial = cuda.shared.array(THREADS, uint32)
    e = cuda.blockIdx.x * cuda.blockDim.x * ROOF_LOADS + cuda.threadIdx.x
    v = [x[e + k * cuda.blockDim.x] for k in range(ROOF_LOADS)]
    acc = uint32(0)
    for k in range(ROOF_LOADS):
        acc ^= v[k]["x"] ^ v[k]["y"] ^ v[k]["z"] ^ v[k]["w"]
    partial[cuda.threadIdx.x] = acc
    cuda.syncthreads()
    if cuda.threadIdx.x == 0:
        total = uint32(0)
        for t in range(cuda.blockDim.x):
            total ^= partial[t]
        out[cuda.blockIdx.x] = total


@cuda.jit
def drift_aos_vector(p, dt):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    a = p[2 * i]
    b = p.view(FLOAT2)[4 * i + 2]
    p[2 * i] = (a["x"] + a["w"] * dt, a["y"] + b["x"] * dt, a["z"] + b["y"] * dt, a["w"])


@cuda.jit
def drift_soa_vector(fields, dt, n):
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    q = n // 4
    x, y, z = fields[i], fields[q + i], fields[2 * q + i]
    vx, vy, vz = fields[3 * q + i], fields[4 * q + i], fields[5 * q + i]
    fields[i] = tuple(x[c] + vx[c] * dt for c in "xyzw")
    fields[q + i] = tuple(y[c] + vy[c] * dt for c in "xyzw")
    fields[2 * q + i] = tuple(z[c] + vz[c] * dt for c in "xyzw")


def _shared_stride(width_bytes: int):
    record = {4: None, 8: UINT2, 16: UINT4}[width_bytes]
    words = width_bytes // 4

    @cuda.jit
    def shared_stride(out, stride, iterations):
        tile = cuda.shared.array(SHARED_SLOTS * words, dtype=uint32)
        slots = tile if record is None else tile.view(record)
        for s in range(cuda.threadIdx.x, SHARED_SLOTS, cuda.blockDim.x):
            slots[s] = s if record is None else (s,) * words
        cuda.syncthreads()
        at = ((cuda.threadIdx.x & 31) * stride) % SHARED_SLOTS
        acc = 0
        for _ in range(iterations):
            v = slots[at]
            acc += int(v) if record is None else sum(int(v[c]) for c in "xyzw"[:words])
        out[cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x] = acc % (1 << 32)

    return shared_stride


shared_stride_4, shared_stride_8, shared_stride_16 = (_shared_stride(w) for w in (4, 8, 16))


@cuda.jit
def tile_copy(source, target, n):
    col = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    row = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    v = cuda.local.array(PER_THREAD, float32)
    for k in range(PER_THREAD):
        v[k] = source[(row + k * ROWS) * n + col]
    for k in range(PER_THREAD):
        target[(row + k * ROWS) * n + col] = v[k]


@cuda.jit
def transpose_naive(source, target, n):
    col = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    row = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    v = cuda.local.array(PER_THREAD, float32)
    for k in range(PER_THREAD):
        v[k] = source[(row + k * ROWS) * n + col]
    for k in range(PER_THREAD):
        target[col * n + row + k * ROWS] = v[k]


def at_tiled(r, c):
    return r * TILE + c


def at_padded(r, c):
    return r * (TILE + 1) + c


def at_swizzled(r, c):
    return r * TILE + (c ^ (r & 31))


def _through_shared(width: int, at):
    @cuda.jit
    def transpose(source, target, n):
        tile = cuda.shared.array(TILE * width, float32)
        tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
        col = cuda.blockIdx.x * TILE + tx
        row = cuda.blockIdx.y * TILE + ty
        v = cuda.local.array(PER_THREAD, float32)
        for k in range(PER_THREAD):
            v[k] = source[(row + k * ROWS) * n + col]
        for k in range(PER_THREAD):
            tile[at(ty + k * ROWS, tx)] = v[k]
        cuda.syncthreads()
        ocol = cuda.blockIdx.y * TILE + tx
        orow = cuda.blockIdx.x * TILE + ty
        for k in range(PER_THREAD):
            v[k] = tile[at(tx, ty + k * ROWS)]
        for k in range(PER_THREAD):
            target[(orow + k * ROWS) * n + ocol] = v[k]

    return transpose


transpose_tiled = _through_shared(TILE, at_tiled)
transpose_padded = _through_shared(TILE + 1, at_padded)
transpose_swizzled = _through_shared(TILE, at_swizzled)

#: Each CUDA C kernel's twin, by the kernel's name.
TWINS = {
    "strided_read_16": strided_read_16, "read_roof": read_roof, "drift_aos_vector": drift_aos_vector,
    "drift_soa_vector": drift_soa_vector, "shared_stride_4": shared_stride_4,
    "shared_stride_8": shared_stride_8, "shared_stride_16": shared_stride_16, "tile_copy": tile_copy,
    "transpose_naive": transpose_naive, "transpose_tiled": transpose_tiled,
    "transpose_padded": transpose_padded, "transpose_swizzled": transpose_swizzled,
}

