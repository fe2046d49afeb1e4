"""Chapter 6's CUDA C matrix multiplies (CuPy ``RawModule``, compiled by NVRTC for the device's
own architecture, with ``-lineinfo``): the steps Numba cannot express.

C = A @ B, row-major, M x K times K x N; M, N, K multiples of the kernel's tiles (checked by the
host wrappers, :func:`launch`). Three modules, so that a header missing on one machine costs only
the module that includes it:

``simt`` (FP32, no header):

- ``sgemm_regtile`` (step 3, the CUDA C twin of :func:`labkit.kernels.gemm_simt.gemm_regtile`):
  a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread in registers, the
  K dimension in slices of 8; scalar global loads, one shared buffer, two barriers per slice.
  The A slice is stored k-major (``As[k][m]``) so that a thread reads its 8 rows of A at one k
  from consecutive words; that store transposes, and each row is padded by 4 floats so that the
  two lanes writing one column land in different banks (chapter 2's padding).
- ``sgemm_pipelined`` (step 4): the same tiling, with 16-byte loads (``float4``: ``LDG.E.128``,
  ``LDS.128``, ``STS.128``) and two shared buffers: the next slice is loaded from global memory
  into registers while the current one is multiplied, then stored into the other buffer, one
  barrier per slice.

  Each thread's 8 rows are two groups of 4 (``ty*4`` and ``64 + ty*4``), and so are its 8
  columns: a warp's 16-byte reads of a B row then cover 256 consecutive bytes (two wavefronts,
  the least for 16 distinct vectors), where 8 consecutive columns per thread would put lanes 0
  and 4 in the same banks.

``mma`` (FP16 or BF16 inputs, FP32 accumulation, FP16 or BF16 output; no header, inline PTX):

- ``hgemm_mma_128x256`` / ``hgemm_mma_128x128`` and the BF16 ``bgemm_mma_128x256`` (step 5):
  warp-level ``mma.sync.aligned.m16n8k16`` (``HMMA`` in SASS), fragments loaded from shared
  memory by ``ldmatrix`` (``.trans`` for B, which is stored k-major as it lies in memory), slices
  of 32 along K brought by ``cp.async`` (global to shared without registers) ``STAGES`` deep, so
  that the copies of later slices fly while this one is multiplied. Each warp computes a 64 x 64
  tile (4 x 8 instructions of 16 x 8 per 16 of K). Rows of the shared tiles are padded by 16
  bytes, which makes the eight 16-byte rows an ``ldmatrix`` phase reads fall in eight different
  groups of four banks. Blocks walk the tiles of C in groups of ``GROUP_M`` tile rows, so that
  the blocks resident together share slices of A and B in L2.

``wmma`` (``#include <mma.h>``):

- ``hgemm_wmma`` (step 5, the API version): ``nvcuda::wmma`` 16 x 16 x 16 fragments, 128 x 128
  tile per block of 8 warps (each 32 x 64), the same ``cp.async`` pipeline; the accumulators go
  through shared memory to be written as FP16 in 16-byte stores.

Chapter 6 shows parts of these sources (the ``--8<--`` markers, comments to the compiler).

Hopper's own path (``wgmma`` issued by a warpgroup from shared-memory descriptors, TMA copies
completing on an ``mbarrier``, clusters sharing tiles through distributed shared memory) needs
the ``sm_90a`` target: chapter 6 explains it; cuBLAS's kernels use it.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

#: The tile of C a block computes, per kernel: (rows, columns, threads per block, dynamic shared
#: bytes per block). One place for the launch arithmetic of the host wrappers and the probe.
SIMT_TILE = 128
SIMT_THREADS = 256
SIMT_BK = 8
SIMT_A_PAD = 4
MMA_BK = 32
#: Padding of each shared row, in 2-byte elements (16 bytes).
MMA_PAD = 8
STAGES = 4
WMMA_STAGES = 3
#: Blocks walk the tiles of C in groups of this many tile rows (see :func:`block_tile`).
GROUP_M = 8

SIMT_SOURCE = r"""
#define SG_BM 128
#define SG_BN 128
#define SG_BK 8
#define SG_APAD 4
#define GROUP_M 8

/* Tile (tile_m, tile_n) of block blockIdx.x: tiles are walked column by column inside groups of
   GROUP_M tile rows, so that the blocks resident at one time share rows of A and columns of B. */
__device__ __forceinline__ void block_tile(int M, int N, int bm, int bn, int& tile_m, int& tile_n)
{
    const int tiles_m = M / bm, tiles_n = N / bn;
    const int pid = blockIdx.x;
    const int per_group = GROUP_M * tiles_n;
    const int first_m = (pid / per_group) * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);
    tile_m = first_m + (pid % per_group) % rows;
    tile_n = (pid % per_group) / rows;
}

/* 128 x 128 tile of C per 256 threads (ty = tid / 16, tx = tid % 16), 8 x 8 outputs per thread.
   WIDE = false (step 3, as the Numba kernel): rows ty + 16 i and columns tx + 16 j, so that a warp's
   scalar reads of a B row touch 16 consecutive words; 4 scalar global loads of A and of B per slice.
   WIDE = true (step 4): rows ty*4 + {0..3} and 64 + ty*4 + {0..3}, columns likewise with tx, so that
   each group of 4 is one 16-byte access; one float4 global load of A and one of B per slice.
   DOUBLE: two shared buffers, the next slice loaded while this one is multiplied. */
template <bool WIDE, bool DOUBLE>
__device__ __forceinline__ void sgemm_128x128(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int M, int N, int K)
{
    constexpr int STAGES = DOUBLE ? 2 : 1;
    __shared__ __align__(16) float As[STAGES][SG_BK][SG_BM + SG_APAD];  /* k-major: As[k][m] */
    __shared__ __align__(16) float Bs[STAGES][SG_BK][SG_BN];
    int tile_m, tile_n;
    block_tile(M, N, SG_BM, SG_BN, tile_m, tile_n);
    const int tid = threadIdx.x;
    const int ty = tid >> 4, tx = tid & 15;
    const float* a_tile = A + (size_t)tile_m * SG_BM * K;
    const float* b_tile = B + (size_t)tile_n * SG_BN;
    float acc[8][8];
#pragma unroll
    for (int i = 0; i < 8; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j) acc[i][j] = 0.0f;
    float av[4], bv[4];   /* this thread's share of the next slice, on its way to shared memory */

    /* WIDE: thread tid brings A[tid / 2][4 (tid % 2) ..+3] and B[tid / 32][4 (tid % 32) ..+3].
       Scalar: element e = tid + 256 i of each slice, A[e / 8][e % 8] and B[e / 128][e % 128]. */
    auto load = [&](int k0) {
        if (WIDE) {
            const float4 a4 = *reinterpret_cast<const float4*>(a_tile + (size_t)(tid >> 1) * K + k0 + ((tid & 1) << 2));
            const float4 b4 = *reinterpret_cast<const float4*>(b_tile + (size_t)(k0 + (tid >> 5)) * N + ((tid & 31) << 2));
            av[0] = a4.x; av[1] = a4.y; av[2] = a4.z; av[3] = a4.w;
            bv[0] = b4.x; bv[1] = b4.y; bv[2] = b4.z; bv[3] = b4.w;
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int e = tid + 256 * i;
                av[i] = a_tile[(size_t)(e >> 3) * K + k0 + (e & 7)];
                bv[i] = b_tile[(size_t)(k0 + (e >> 7)) * N + (e & 127)];
            }
        }
    };
    auto store = [&](int s) {
        if (WIDE) {
#pragma unroll
            for (int i = 0; i < 4; ++i) As[s][((tid & 1) << 2) + i][tid >> 1] = av[i];
            *reinterpret_cast<float4*>(&Bs[s][tid >> 5][(tid & 31) << 2]) = make_float4(bv[0], bv[1], bv[2], bv[3]);
        } else {
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int e = tid + 256 * i;
                As[s][e & 7][e >> 3] = av[i];
                Bs[s][e >> 7][e & 127] = bv[i];
            }
        }
    };
    auto multiply = [&](int s) {
#pragma unroll
        for (int k = 0; k < SG_BK; ++k) {
            float a[8], b[8];
            if (WIDE) {
                const float4 a0 = *reinterpret_cast<const float4*>(&As[s][k][ty * 4]);
                const float4 a1 = *reinterpret_cast<const float4*>(&As[s][k][64 + ty * 4]);
                const float4 b0 = *reinterpret_cast<const float4*>(&Bs[s][k][tx * 4]);
                const float4 b1 = *reinterpret_cast<const float4*>(&Bs[s][k][64 + tx * 4]);
                a[0] = a0.x; a[1] = a0.y; a[2] = a0.z; a[3] = a0.w; a[4] = a1.x; a[5] = a1.y; a[6] = a1.z; a[7] = a1.w;
                b[0] = b0.x; b[1] = b0.y; b[2] = b0.z; b[3] = b0.w; b[4] = b1.x; b[5] = b1.y; b[6] = b1.z; b[7] = b1.w;
            } else {
#pragma unroll
                for (int i = 0; i < 8; ++i) {
                    a[i] = As[s][k][ty + 16 * i];
                    b[i] = Bs[s][k][tx + 16 * i];
                }
            }
#pragma unroll
            for (int i = 0; i < 8; ++i)
#pragma unroll
                for (int j = 0; j < 8; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
        }
    };

    /* --8<-- [start:pipeline] */
    if (DOUBLE) {
        load(0);
        store(0);
        __syncthreads();
        int s = 0;
        for (int k0 = 0; k0 < K; k0 += SG_BK) {
            const bool more = k0 + SG_BK < K;
            if (more) load(k0 + SG_BK);   /* these loads fly while the FMAs below run */
            multiply(s);
            if (more) store(s ^ 1);       /* the other buffer: nobody reads it until the barrier */
            __syncthreads();
            s ^= 1;
        }
    } else {
        for (int k0 = 0; k0 < K; k0 += SG_BK) {
            load(k0);
            store(0);
            __syncthreads();
            multiply(0);
            __syncthreads();
        }
    }
    /* --8<-- [end:pipeline] */

    float* c_tile = C + (size_t)tile_m * SG_BM * N + (size_t)tile_n * SG_BN;
#pragma unroll
    for (int i = 0; i < 8; ++i) {
        if (WIDE) {
            const int row = i < 4 ? ty * 4 + i : 64 + ty * 4 + i - 4;
#pragma unroll
            for (int h = 0; h < 2; ++h)
                *reinterpret_cast<float4*>(c_tile + (size_t)row * N + h * 64 + tx * 4) =
                    make_float4(acc[i][4 * h], acc[i][4 * h + 1], acc[i][4 * h + 2], acc[i][4 * h + 3]);
        } else {
#pragma unroll
            for (int j = 0; j < 8; ++j) c_tile[(size_t)(ty + 16 * i) * N + tx + 16 * j] = acc[i][j];
        }
    }
}

extern "C" __global__ void __launch_bounds__(256, 2)
sgemm_regtile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    sgemm_128x128<false, false>(A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(256, 2)
sgemm_pipelined(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    sgemm_128x128<true, true>(A, B, C, M, N, K);
}
"""

_ASYNC_COPY = r"""
/* cp.async (sm_80+): 16 bytes global -> shared without passing through registers; a group of
   copies is committed, and wait_group N waits until at most N groups are still in flight. */
__device__ __forceinline__ void cp_async_16(void* smem, const void* gmem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(s), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N)); }

#define GROUP_M 8
__device__ __forceinline__ void block_tile(int M, int N, int bm, int bn, int& tile_m, int& tile_n)
{
    const int tiles_m = M / bm, tiles_n = N / bn;
    const int pid = blockIdx.x;
    const int per_group = GROUP_M * tiles_n;
    const int first_m = (pid / per_group) * GROUP_M;
    const int rows = min(tiles_m - first_m, GROUP_M);
    tile_m = first_m + (pid % per_group) % rows;
    tile_n = (pid % per_group) / rows;
}

/* One BM x BK slice of A and BK x BN slice of B into shared stage buffers (rows padded by PAD). */
template <int BM, int BN, int BK, int PAD, int THREADS>
__device__ __forceinline__ void load_slices(const unsigned short* A, const unsigned short* B,
                                            unsigned short* As, unsigned short* Bs,
                                            int tile_m, int tile_n, int k0, int N, int K)
{
    const int tid = threadIdx.x;
#pragma unroll
    for (int c = tid; c < BM * BK / 8; c += THREADS) {
        const int row = c / (BK / 8), col = (c % (BK / 8)) * 8;
        cp_async_16(As + row * (BK + PAD) + col, A + (size_t)(tile_m * BM + row) * K + k0 + col);
    }
#pragma unroll
    for (int c = tid; c < BK * BN / 8; c += THREADS) {
        const int row = c / (BN / 8), col = (c % (BN / 8)) * 8;
        cp_async_16(Bs + row * (BN + PAD) + col, B + (size_t)(k0 + row) * N + (size_t)tile_n * BN + col);
    }
}
"""

MMA_SOURCE = _ASYNC_COPY + r"""
#define BK 32
#define PAD 8

__device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const void* smem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}
__device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const void* smem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

template <bool BF16>
__device__ __forceinline__ void mma_16x8x16(float (&d)[4], const unsigned (&a)[4], const unsigned (&b)[2])
{
    if (BF16) {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                     "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

/* Two floats rounded to nearest into one 32-bit pair (lo in the low half). */
template <bool BF16>
__device__ __forceinline__ unsigned pack2(float lo, float hi)
{
    unsigned r;
    if (BF16) asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    else      asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(r) : "f"(hi), "f"(lo));
    return r;
}

/* BM x BN tile of C per block of WARPS_M x WARPS_N warps, each warp a (BM/WARPS_M) x (BN/WARPS_N)
   tile made of 16 x 8 mma.sync tiles; K in slices of BK, DEPTH slices in flight by cp.async. */
template <int BM, int BN, int WARPS_M, int WARPS_N, int DEPTH, bool BF16>
__device__ __forceinline__ void gemm_mma(const unsigned short* __restrict__ A, const unsigned short* __restrict__ B,
                                         unsigned short* __restrict__ C, int M, int N, int K)
{
    constexpr int THREADS = WARPS_M * WARPS_N * 32;
    constexpr int WM = BM / WARPS_M, WN = BN / WARPS_N;
    constexpr int MT = WM / 16, NT = WN / 8;
    constexpr int A_STAGE = BM * (BK + PAD), B_STAGE = BK * (BN + PAD);
    extern __shared__ __align__(16) unsigned short smem[];
    unsigned short* As = smem;
    unsigned short* Bs = smem + DEPTH * A_STAGE;

    int tile_m, tile_n;
    block_tile(M, N, BM, BN, tile_m, tile_n);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int wm = warp / WARPS_N, wn = warp % WARPS_N;
    const int slices = K / BK;

    float acc[MT][NT][4];
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j)
#pragma unroll
            for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

#pragma unroll
    for (int s = 0; s < DEPTH - 1; ++s) {
        if (s < slices) load_slices<BM, BN, BK, PAD, THREADS>(A, B, As + s * A_STAGE, Bs + s * B_STAGE, tile_m, tile_n, s * BK, N, K);
        cp_async_commit();
    }

    /* --8<-- [start:mma_loop] */
    for (int t = 0; t < slices; ++t) {
        cp_async_wait<DEPTH - 2>();   /* slice t has landed (this thread's copies) */
        __syncthreads();               /* ... everyone's, and stage (t-1) % DEPTH is free again */
        const int next = t + DEPTH - 1;
        if (next < slices) {
            const int s = next % DEPTH;
            load_slices<BM, BN, BK, PAD, THREADS>(A, B, As + s * A_STAGE, Bs + s * B_STAGE, tile_m, tile_n, next * BK, N, K);
        }
        cp_async_commit();             /* an empty group near the end keeps the count right */

        const unsigned short* a_stage = As + (t % DEPTH) * A_STAGE;
        const unsigned short* b_stage = Bs + (t % DEPTH) * B_STAGE;
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            unsigned af[MT][4], bf[NT][2];
#pragma unroll
            for (int i = 0; i < MT; ++i)
                ldmatrix_x4(af[i], a_stage + (wm * WM + i * 16 + (lane & 15)) * (BK + PAD) + kk + (lane >> 4) * 8);
#pragma unroll
            for (int j = 0; j < NT; j += 2) {
                unsigned r[4];
                ldmatrix_x4_trans(r, b_stage + (kk + (lane & 15)) * (BN + PAD) + wn * WN + j * 8 + (lane >> 4) * 8);
                bf[j][0] = r[0]; bf[j][1] = r[1]; bf[j + 1][0] = r[2]; bf[j + 1][1] = r[3];
            }
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) mma_16x8x16<BF16>(acc[i][j], af[i], bf[j]);
        }
    }
    /* --8<-- [end:mma_loop] */
    cp_async_wait<0>();

    const int row0 = tile_m * BM + wm * WM + (lane >> 2);
    const int col0 = tile_n * BN + wn * WN + (lane & 3) * 2;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            const size_t at = (size_t)(row0 + i * 16) * N + col0 + j * 8;
            *reinterpret_cast<unsigned*>(C + at) = pack2<BF16>(acc[i][j][0], acc[i][j][1]);
            *reinterpret_cast<unsigned*>(C + at + (size_t)8 * N) = pack2<BF16>(acc[i][j][2], acc[i][j][3]);
        }
}

extern "C" __global__ void __launch_bounds__(256, 1)
hgemm_mma_128x256(const unsigned short* A, const unsigned short* B, unsigned short* C, int M, int N, int K)
{
    gemm_mma<128, 256, 2, 4, STAGES, false>(A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(128, 2)
hgemm_mma_128x128(const unsigned short* A, const unsigned short* B, unsigned short* C, int M, int N, int K)
{
    gemm_mma<128, 128, 2, 2, STAGES, false>(A, B, C, M, N, K);
}

extern "C" __global__ void __launch_bounds__(256, 1)
bgemm_mma_128x256(const unsigned short* A, const unsigned short* B, unsigned short* C, int M, int N, int K)
{
    gemm_mma<128, 256, 2, 4, STAGES, true>(A, B, C, M, N, K);
}
"""

WMMA_SOURCE = r"""
#include <mma.h>
""" + _ASYNC_COPY + r"""
#define BM 128
#define BN 128
#define BK 32
#define PAD 8

/* 128 x 128 tile of C per 8 warps (4 x 2), each warp 32 x 64 = 2 x 4 fragments of 16 x 16. */
extern "C" __global__ void __launch_bounds__(256, 1)
hgemm_wmma(const __half* __restrict__ A, const __half* __restrict__ B, __half* __restrict__ C, int M, int N, int K)
{
    using namespace nvcuda;
    constexpr int A_STAGE = BM * (BK + PAD), B_STAGE = BK * (BN + PAD);
    extern __shared__ __align__(16) unsigned short smem[];
    unsigned short* As = smem;
    unsigned short* Bs = smem + WMMA_STAGES * A_STAGE;
    int tile_m, tile_n;
    block_tile(M, N, BM, BN, tile_m, tile_n);
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int wm = warp / 2, wn = warp % 2;
    const int slices = K / BK;
    const unsigned short* a_global = reinterpret_cast<const unsigned short*>(A);
    const unsigned short* b_global = reinterpret_cast<const unsigned short*>(B);

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][4];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0f);

#pragma unroll
    for (int s = 0; s < WMMA_STAGES - 1; ++s) {
        if (s < slices) load_slices<BM, BN, BK, PAD, 256>(a_global, b_global, As + s * A_STAGE, Bs + s * B_STAGE, tile_m, tile_n, s * BK, N, K);
        cp_async_commit();
    }
    for (int t = 0; t < slices; ++t) {
        cp_async_wait<WMMA_STAGES - 2>();
        __syncthreads();
        const int next = t + WMMA_STAGES - 1;
        if (next < slices) {
            const int s = next % WMMA_STAGES;
            load_slices<BM, BN, BK, PAD, 256>(a_global, b_global, As + s * A_STAGE, Bs + s * B_STAGE, tile_m, tile_n, next * BK, N, K);
        }
        cp_async_commit();
        const __half* a_stage = reinterpret_cast<const __half*>(As + (t % WMMA_STAGES) * A_STAGE);
        const __half* b_stage = reinterpret_cast<const __half*>(Bs + (t % WMMA_STAGES) * B_STAGE);
#pragma unroll
        for (int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> af[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> bf[4];
#pragma unroll
            for (int i = 0; i < 2; ++i) wmma::load_matrix_sync(af[i], a_stage + (wm * 32 + i * 16) * (BK + PAD) + kk, BK + PAD);
#pragma unroll
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(bf[j], b_stage + kk * (BN + PAD) + wn * 64 + j * 16, BN + PAD);
#pragma unroll
            for (int i = 0; i < 2; ++i)
#pragma unroll
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], af[i], bf[j], acc[i][j]);
        }
    }
    cp_async_wait<0>();
    __syncthreads();   /* the stages are free: each warp stages its floats there, 16 x 64 at a time */

    float* scratch = reinterpret_cast<float*>(smem) + warp * 16 * 64;
#pragma unroll
    for (int i = 0; i < 2; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) wmma::store_matrix_sync(scratch + j * 16, acc[i][j], 64, wmma::mem_row_major);
        __syncwarp();
#pragma unroll
        for (int q = 0; q < 4; ++q) {
            const int c = lane + 32 * q, row = c / 8, col = (c % 8) * 8;
            __align__(16) __half h[8];
#pragma unroll
            for (int e = 0; e < 8; ++e) h[e] = __float2half_rn(scratch[row * 64 + col + e]);
            const size_t at = (size_t)(tile_m * BM + wm * 32 + i * 16 + row) * N + (size_t)tile_n * BN + wn * 64 + col;
            *reinterpret_cast<uint4*>(C + at) = *reinterpret_cast<const uint4*>(h);
        }
        __syncwarp();
    }
}
"""


@dataclass(frozen=True)
class Kernel:
    """One CUDA C kernel of this module: its source module, C tile per block, threads, shared memory."""

    name: str
    module: str
    tile_m: int
    tile_n: int
    threads: int
    dynamic_shared_bytes: int
    precision: str  # "fp32", "fp16" or "bf16": the inputs' and the output's type

    def grid(self, m: int, n: int, k: int) -> tuple[int]:
        """One block per tile of C, as a 1-D grid (the kernel orders the tiles itself); the sizes
        must be multiples of the tiles (no bounds checks in the kernels' inner loops)."""
        k_step = SIMT_BK if self.module == "simt" else MMA_BK
        if m % self.tile_m or n % self.tile_n or k % k_step:
            raise ValueError(f"{self.name} needs M a multiple of {self.tile_m}, N of {self.tile_n} and K of {k_step};"
                             f" got {m} x {n} x {k}")
        return ((m // self.tile_m) * (n // self.tile_n),)


def _mma_shared_bytes(bm: int, bn: int, stages: int) -> int:
    """Bytes of the stage buffers: stages x (BM x (BK + PAD) + BK x (BN + PAD)) 2-byte elements."""
    return stages * (bm * (MMA_BK + MMA_PAD) + MMA_BK * (bn + MMA_PAD)) * 2


KERNELS = {k.name: k for k in (
    Kernel("sgemm_regtile", "simt", SIMT_TILE, SIMT_TILE, SIMT_THREADS, 0, "fp32"),
    Kernel("sgemm_pipelined", "simt", SIMT_TILE, SIMT_TILE, SIMT_THREADS, 0, "fp32"),
    Kernel("hgemm_mma_128x256", "mma", 128, 256, 256, _mma_shared_bytes(128, 256, STAGES), "fp16"),
    Kernel("hgemm_mma_128x128", "mma", 128, 128, 128, _mma_shared_bytes(128, 128, STAGES), "fp16"),
    Kernel("bgemm_mma_128x256", "mma", 128, 256, 256, _mma_shared_bytes(128, 256, STAGES), "bf16"),
    Kernel("hgemm_wmma", "wmma", 128, 128, 256, _mma_shared_bytes(128, 128, WMMA_STAGES), "fp16"),
)}

SOURCES = {"simt": SIMT_SOURCE, "mma": MMA_SOURCE, "wmma": WMMA_SOURCE}


def options(module_name: str) -> tuple[str, ...]:
    """NVRTC options: line information for ncu's source view and the pipeline depth of the
    tensor-core modules. CuPy adds the device's own architecture (``-arch=sm_90`` on an H200)."""
    if module_name not in SOURCES:
        raise ValueError(f"no CUDA C module {module_name!r}: choose one of {', '.join(SOURCES)}")
    extra = {"simt": (), "mma": (f"-DSTAGES={STAGES}",), "wmma": (f"-DWMMA_STAGES={WMMA_STAGES}",)}[module_name]
    return ("-lineinfo", "-std=c++17", *extra)


@functools.cache
def module(module_name: str):
    """The compiled module (CuPy RawModule, NVRTC; needs a GPU and CuPy)."""
    import cupy

    return cupy.RawModule(code=SOURCES[module_name], options=options(module_name))


def function(name: str):
    """The kernel ``name``, with its dynamic shared-memory limit raised to what it asks for."""
    if name not in KERNELS:
        raise ValueError(f"no CUDA C GEMM kernel {name!r}: choose one of {', '.join(KERNELS)}")
    spec = KERNELS[name]
    kernel = module(spec.module).get_function(name)
    if spec.dynamic_shared_bytes > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = spec.dynamic_shared_bytes
    return kernel


def launch(name: str, a, b, c) -> None:
    """c = a @ b with the CUDA C kernel ``name`` (CuPy arrays, C-contiguous, the kernel's dtype)."""
    import numpy as np

    spec = KERNELS[name]
    m, k = a.shape
    k2, n = b.shape
    if k2 != k or c.shape != (m, n):
        raise ValueError(f"shapes do not chain: {a.shape} @ {b.shape} -> {c.shape}")
    function(name)(spec.grid(m, n, k), (spec.threads,), (a, b, c, np.int32(m), np.int32(n), np.int32(k)),
                   shared_mem=spec.dynamic_shared_bytes)
