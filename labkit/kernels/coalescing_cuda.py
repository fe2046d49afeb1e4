"""Lab 02's CUDA C kernels (CuPy ``RawModule``, compiled by NVRTC): what Numba cannot say.

Numba has no 16-byte global access and no way to keep a shared-memory load inside a loop whose
address does not change, so these kernels are CUDA C:

- ``strided_read_16``: the global stride sweep for 16-byte elements (``uint4``: ``LDG.E.128``),
  each thread reading ``SWEEP_LOADS`` of them as Numba's ``strided_read`` does
  (labkit.kernels.coalescing);
- ``read_roof``: the read-only roof the sweep is compared with: coalesced ``uint4`` reads
  (``LDG.E.128``), :data:`ROOF_LOADS` per thread one block-width apart, all issued before any is
  used, folded by XOR and reduced per block (warp shuffles, then shared memory) to one word that
  thread 0 writes, ``out[blockIdx.x]``: 4 bytes written per 16 KiB read;
- ``drift_aos_vector`` / ``drift_soa_vector``: the particle drift with vector loads and stores
  (``float4`` and ``float2``: ``LDG.E.128``, ``LDG.E.64``, ``STG.E.128``);
- ``shared_stride_4|8|16``: the shared-memory stride sweep, whose loop loads one address again
  and again: ``ld.volatile.shared`` in inline PTX, so that every iteration issues its ``LDS``.
  ``asm volatile`` alone is not enough: it keeps the front end from dropping the statement, but
  the plain ``ld.shared`` it emits is an ordinary load that ptxas hoists out of the loop (one
  ``LDS`` per warp instead of 64 at 4 and 8 bytes, one per 16 iterations at 16 bytes, in the
  record of commit 4cb7254). The ``.volatile`` qualifier of PTX's ``ld`` forbids that (PTX ISA,
  ``ld``); the lab's record checks it: ncu's count of executed shared loads equals the
  analyzer's;
- ``tile_copy`` and the transposes ``transpose_naive|tiled|padded|swizzled``: one tile of
  ``TILE x TILE`` floats per block of ``TILE x ROWS`` threads, each thread moving ``TILE / ROWS``
  elements per side; the shared tile is ``[TILE][TILE]`` (tiled), ``[TILE][TILE + 1]``
  (padded) or ``[TILE][TILE]`` with column ``c`` of row ``r`` stored at ``c ^ (r % 32)``
  (swizzled).

The analyzer cannot run CUDA C: :mod:`labkit.kernels.coalescing_twins` holds, for each kernel
here, a Numba twin with the same index arithmetic, run in the simulator and traced; the lab's
record holds ncu's counters of these kernels against the twins' predictions, so a twin that
drifted from its kernel would show as a difference.
"""

from __future__ import annotations

import functools

import numpy as np

#: The transposes' shape: tile side and thread rows (block = TILE x ROWS threads, TILE / ROWS
#: elements per thread and side). Of the shapes measured side by side on the H200 (the exploration
#: of the batch that recorded commit 4cb7254), 64 x 8 gave the padded and swizzled transposes the
#: most of the copy (0.943 and 0.946, against 0.940 and 0.939 for 64 x 4) and the copy the most of
#: cupy.copyto (0.991, against 0.979).
TILE = 64
ROWS = 8
#: Elements each thread of the global sweep reads (Numba's strided_read, strided_read_16 here): 8
#: loads in flight, 32 bytes per thread at 4-byte elements, 128 at 16 bytes. Written here, where
#: nothing imports numba, so that the site's build can read the lab's geometry without it.
SWEEP_LOADS = 8
#: Loads in flight per thread of the read roof (16 bytes each: 64 bytes per thread).
ROOF_LOADS = 4
#: Shared sweep: slots of the tile (of 4, 8 or 16 bytes), enough for 32 lanes at stride 64.
SHARED_SLOTS = 2048
#: Threads per block of every 1-D kernel here.
THREADS = 256

SOURCE = r"""
#ifndef TILE
#define TILE 64
#endif
#ifndef ROWS
#define ROWS 8
#endif
#ifndef SWEEP_LOADS
#define SWEEP_LOADS 8
#endif
#ifndef ROOF_LOADS
#define ROOF_LOADS 4
#endif
#define SLOTS 2048

/* Global stride sweep, 16-byte elements: element e = b * (blockDim * SWEEP_LOADS) + k * blockDim + t
   of block b's thread t, k < SWEEP_LOADS, is x[e * stride + offset]; all loads are issued before any
   value is used, and every component is used, so each load stays 128 bits. */
extern "C" __global__ void strided_read_16(const uint4* x, unsigned int* out, long long stride,
                                           long long offset, unsigned int sentinel)
{
    const long long e = (long long)blockIdx.x * blockDim.x * SWEEP_LOADS + threadIdx.x;
    uint4 v[SWEEP_LOADS];
#pragma unroll
    for (int k = 0; k < SWEEP_LOADS; ++k) v[k] = x[(e + (long long)k * blockDim.x) * stride + offset];
    bool hit = false;
#pragma unroll
    for (int k = 0; k < SWEEP_LOADS; ++k) hit |= (v[k].x ^ v[k].y ^ v[k].z ^ v[k].w) == sentinel;
    if (hit) out[0] = sentinel;
}

/* Read-only roof: block b's thread t reads x[b * blockDim * ROOF_LOADS + k * blockDim + t], k <
   ROOF_LOADS, every load issued before any is used; the XOR of all their words is reduced over the
   block (warp shuffles, then one word per warp in shared memory) and written once, out[b]. */
extern "C" __global__ void read_roof(const uint4* x, unsigned int* out)
{
    __shared__ unsigned int warps[32];
    const long long e = (long long)blockIdx.x * blockDim.x * ROOF_LOADS + threadIdx.x;
    uint4 v[ROOF_LOADS];
#pragma unroll
    for (int k = 0; k < ROOF_LOADS; ++k) v[k] = x[e + (long long)k * blockDim.x];
    unsigned int acc = 0u;
#pragma unroll
    for (int k = 0; k < ROOF_LOADS; ++k) acc ^= v[k].x ^ v[k].y ^ v[k].z ^ v[k].w;
    for (int lane = 16; lane > 0; lane >>= 1) acc ^= __shfl_xor_sync(0xffffffffu, acc, lane);
    if ((threadIdx.x & 31) == 0) warps[threadIdx.x >> 5] = acc;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int total = 0u;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) total ^= warps[w];
        out[blockIdx.x] = total;
    }
}

/* Particles of 8 floats (x, y, z, vx, vy, vz, mass, charge): x += vx * dt for x, y, z.
   AoS: record i is p[2i] = (x, y, z, vx) and p[2i+1] = (vy, vz, mass, charge). */
extern "C" __global__ void drift_aos_vector(float4* p, float dt)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 a = p[2 * i];                                                /* LDG.E.128 */
    const float2 b = reinterpret_cast<const float2*>(p)[4 * i + 2];    /* LDG.E.64: vy, vz */
    a.x += a.w * dt;
    a.y += b.x * dt;
    a.z += b.y * dt;
    p[2 * i] = a;                                                       /* STG.E.128 */
}

/* SoA: field f of particle j at fields[f * n + j]; each thread moves 4 particles as float4. */
extern "C" __global__ void drift_soa_vector(float4* fields, float dt, int n)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int q = n / 4;
    float4 x = fields[i], y = fields[q + i], z = fields[2 * q + i];
    const float4 vx = fields[3 * q + i], vy = fields[4 * q + i], vz = fields[5 * q + i];
    x.x += vx.x * dt; x.y += vx.y * dt; x.z += vx.z * dt; x.w += vx.w * dt;
    y.x += vy.x * dt; y.y += vy.y * dt; y.z += vy.z * dt; y.w += vy.w * dt;
    z.x += vz.x * dt; z.y += vz.y * dt; z.z += vz.z * dt; z.w += vz.w * dt;
    fields[i] = x;
    fields[q + i] = y;
    fields[2 * q + i] = z;
}

/* Shared stride sweep: fill SLOTS slots (slot s holds s in each word), then lane l loads slot
   (l * stride) % SLOTS `iterations` times; thread t writes the sum of what it loaded. The loads
   are ld.volatile.shared: a plain ld.shared of a loop-invariant address is hoisted by ptxas. */
extern "C" __global__ void shared_stride_4(unsigned int* out, int stride, int iterations)
{
    __shared__ __align__(16) unsigned int tile[SLOTS];
    for (int s = threadIdx.x; s < SLOTS; s += blockDim.x) tile[s] = s;
    __syncthreads();
    const unsigned int at = (unsigned int)__cvta_generic_to_shared(tile) + 4u * (((threadIdx.x & 31) * stride) % SLOTS);
    unsigned int acc = 0u, a;
    for (int it = 0; it < iterations; ++it) {
        asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(a) : "r"(at));
        acc += a;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void shared_stride_8(unsigned int* out, int stride, int iterations)
{
    __shared__ __align__(16) uint2 tile[SLOTS];
    for (int s = threadIdx.x; s < SLOTS; s += blockDim.x) tile[s] = make_uint2(s, s);
    __syncthreads();
    const unsigned int at = (unsigned int)__cvta_generic_to_shared(tile) + 8u * (((threadIdx.x & 31) * stride) % SLOTS);
    unsigned int acc = 0u, a, b;
    for (int it = 0; it < iterations; ++it) {
        asm volatile("ld.volatile.shared.v2.u32 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(at));
        acc += a + b;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void shared_stride_16(unsigned int* out, int stride, int iterations)
{
    __shared__ __align__(16) uint4 tile[SLOTS];
    for (int s = threadIdx.x; s < SLOTS; s += blockDim.x) tile[s] = make_uint4(s, s, s, s);
    __syncthreads();
    const unsigned int at = (unsigned int)__cvta_generic_to_shared(tile) + 16u * (((threadIdx.x & 31) * stride) % SLOTS);
    unsigned int acc = 0u, a, b, c, d;
    for (int it = 0; it < iterations; ++it) {
        asm volatile("ld.volatile.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(at));
        acc += a + b + c + d;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

/* The same bytes moved without transposing: block (bx, by) copies tile (by, bx). */
extern "C" __global__ void __launch_bounds__(TILE * ROWS) tile_copy(const float* in, float* out, int n)
{
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    float v[TILE / ROWS];
#pragma unroll
    for (int k = 0; k < TILE / ROWS; ++k) v[k] = in[(size_t)(row + k * ROWS) * n + col];
#pragma unroll
    for (int k = 0; k < TILE / ROWS; ++k) out[(size_t)(row + k * ROWS) * n + col] = v[k];
}

/* out[c][r] = in[r][c], straight from global memory: the writes go down a column. */
extern "C" __global__ void __launch_bounds__(TILE * ROWS) transpose_naive(const float* in, float* out, int n)
{
    const int col = blockIdx.x * TILE + threadIdx.x;
    const int row = blockIdx.y * TILE + threadIdx.y;
    float v[TILE / ROWS];
#pragma unroll
    for (int k = 0; k < TILE / ROWS; ++k) v[k] = in[(size_t)(row + k * ROWS) * n + col];
#pragma unroll
    for (int k = 0; k < TILE / ROWS; ++k) out[(size_t)col * n + row + k * ROWS] = v[k];
}

/* Through a shared tile: rows in, columns out. AT(r, c) is where element (r, c) of the tile lives. */
#define TRANSPOSE_THROUGH_SHARED(NAME, WIDTH, AT)                                                      \
extern "C" __global__ void __launch_bounds__(TILE * ROWS) NAME(const float* in, float* out, int n)    \
{                                                                                                     \
    __shared__ float tile[TILE * (WIDTH)];                                                            \
    const int tx = threadIdx.x, ty = threadIdx.y;                                                     \
    const int col = blockIdx.x * TILE + tx;                                                           \
    const int row = blockIdx.y * TILE + ty;                                                           \
    float v[TILE / ROWS];                                                                             \
    _Pragma("unroll") for (int k = 0; k < TILE / ROWS; ++k) v[k] = in[(size_t)(row + k * ROWS) * n + col]; \
    _Pragma("unroll") for (int k = 0; k < TILE / ROWS; ++k) tile[AT(ty + k * ROWS, tx)] = v[k];       \
    __syncthreads();                                                                                  \
    const int ocol = blockIdx.y * TILE + tx;                                                          \
    const int orow = blockIdx.x * TILE + ty;                                                          \
    _Pragma("unroll") for (int k = 0; k < TILE / ROWS; ++k) v[k] = tile[AT(tx, ty + k * ROWS)];       \
    _Pragma("unroll") for (int k = 0; k < TILE / ROWS; ++k) out[(size_t)(orow + k * ROWS) * n + ocol] = v[k]; \
}

#define AT_TILED(r, c) ((r) * TILE + (c))
#define AT_PADDED(r, c) ((r) * (TILE + 1) + (c))
#define AT_SWIZZLED(r, c) ((r) * TILE + ((c) ^ ((r) & 31)))
TRANSPOSE_THROUGH_SHARED(transpose_tiled, TILE, AT_TILED)
TRANSPOSE_THROUGH_SHARED(transpose_padded, TILE + 1, AT_PADDED)
TRANSPOSE_THROUGH_SHARED(transpose_swizzled, TILE, AT_SWIZZLED)
"""

#: Every kernel of SOURCE, by name.
KERNELS = ("strided_read_16", "read_roof", "drift_aos_vector", "drift_soa_vector", "shared_stride_4", "shared_stride_8",
           "shared_stride_16", "tile_copy", "transpose_naive", "transpose_tiled", "transpose_padded",
           "transpose_swizzled")


def options(tile: int = TILE, rows: int = ROWS) -> tuple[str, ...]:
    """NVRTC (and nvcc) options: line information for ncu's source view, the transposes' shape,
    the sweep's and the read roof's loads per thread."""
    if tile % rows or tile % 32:
        raise ValueError(f"TILE must be a multiple of 32 and of ROWS, got TILE={tile}, ROWS={rows}")
    return ("-lineinfo", f"-DTILE={tile}", f"-DROWS={rows}", f"-DSWEEP_LOADS={SWEEP_LOADS}",
            f"-DROOF_LOADS={ROOF_LOADS}")


@functools.cache
def module(tile: int = TILE, rows: int = ROWS):
    """The compiled module (CuPy RawModule; needs a GPU and CuPy)."""
    import cupy

    return cupy.RawModule(code=SOURCE, options=options(tile, rows))


def function(name: str, tile: int = TILE, rows: int = ROWS):
    if name not in KERNELS:
        raise ValueError(f"no CUDA C kernel {name!r}: choose one of {', '.join(KERNELS)}")
    return module(tile, rows).get_function(name)


def transpose_launch(n: int, tile: int = TILE, rows: int = ROWS) -> tuple[tuple[int, int], tuple[int, int]]:
    """(grid, block) of the tile kernels over an n x n matrix (n a multiple of ``tile``)."""
    if n % tile:
        raise ValueError(f"the matrix side {n} must be a multiple of the tile side {tile}")
    return (n // tile, n // tile), (tile, rows)


def read_roof_blocks(read_bytes: int, threads: int = THREADS) -> int:
    """Blocks of a read_roof launch over ``read_bytes`` (a multiple of threads x ROOF_LOADS x 16)."""
    per_block = threads * ROOF_LOADS * 16
    if read_bytes % per_block or not read_bytes:
        raise ValueError(f"the read roof reads a positive multiple of {per_block} bytes, got {read_bytes}")
    return read_bytes // per_block


def read_roof_reference(words: np.ndarray, threads: int = THREADS) -> np.ndarray:
    """What read_roof writes for ``words`` (uint32, whole blocks): each block's XOR of its words."""
    return np.bitwise_xor.reduce(words.reshape(-1, threads * ROOF_LOADS * 4), axis=1).astype(np.uint32)


def shared_stride_reference(width_bytes: int, threads: int, stride: int, iterations: int) -> np.ndarray:
    """What each thread of a block of ``shared_stride_<width>`` writes: iterations x words x the
    slot its lane reads, modulo 2^32 (slot s holds s in each of its words)."""
    lanes = np.arange(threads) % 32
    slots = (lanes * stride) % SHARED_SLOTS
    return ((iterations * (width_bytes // 4) * slots) % (1 << 32)).astype(np.uint32)


def tile_shape(layout: str, tile: int = TILE) -> str:
    """The shared tile as CUDA C declares it: ``[64][65]`` for the padded layout."""
    return {"tiled": f"[{tile}][{tile}]", "padded": f"[{tile}][{tile + 1}]",
            "swizzled": f"[{tile}][{tile}] ^"}.get(layout, "—")
