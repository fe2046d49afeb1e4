"""Chapter 6's CUDA C matrix multiplies (CuPy ``RawModule``, compiled by NVRTC for the device's
own architecture, with ``-lineinfo``): the steps Numba cannot express.

C = A @ B, row-major, M x K times K x N; M, N, K multiples of the kernel's tiles (checked by the
host wrappers, :func:`launch`). Five modules, so that a header or a target missing on one machine
costs only the module that needs it:

``simt`` (FP32, no header):

- ``sgemm_regtile`` (step 3, the CUDA C twin of :func:`labkit.kernels.gemm_simt.gemm_regtile`,
  same index arithmetic): a 128 x 128 tile of C per block of 256 threads, 8 x 8 outputs per thread
  in registers (rows ty + 16 i, columns tx + 16 j), K in slices of 8; scalar global loads, one
  shared buffer, two barriers per slice. The A slice is stored k-major (``As[k][m]``), each row
  padded by 4 floats so that the lanes that store one column land in 32 different banks.
- ``sgemm_pipelined`` (step 4): the same tiling, with 16-byte accesses (``float4``: ``LDG.E.128``,
  ``LDS.128``, ``STS.128``) and two shared buffers: the next slice is loaded from global memory
  into registers while the current one is multiplied, then stored into the other buffer, one
  barrier per slice. Each thread's 8 rows are two groups of 4 (``ty*4`` and ``64 + ty*4``), and so
  are its 8 columns: a warp's 16-byte reads of a B row cover 256 consecutive bytes (two
  wavefronts, the least for 16 distinct vectors), where 8 consecutive columns per thread would put
  lanes 0 and 4 in the same banks.
- ``sgemm_warptile`` and ``sgemm_warptile_128x256`` (issue 33, not lab steps): the template
  ``sgemm_warptile`` (block tile -> warp tile -> thread tile), step 4's pipeline otherwise; 128 x 128
  with 32 x 64 warp tiles of 4 x 8 lanes, and 128 x 256 with 8 x 16 outputs per thread, one block
  per SM. Measured on the H200 (tests/gpu/simt_sgemm_check.py, two runs): 0.88-0.89 and 0.89-0.905
  of cuBLAS SGEMM at 4096^3 and 8192^3, where step 4 reads 0.91-0.93 in the same runs; the
  template's other options (fragment prefetch, a cp.async ring) were slower still.
- ``sgemm_cpasync_256x128`` and ``sgemm_cpasync_256x128_8x16`` (issue 33, not lab steps): the
  template ``sgemm_cpasync``, cuBLAS's tiling (256 x 128 x 8, 8 warps of 64 x 64, 128 outputs per
  thread: 16 x 8, or 8 x 16) fed by a ring of 3 or 4 cp.async stages (no staging registers; A
  transposed to k-major by 4-byte copies), the fragments of the next row of K read while this one is
  multiplied, one block per SM. Measured on the H200 (tests/gpu/simt_cpasync_check.py, each call
  timed beside a cuBLAS call): 0.952 / 0.958 and 0.954 / 0.962 of cuBLAS SGEMM at 4096^3 / 8192^3,
  where step 4 reads 0.913 / 0.923 in the same run. What it took: copies without a branch and with
  compile-time offsets (a first version, with both, ran at 0.79 / 0.80); the fragment prefetch
  (without it 0.83 / 0.84).

``mma`` (FP16 or BF16 inputs, FP32 accumulation, FP16 or BF16 output; no header, inline PTX):
the variants of ``gemm_mma`` (step 5b) that ``MMA_VARIANT`` declares: warp-level
``mma.sync.aligned.m16n8k16`` (``HMMA`` in SASS), fragments loaded from shared memory by
``ldmatrix`` (``.trans`` for B, which is stored as it lies in memory, n contiguous), slices of K
brought by ``cp.async`` (global to shared without registers) several stages deep, so that the
copies of later slices fly while this one is multiplied. Rows of the shared tiles are padded by 16
bytes, which puts the eight 16-byte rows an ``ldmatrix`` phase reads in eight different groups of
four banks. Blocks walk the tiles of C in groups of ``GROUP_M`` tile rows, so that the blocks
resident together share slices of A and B in L2. The variants differ by tile of C, slice of K,
warps per block (and so registers per thread) and stages.

``wmma`` (``#include <mma.h>``, from a CUDA toolkit's include folder, :func:`toolkit_include`):
``hgemm_wmma`` (step 5a, the API version): ``nvcuda::wmma`` 16 x 16 x 16 fragments, a 128 x 128
tile per block of 8 warps (each 32 x 64), the same ``cp.async`` pipeline; the accumulators go
through shared memory to be written as FP16 in 16-byte stores.

``wgmma`` (the ``sm_90a`` target, Hopper only): ``hgemm_wgmma_128x256`` (step 5d): two warpgroups,
each a 64 x 256 tile of C by ``wgmma.mma_async.m64n256k16`` (``HGMMA`` in SASS) reading both
operands from shared memory through descriptors; both K-major (for 16-bit inputs wgmma would also
take B N-major, imm-trans-b = 1: one swizzled layout to write keeps this kernel simple), so B is
given transposed (N x K);
slices of 64 along K in the 128-byte swizzled layout the descriptors name, four stages of
``cp.async`` (TMA, the copy engine, is what cuBLAS uses instead: the ``tma`` module).

``tma`` (``sm_90a``, Hopper only; issue 33): the same wgmma fed by the tensor memory accelerator.
The host encodes a tensor map per matrix (:mod:`labkit.kernels.tensor_maps`, the driver's
``cuTensorMapEncodeTiled``) and passes it by value as a ``__grid_constant__`` parameter (CuPy passes
a NumPy structured scalar by value, so no copy to global memory and no fence are needed); one
thread of a producer warpgroup issues ``cp.async.bulk.tensor.2d`` into 128-byte-swizzled stages,
tracked by full/empty ``mbarrier``s, for two consumer warpgroups (``setmaxnreg`` 40 / 232) that each
compute half of a 128 x 256 or 256 x 128 tile. Variants: one CTA per tile (lab 06's step 5e,
``tma_ws``); ``_persistent`` (one CTA per SM walking tiles in groups of 8 tile rows: step 5f);
``_cluster`` (persistent, pairs of CTAs sharing B by TMA multicast: correct, but 1.6 to 1.9 times
slower on the H200, its tensor pipe half as busy while L2 reads barely fall: chapter 6 and
tests/gpu/recorded/nvidia-h200/multicast/); ``_store`` (persistent, C staged in shared memory and written by the copy
engine while the warpgroup starts its next tile: steps 5g and 5h, ``tma`` and ``tma_bf16``). Each is
compiled alone (:func:`source`), as the lab asks for it.

Chapter 6 shows parts of these sources (the ``--8<--`` markers, comments to the compiler).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from labkit.kernels import tensor_maps

#: The SIMT kernels' tile of C, threads, slice of K and the A slice's padding; the mma kernels'
#: default slice of K and row padding. One place for the launch arithmetic of the host wrappers.
SIMT_TILE = 128
SIMT_THREADS = 256
SIMT_BK = 8
SIMT_A_PAD = 4
MMA_BK = 32
#: Padding of each shared row, in 2-byte elements (16 bytes).
MMA_PAD = 8
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

/* --8<-- [start:warptile] */
/* Warp tiling (issue 33, not yet a step): the block tile BM x BN is cut into WARPS_M x WARPS_N warp
   tiles, each warp tile into its 32 lanes' thread tiles, TM x TN outputs per thread as (TM/4) x (TN/4)
   sub-tiles of 4 x 4. The lanes of a warp form a (32/LN) x LN grid, so that per k a warp reads
   (32/LN) distinct float4 of A (each broadcast to LN lanes) and LN of B; step 4's layout is LN = 16
   (2 x 16 lanes, a warp tile of 16 x 128), LN = 8 the 32 x 64 warp tile of CUTLASS's SIMT GEMMs.
   Rows of lane (lm, ln) in warp (wm, wn): wm*WM + i*4*LM + lm*4 + {0..3}, i < TM/4 (WM = TM*LM);
   columns: wn*WN + j*4*LN + ln*4 + {0..3}, j < TN/4 (WN = TN*LN).
   Pipelines (the template's options, measured by tests/gpu/simt_sgemm_check.py): STAGES = 0 is step
   4's (two shared buffers, the next slice of K loaded into registers while this one is multiplied,
   A stored k-major, As[k][m], rows padded by SG_APAD floats); PREFETCH adds register double
   buffering of the fragments; STAGES > 0 replaces the staging registers by a ring of cp.async buffers.
   On the H200 none of them beat step 4 (records in tests/gpu/recorded/nvidia-h200/simt_sgemm*.json). */
__device__ __forceinline__ void cp_async_4(float* smem, const float* gmem)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"((unsigned)__cvta_generic_to_shared(smem)), "l"(gmem));
}
__device__ __forceinline__ void cp_async_16(float* smem, const float* gmem)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"((unsigned)__cvta_generic_to_shared(smem)), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N> __device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" :: "n"(N)); }

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int TM, int TN, int LN, bool PREFETCH = false, int STAGES = 0>
__device__ __forceinline__ void sgemm_warptile(const float* __restrict__ A, const float* __restrict__ B,
                                               float* __restrict__ C, int M, int N, int K)
{
    constexpr int LM = 32 / LN, WM = TM * LM, WN = TN * LN;
    constexpr int THREADS = 32 * WARPS_M * WARPS_N;
    static_assert(BM == WARPS_M * WM && BN == WARPS_N * WN, "the warp tiles must cover the block tile");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 4 == 0, "float4 accesses");
    constexpr int A_LOADS = BM * BK / 4 / THREADS, B_LOADS = BK * BN / 4 / THREADS;
    static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN, "whole float4 per thread");
    /* STAGES > 0: a ring of STAGES buffers filled by cp.async, A by 4-byte copies that transpose it
       (a warp's copy: 8 rows x 4 k, into As[k][m] with BM + 8 floats per row: banks 8k + m, distinct). */
    constexpr int NBUF = STAGES ? STAGES : 2, APAD = STAGES ? 8 : SG_APAD;
    static_assert(!STAGES || (BM % 32 == 0 && (BM * BK / 32) % (THREADS / 32) == 0), "whole 8 x 4 groups per warp");
    __shared__ __align__(16) float As[NBUF][BK][BM + APAD];
    __shared__ __align__(16) float Bs[NBUF][BK][BN];
    int tile_m, tile_n;
    block_tile(M, N, BM, BN, tile_m, tile_n);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int row0 = (warp / WARPS_N) * WM + (lane / LN) * 4;   /* first row of sub-tile 0 */
    const int col0 = (warp % WARPS_N) * WN + (lane % LN) * 4;
    const float* a_tile = A + (size_t)tile_m * BM * K;
    const float* b_tile = B + (size_t)tile_n * BN;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;
    float4 av[A_LOADS], bv[B_LOADS];   /* the next slice, on its way to shared memory */

    /* float4 f = tid + THREADS*l of the slice: A[f / (BK/4)][4 (f % (BK/4))..+3], B[f / (BN/4)][4 (f % (BN/4))..] */
    auto load = [&](int k0) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const int f = tid + THREADS * l;
            av[l] = *reinterpret_cast<const float4*>(a_tile + (size_t)(f / (BK / 4)) * K + k0 + (f % (BK / 4)) * 4);
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int f = tid + THREADS * l;
            bv[l] = *reinterpret_cast<const float4*>(b_tile + (size_t)(k0 + f / (BN / 4)) * N + (f % (BN / 4)) * 4);
        }
    };
    auto store = [&](int s) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            const int f = tid + THREADS * l, m = f / (BK / 4), k = (f % (BK / 4)) * 4;
            As[s][k][m] = av[l].x; As[s][k + 1][m] = av[l].y; As[s][k + 2][m] = av[l].z; As[s][k + 3][m] = av[l].w;
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int f = tid + THREADS * l;
            *reinterpret_cast<float4*>(&Bs[s][f / (BN / 4)][(f % (BN / 4)) * 4]) = bv[l];
        }
    };
    /* this thread's fragments of row k of buffer s: TM values of A, TN of B */
    auto fragments = [&](int s, int k, float (&a)[TM], float (&b)[TN]) {
#pragma unroll
        for (int i = 0; i < TM / 4; ++i) {
            const float4 v = *reinterpret_cast<const float4*>(&As[s][k][row0 + i * 4 * LM]);
            a[4 * i] = v.x; a[4 * i + 1] = v.y; a[4 * i + 2] = v.z; a[4 * i + 3] = v.w;
        }
#pragma unroll
        for (int j = 0; j < TN / 4; ++j) {
            const float4 v = *reinterpret_cast<const float4*>(&Bs[s][k][col0 + j * 4 * LN]);
            b[4 * j] = v.x; b[4 * j + 1] = v.y; b[4 * j + 2] = v.z; b[4 * j + 3] = v.w;
        }
    };
    auto outer = [&](const float (&a)[TM], const float (&b)[TN]) {
#pragma unroll
        for (int i = 0; i < TM; ++i)
#pragma unroll
            for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    };

    /* STAGES > 0: slice t's copies into buffer s: A's groups g = warp + (THREADS/32) l of 8 rows x
       4 k (rows 8 (g % (BM/8)) + lane / 4, k 4 (g / (BM/8)) + lane % 4), B's float4 as in load(). */
    auto copy = [&](int s, int k0) {
#pragma unroll
        for (int l = 0; l < BM * BK / THREADS; ++l) {
            const int g = warp + (THREADS / 32) * l;
            const int m = (g % (BM / 8)) * 8 + (lane >> 2), k = (g / (BM / 8)) * 4 + (lane & 3);
            cp_async_4(&As[s][k][m], a_tile + (size_t)m * K + k0 + k);
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            const int f = tid + THREADS * l;
            cp_async_16(&Bs[s][f / (BN / 4)][(f % (BN / 4)) * 4], b_tile + (size_t)(k0 + f / (BN / 4)) * N + (f % (BN / 4)) * 4);
        }
    };
    if (STAGES) {
        /* slice t in buffer t % STAGES; the copies of slice t + STAGES - 1 go into the buffer of
           slice t - 1, which every warp has left once past this iteration's barrier */
#pragma unroll
        for (int t = 0; t < NBUF - 1; ++t) {
            if (t * BK < K) copy(t, t * BK);
            cp_async_commit();
        }
        /* unrolled by NBUF, so that each buffer's shared addresses are constants */
        for (int k0 = 0; k0 < K; k0 += NBUF * BK) {
#pragma unroll
            for (int s = 0; s < NBUF; ++s) {
                const int kt = k0 + s * BK;
                if (kt < K) {
                    cp_async_wait<NBUF - 2>();
                    __syncthreads();
                    if (kt + (NBUF - 1) * BK < K) copy((s + NBUF - 1) % NBUF, kt + (NBUF - 1) * BK);
                    cp_async_commit();
#pragma unroll
                    for (int k = 0; k < BK; ++k) {
                        float a[TM], b[TN];
                        fragments(s, k, a, b);
                        outer(a, b);
                    }
                }
            }
        }
    } else if (!PREFETCH) {
        load(0);
        store(0);
        __syncthreads();
        int s = 0;
        for (int k0 = 0; k0 < K; k0 += BK) {
            const bool more = k0 + BK < K;
            if (more) load(k0 + BK);
#pragma unroll
            for (int k = 0; k < BK; ++k) {
                float a[TM], b[TN];
                fragments(s, k, a, b);
                outer(a, b);
            }
            if (more) store(s ^ 1);
            __syncthreads();
            s ^= 1;
        }
    } else {
        /* PREFETCH: the fragments of row k + 1 are read while row k is multiplied, two register sets;
           the next slice is stored and the barrier passed before the last row's FMAs, so that the
           first fragments of the next slice are on their way while those run. */
        load(0);
        store(0);
        __syncthreads();
        int s = 0;
        float a[2][TM], b[2][TN];
        fragments(0, 0, a[0], b[0]);
        for (int k0 = 0; k0 < K; k0 += BK) {
            const bool more = k0 + BK < K;
            if (more) load(k0 + BK);
#pragma unroll
            for (int k = 0; k < BK; ++k) {
                if (k < BK - 1) {
                    fragments(s, k + 1, a[(k + 1) & 1], b[(k + 1) & 1]);
                } else if (more) {
                    store(s ^ 1);   /* nobody reads buffer s ^ 1 since the previous barrier */
                    __syncthreads();
                    fragments(s ^ 1, 0, a[(k + 1) & 1], b[(k + 1) & 1]);
                }
                outer(a[k & 1], b[k & 1]);
            }
            s ^= 1;
        }
    }

    float* c_tile = C + (size_t)tile_m * BM * N + (size_t)tile_n * BN;
#pragma unroll
    for (int i = 0; i < TM; ++i) {
        const int row = row0 + (i / 4) * 4 * LM + i % 4;
#pragma unroll
        for (int j = 0; j < TN / 4; ++j)
            *reinterpret_cast<float4*>(c_tile + (size_t)row * N + col0 + j * 4 * LN) =
                make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
    }
}
/* --8<-- [end:warptile] */

/* 128 x 128 x 8, 4 x 2 warps of 32 x 64, 8 x 8 per thread, lanes 4 x 8: warp tiling alone. */
extern "C" __global__ void __launch_bounds__(256, 2)
sgemm_warptile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    sgemm_warptile<128, 128, 8, 4, 2, 8, 8, 8>(A, B, C, M, N, K);
}

/* 128 x 256 x 8, 4 x 2 warps of 32 x 128, 8 x 16 per thread, lanes 4 x 8; one block per SM (~228
   registers a thread): the fastest instantiation measured (0.89-0.905 of cuBLAS, below step 4). */
extern "C" __global__ void __launch_bounds__(256, 1)
sgemm_warptile_128x256(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    sgemm_warptile<128, 256, 8, 4, 2, 8, 16, 8>(A, B, C, M, N, K);
}

/* --8<-- [start:cpasync] */
/* Multistage cp.async SIMT SGEMM (issue 33, not a lab step; cuBLAS's own SIMT kernel on the H200 is
   256 x 128 x 8, three stages, 8 warps of 64 x 64, 16 x 8 outputs per thread). No staging registers:
   slices of K are copied global -> shared by cp.async into a ring of STAGES buffers (dynamic shared
   memory), the copies of slice t + STAGES - 1 issued while slice t is multiplied. Lanes form an
   LM x (32/LM) grid; a thread's columns are wn*WN + ln*4 + j*4*LN + {0..3}.
   The copies are unconditional (past the last slice they copy it again, into the buffer nobody reads
   any more) and their addresses are a per-thread base plus offsets known at compile time (rows of A
   and B times the uniform K or N): a branch around them, or addresses recomputed for want of
   registers, put ~85 instructions in one burst in the middle of the FMAs (seen in the SASS).
   A k-major (AROW = false): As[k][m], rows of BM + 4 floats, filled by 4-byte copies (a warp's copy
   is 4 rows x 8 k: 32-byte pieces of global rows, shared banks 4k + m, all distinct); thread rows
   wm*WM + lm*4 + i*4*LM + {0..3}, read as float4 per k. PF: the fragments of row k + 1 are read
   while row k is multiplied, and the wait and barrier for the next slice come before the last row's
   FMAs; without PF, one wait and barrier at the top of each slice.
   A row-major (AROW = true): As[m][k], rows of BK floats (BK + 4 when BK > 8), filled by 16-byte
   copies; thread rows wm*WM + lm + LM*i (a warp's LM distinct rows per read are consecutive: one
   wavefront), each read as a float4 of 4 k, multiplied with the 4 rows of B of those k. */
__device__ __forceinline__ void cp_async_4s(unsigned smem, const float* gmem)
{
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" :: "r"(smem), "l"(gmem));
}
__device__ __forceinline__ void cp_async_16s(unsigned smem, const float* gmem)
{
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(smem), "l"(gmem));
}

template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int TM, int TN, int LM, int STAGES, bool AROW, bool PF = true>
__device__ __forceinline__ void sgemm_cpasync(const float* __restrict__ A, const float* __restrict__ B,
                                              float* __restrict__ C, int M, int N, int K)
{
    constexpr int LN = 32 / LM, WM = TM * LM, WN = TN * LN;
    constexpr int NW = WARPS_M * WARPS_N, THREADS = 32 * NW;
    static_assert(BM == WARPS_M * WM && BN == WARPS_N * WN, "the warp tiles must cover the block tile");
    static_assert(TM % 4 == 0 && TN % 4 == 0 && BK % 8 == 0 && STAGES >= 2, "float4 accesses, 4 x 8 copy groups");
    static_assert((BM * BK) % (4 * THREADS) == 0 && (BK * BN) % (4 * THREADS) == 0 && (BM * BK) % THREADS == 0,
                  "whole copies per thread");
    static_assert((BM / 4) % NW == 0 && THREADS % (BK / 4) == 0 && THREADS % (BN / 4) == 0,
                  "copy offsets known at compile time");
    constexpr int A_LD = AROW ? (BK == 8 ? 8 : BK + 4) : BM + 4;   /* floats per row of the A buffer */
    constexpr int A_STAGE = AROW ? BM * A_LD : BK * A_LD, B_STAGE = BK * BN;
    extern __shared__ __align__(16) float cp_smem[];
    float* const As = cp_smem;
    float* const Bs = cp_smem + STAGES * A_STAGE;
    int tile_m, tile_n;
    block_tile(M, N, BM, BN, tile_m, tile_n);
    const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
    const int lm = lane / LN, ln = lane % LN;
    const int wrow = (warp / WARPS_N) * WM, col0 = (warp % WARPS_N) * WN + ln * 4;
    float acc[TM][TN];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

    /* this thread's first copy: A element (a_m, a_k) of the slice into shared float a_dst; B float4 (b_r, b_c) */
    const int a_m = AROW ? tid / (BK / 4) : warp * 4 + (lane >> 3);
    const int a_k = AROW ? (tid % (BK / 4)) * 4 : lane & 7;
    const int b_r = tid / (BN / 4), b_c = (tid % (BN / 4)) * 4;
    const float* a_src = A + (size_t)(tile_m * BM + a_m) * K + a_k;
    const float* b_src = B + (size_t)b_r * N + (size_t)tile_n * BN + b_c;
    const unsigned a_dst = (unsigned)__cvta_generic_to_shared(As) + 4u * (AROW ? a_m * A_LD + a_k : a_k * A_LD + a_m);
    const unsigned b_dst = (unsigned)__cvta_generic_to_shared(Bs) + 4u * (b_r * BN + b_c);
    const int KT = K / BK;
    auto copy = [&](int s, int t) {
        const int k0 = min(t, KT - 1) * BK;
        const float* a = a_src + k0;
        const float* b = b_src + (size_t)k0 * N;
        const unsigned as = a_dst + 4u * s * A_STAGE, bs = b_dst + 4u * s * B_STAGE;
        if (AROW) {
#pragma unroll
            for (int l = 0; l < BM * BK / 4 / THREADS; ++l) {
                constexpr int ROWS = THREADS / (BK / 4);
                cp_async_16s(as + 4u * l * ROWS * A_LD, a + (size_t)(l * ROWS) * K);
            }
        } else {
#pragma unroll
            for (int l = 0; l < BM * BK / THREADS; ++l) {
                const int rows = (NW * l) % (BM / 4) * 4, ks = (NW * l) / (BM / 4) * 8;   /* constants */
                cp_async_4s(as + 4u * (ks * A_LD + rows), a + ks + (size_t)rows * K);
            }
        }
#pragma unroll
        for (int l = 0; l < BK * BN / 4 / THREADS; ++l) {
            constexpr int ROWS = THREADS / (BN / 4);
            cp_async_16s(bs + 4u * l * ROWS * BN, b + (size_t)(l * ROWS) * N);
        }
    };
#pragma unroll
    for (int t = 0; t < STAGES - 1; ++t) {
        copy(t, t);
        cp_async_commit();
    }
    int s_read = 0, s_write = STAGES - 1;

    if (!AROW) {
        const int row0 = wrow + lm * 4;
        float a[2][TM], b[2][TN];
        auto fragments = [&](int s, int k, float (&af)[TM], float (&bf)[TN]) {
            const float* as = As + s * A_STAGE + k * A_LD + row0;
            const float* bs = Bs + s * B_STAGE + k * BN + col0;
#pragma unroll
            for (int i = 0; i < TM / 4; ++i) {
                const float4 v = *reinterpret_cast<const float4*>(as + i * 4 * LM);
                af[4 * i] = v.x; af[4 * i + 1] = v.y; af[4 * i + 2] = v.z; af[4 * i + 3] = v.w;
            }
#pragma unroll
            for (int j = 0; j < TN / 4; ++j) {
                const float4 v = *reinterpret_cast<const float4*>(bs + j * 4 * LN);
                bf[4 * j] = v.x; bf[4 * j + 1] = v.y; bf[4 * j + 2] = v.z; bf[4 * j + 3] = v.w;
            }
        };
        if (PF) {
            cp_async_wait<STAGES - 2>();
            __syncthreads();
            fragments(0, 0, a[0], b[0]);
        }
        for (int t = 0; t < KT; ++t) {
            if (!PF) {
                cp_async_wait<STAGES - 2>();
                __syncthreads();     /* slice t is in; every warp is done with slice t - 1 */
                copy(s_write, t + STAGES - 1);
                cp_async_commit();
                s_write = s_write == STAGES - 1 ? 0 : s_write + 1;
            }
#pragma unroll
            for (int k = 0; k < BK; ++k) {
                if (PF) {
                    if (k == BK - 1) {   /* slice t + 1 is in; every warp is past its reads of slice t - 1 */
                        cp_async_wait<STAGES - 2>();
                        __syncthreads();
                        s_read = s_read == STAGES - 1 ? 0 : s_read + 1;
                    }
                    fragments(s_read, (k + 1) % BK, a[(k + 1) & 1], b[(k + 1) & 1]);
                    if (k == 0) {        /* into the buffer of slice t - 1 */
                        copy(s_write, t + STAGES - 1);
                        cp_async_commit();
                        s_write = s_write == STAGES - 1 ? 0 : s_write + 1;
                    }
                } else {
                    fragments(s_read, k, a[k & 1], b[k & 1]);
                }
#pragma unroll
                for (int i = 0; i < TM; ++i)
#pragma unroll
                    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[k & 1][i], b[k & 1][j], acc[i][j]);
            }
            if (!PF) s_read = s_read == STAGES - 1 ? 0 : s_read + 1;
        }
        float* c_tile = C + (size_t)tile_m * BM * N + (size_t)tile_n * BN;
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = row0 + (i / 4) * 4 * LM + i % 4;
#pragma unroll
            for (int j = 0; j < TN / 4; ++j)
                *reinterpret_cast<float4*>(c_tile + (size_t)row * N + col0 + j * 4 * LN) =
                    make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
        }
    } else {
        const int row0 = wrow + lm;
        for (int t = 0; t < KT; ++t) {
            cp_async_wait<STAGES - 2>();
            __syncthreads();         /* slice t is in; every warp is done with slice t - 1 */
            copy(s_write, t + STAGES - 1);
            cp_async_commit();
            s_write = s_write == STAGES - 1 ? 0 : s_write + 1;
            const float* as = As + s_read * A_STAGE + row0 * A_LD;
            const float* bs = Bs + s_read * B_STAGE + col0;
            s_read = s_read == STAGES - 1 ? 0 : s_read + 1;
#pragma unroll
            for (int kc = 0; kc < BK / 4; ++kc) {
                float b[4][TN];
#pragma unroll
                for (int kk = 0; kk < 4; ++kk)
#pragma unroll
                    for (int j = 0; j < TN / 4; ++j) {
                        const float4 v = *reinterpret_cast<const float4*>(bs + (kc * 4 + kk) * BN + j * 4 * LN);
                        b[kk][4 * j] = v.x; b[kk][4 * j + 1] = v.y; b[kk][4 * j + 2] = v.z; b[kk][4 * j + 3] = v.w;
                    }
#pragma unroll
                for (int i = 0; i < TM; ++i) {
                    const float4 v = *reinterpret_cast<const float4*>(as + i * LM * A_LD + kc * 4);
                    const float a4[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
                    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
                        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a4[kk], b[kk][j], acc[i][j]);
                }
            }
        }
        float* c_tile = C + (size_t)tile_m * BM * N + (size_t)tile_n * BN;
#pragma unroll
        for (int i = 0; i < TM; ++i) {
            const int row = row0 + i * LM;
#pragma unroll
            for (int j = 0; j < TN / 4; ++j)
                *reinterpret_cast<float4*>(c_tile + (size_t)row * N + col0 + j * 4 * LN) =
                    make_float4(acc[i][4 * j], acc[i][4 * j + 1], acc[i][4 * j + 2], acc[i][4 * j + 3]);
        }
    }
}
/* --8<-- [end:cpasync] */

/* 256 x 128 x 8, three stages, 4 x 2 warps of 64 x 64, 16 x 8 per thread, lanes 4 x 8, A k-major:
   cuBLAS's tiling. */
extern "C" __global__ void __launch_bounds__(256, 1)
sgemm_cpasync_256x128(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    sgemm_cpasync<256, 128, 8, 4, 2, 16, 8, 4, 3, false>(A, B, C, M, N, K);
}

/* 256 x 128 x 8, four stages, 4 x 2 warps of 64 x 64, 8 x 16 per thread, lanes 8 x 4, A k-major:
   the fastest instantiation measured (candidate cp_256x128_8x16_s4 of tests/gpu/simt_cpasync_check.py). */
extern "C" __global__ void __launch_bounds__(256, 1)
sgemm_cpasync_256x128_8x16(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N, int K)
{
    sgemm_cpasync<256, 128, 8, 4, 2, 8, 16, 8, 4, false>(A, B, C, M, N, K);
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
    static_assert((BM * BK / 8) % THREADS == 0 && (BK * BN / 8) % THREADS == 0, "whole 16-byte chunks per thread");
    const int tid = threadIdx.x;
#pragma unroll
    for (int i = 0; i < BM * BK / 8 / THREADS; ++i) {
        const int c = tid + i * THREADS;
        const int row = c / (BK / 8), col = (c % (BK / 8)) * 8;
        cp_async_16(As + row * (BK + PAD) + col, A + (size_t)(tile_m * BM + row) * K + k0 + col);
    }
#pragma unroll
    for (int i = 0; i < BK * BN / 8 / THREADS; ++i) {
        const int c = tid + i * THREADS;
        const int row = c / (BN / 8), col = (c % (BN / 8)) * 8;
        cp_async_16(Bs + row * (BN + PAD) + col, B + (size_t)(k0 + row) * N + (size_t)tile_n * BN + col);
    }
}
"""

MMA_SOURCE = _ASYNC_COPY + r"""
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
template <int BM, int BN, int BK, int WARPS_M, int WARPS_N, int DEPTH, bool BF16>
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

/* The variants: tile of C, slice of K, warps (M x N), stages; the name says the tile and, where it
   differs from 32, the slice. MMA_VARIANT(name, BM, BN, BK, WARPS_M, WARPS_N, DEPTH, BF16, BLOCKS_PER_SM). */
#define MMA_VARIANT(NAME, BM_, BN_, BK_, WM_, WN_, D_, BF16_, MIN_BLOCKS)                                   \
extern "C" __global__ void __launch_bounds__(WM_ * WN_ * 32, MIN_BLOCKS)                                    \
NAME(const unsigned short* A, const unsigned short* B, unsigned short* C, int M, int N, int K)              \
{                                                                                                           \
    gemm_mma<BM_, BN_, BK_, WM_, WN_, D_, BF16_>(A, B, C, M, N, K);                                         \
}

MMA_VARIANT(hgemm_mma_128x128, 128, 128, 32, 2, 2, 4, false, 2)
MMA_VARIANT(hgemm_mma_128x128_w8, 128, 128, 32, 2, 4, 4, false, 2)
MMA_VARIANT(hgemm_mma_128x128_k64, 128, 128, 64, 2, 2, 3, false, 2)
MMA_VARIANT(hgemm_mma_128x256, 128, 256, 32, 2, 4, 4, false, 1)
MMA_VARIANT(hgemm_mma_128x256_k64, 128, 256, 64, 2, 4, 3, false, 1)
MMA_VARIANT(hgemm_mma_256x128, 256, 128, 32, 4, 2, 4, false, 1)
MMA_VARIANT(hgemm_mma_256x128_w16, 256, 128, 32, 4, 4, 3, false, 1)
MMA_VARIANT(bgemm_mma_128x128, 128, 128, 32, 2, 2, 4, true, 2)
MMA_VARIANT(bgemm_mma_128x128_w8, 128, 128, 32, 2, 4, 4, true, 2)
MMA_VARIANT(bgemm_mma_128x256, 128, 256, 32, 2, 4, 4, true, 1)
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


def _wgmma_instruction(n: int, precision: str) -> str:
    """The inline PTX of one ``wgmma.mma_async.m64n{n}k16`` with FP32 accumulators d[0..n/2-1]
    (read and written), A and B from shared-memory descriptors, both K-major."""
    regs = n // 2
    outs = ", ".join(f"%{i}" for i in range(regs))
    constraints = ", ".join(f'"+f"(d[{i}])' for i in range(regs))
    kind = "f16" if precision == "fp16" else "bf16"
    return (f'asm volatile("{{\\n.reg .pred p;\\nsetp.ne.b32 p, %{regs + 2}, 0;\\n"\n'
            f'    "wgmma.mma_async.sync.aligned.m64n{n}k16.f32.{kind}.{kind} {{{outs}}}, %{regs}, %{regs + 1}, p, 1, 1, 0, 0;\\n}}\\n"\n'
            f'    : {constraints}\n'
            f'    : "l"(desc_a), "l"(desc_b), "r"(1));')


#: wgmma's 64-bit shared-memory matrix descriptor for a K-major slice in the 128-byte swizzle (rows of
#: 128 bytes, 8-row atoms of 1024 bytes): one C definition for the wgmma and tma modules.
_SMEM_DESCRIPTOR = r"""__device__ __forceinline__ unsigned long long smem_descriptor(unsigned addr)
{
    unsigned long long d = 0;
    d |= (unsigned long long)((addr & 0x3FFFF) >> 4);      /* start address, 16-byte units */
    d |= (unsigned long long)1 << 16;                       /* leading byte offset: unused here */
    d |= (unsigned long long)(1024 >> 4) << 32;             /* stride byte offset: 8 rows of 128 B */
    d |= (unsigned long long)1 << 62;                       /* 128-byte swizzle */
    return d;
}
"""

#: Step 5d (Hopper's own instruction): the wgmma kernel's tile of C, slice of K, stages.
WG_BM, WG_BN, WG_BK, WG_STAGES = 128, 256, 64, 4

WGMMA_SOURCE = _ASYNC_COPY + r"""
/* Hopper's wgmma (sm_90a): a warpgroup (4 consecutive warps) multiplies a 64 x N tile of A by an
   N x 16 tile of B straight from shared memory, described by 64-bit descriptors. Both operands are
   K-major: A row-major (M x K) and B given TRANSPOSED (Bt, N x K). Each slice of 64 along K lies in
   shared memory as rows of 128 bytes, 16-byte chunk c of row r stored at chunk c ^ (r % 8) (the
   128-byte swizzle that wgmma's descriptors name), 8 rows (1024 bytes) per swizzle atom. */
#define WG_BM 128
#define WG_BN 256
#define WG_BK 64
#define WG_STAGES 4
#define WG_THREADS 256

""" + _SMEM_DESCRIPTOR + r"""
/* rows x 64 halves of a K-major matrix (row stride K) into a swizzled slice at `base` (shared address). */
template <int ROWS>
__device__ __forceinline__ void load_swizzled(const unsigned short* src, int K, int k0, unsigned base)
{
#pragma unroll
    for (int i = 0; i < ROWS * 8 / WG_THREADS; ++i) {
        const int c = threadIdx.x + i * WG_THREADS;
        const int row = c >> 3, chunk = c & 7;
        const unsigned dst = base + row * 128 + ((chunk ^ (row & 7)) << 4);
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" :: "r"(dst), "l"(src + (size_t)row * K + k0 + chunk * 8));
    }
}

template <bool BF16>
__device__ __forceinline__ void gemm_wgmma(const unsigned short* __restrict__ A, const unsigned short* __restrict__ Bt,
                                           unsigned short* __restrict__ C, int M, int N, int K)
{
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    const unsigned raw = (unsigned)__cvta_generic_to_shared(smem_raw);
    const unsigned base = (raw + 1023) & ~1023u;            /* swizzle atoms on 1024-byte boundaries */
    constexpr unsigned A_BYTES = WG_BM * 128, B_BYTES = WG_BN * 128, STAGE_BYTES = A_BYTES + B_BYTES;
    int tile_m, tile_n;
    block_tile(M, N, WG_BM, WG_BN, tile_m, tile_n);
    const int warpgroup = threadIdx.x >> 7;
    const int lane = threadIdx.x & 31, warp = (threadIdx.x >> 5) & 3;
    const unsigned short* a_rows = A + (size_t)tile_m * WG_BM * K;
    const unsigned short* b_rows = Bt + (size_t)tile_n * WG_BN * K;
    const int slices = K / WG_BK;

    float d[WG_BN / 2];
#pragma unroll
    for (int i = 0; i < WG_BN / 2; ++i) d[i] = 0.0f;

#pragma unroll
    for (int s = 0; s < WG_STAGES - 1; ++s) {
        if (s < slices) {
            load_swizzled<WG_BM>(a_rows, K, s * WG_BK, base + s * STAGE_BYTES);
            load_swizzled<WG_BN>(b_rows, K, s * WG_BK, base + s * STAGE_BYTES + A_BYTES);
        }
        cp_async_commit();
    }
    for (int t = 0; t < slices; ++t) {
        cp_async_wait<WG_STAGES - 2>();
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");   /* cp.async writes -> wgmma reads */
        __syncthreads();
        const int next = t + WG_STAGES - 1;
        if (next < slices) {
            const unsigned stage = base + (next % WG_STAGES) * STAGE_BYTES;
            load_swizzled<WG_BM>(a_rows, K, next * WG_BK, stage);
            load_swizzled<WG_BN>(b_rows, K, next * WG_BK, stage + A_BYTES);
        }
        cp_async_commit();
        const unsigned stage = base + (t % WG_STAGES) * STAGE_BYTES;
        const unsigned long long a0 = smem_descriptor(stage + warpgroup * 64 * 128);
        const unsigned long long b0 = smem_descriptor(stage + A_BYTES);
        asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
        for (int kk = 0; kk < WG_BK / 16; ++kk) {
            const unsigned long long desc_a = a0 + 2 * kk, desc_b = b0 + 2 * kk;   /* +32 bytes per 16 of K */
            if (BF16) {
                WGMMA_BF16
            } else {
                WGMMA_F16
            }
        }
        asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    }
    cp_async_wait<0>();

    /* d[4j + {0,1}]: row warp*16 + lane/4, columns 8j + 2 (lane % 4) + {0,1}; d[4j + {2,3}]: 8 rows below. */
    const int row0 = tile_m * WG_BM + warpgroup * 64 + warp * 16 + (lane >> 2);
    const int col0 = tile_n * WG_BN + (lane & 3) * 2;
#pragma unroll
    for (int j = 0; j < WG_BN / 8; ++j) {
        const size_t at = (size_t)row0 * N + col0 + 8 * j;
        unsigned lo, hi;
        if (BF16) {
            asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(d[4 * j + 1]), "f"(d[4 * j]));
            asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(hi) : "f"(d[4 * j + 3]), "f"(d[4 * j + 2]));
        } else {
            asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(d[4 * j + 1]), "f"(d[4 * j]));
            asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(hi) : "f"(d[4 * j + 3]), "f"(d[4 * j + 2]));
        }
        *reinterpret_cast<unsigned*>(C + at) = lo;
        *reinterpret_cast<unsigned*>(C + at + (size_t)8 * N) = hi;
    }
}

extern "C" __global__ void __launch_bounds__(WG_THREADS, 1)
hgemm_wgmma_128x256(const unsigned short* A, const unsigned short* Bt, unsigned short* C, int M, int N, int K)
{
    gemm_wgmma<false>(A, Bt, C, M, N, K);
}
""".replace("WGMMA_F16", _wgmma_instruction(256, "fp16")).replace("WGMMA_BF16", _wgmma_instruction(256, "bf16"))


#: The TMA kernels' slice of K (128 bytes of 16-bit elements: one swizzle row), stages of the ring,
#: threads (a producer warpgroup and two consumer warpgroups).
TM_BK, TM_STAGES, TM_THREADS = 64, 4, 384
#: The TMA store's box of C (64 x 64: 128-byte rows, the swizzle's span) and its staging per
#: consumer warpgroup, two boxes.
TM_STORE_BOX = 64
TM_STAGING_BYTES = 2 * TM_STORE_BOX * TM_STORE_BOX * 2

TMA_SOURCE = r"""
/* Hopper's tensor memory accelerator (TMA) feeding wgmma (sm_90a). The host encodes one tensor map
   per operand (labkit.kernels.tensor_maps: A M x K and Bt N x K, both K-major, boxes of 64 along K
   by the tile's rows, 128-byte swizzle) and passes each by value, as a __grid_constant__ parameter
   (128 bytes, well inside the 4 KiB of parameters; the copy engine reads it from the parameter
   space, so no copy to global memory and no fence are needed). One thread issues
   cp.async.bulk.tensor.2d: the copy engine brings a whole box into shared memory, in the swizzled
   layout the wgmma descriptors name, and counts its bytes on an mbarrier of that stage.

   Warp specialisation: warpgroup 0 is the producer (one thread issues the copies; setmaxnreg.dec
   gives its registers back), warpgroups 1 and 2 the consumers (setmaxnreg.inc: 232 registers each,
   for 128 FP32 accumulators), each computing BM/2 rows of the BM x BN tile of C. A ring of STAGES
   slices: full[s] completes when the copy engine has written stage s (expect_tx bytes), empty[s]
   when the 8 consumer warps have finished reading it. Each barrier's phase flips each time it
   completes: the waiter on pass p waits for parity p & 1 (the producer's first pass waits for the
   parity of the phase before the first, which counts as complete).

   Tiles: CTA b computes tiles b, b + gridDim.x, ... in the order of tile_of (groups of GROUP rows
   walked column by column, for L2): gridDim.x = tiles launches one CTA per tile, gridDim.x = SMs
   makes the grid persistent (the producer starts the next tile's slices while the consumers store
   the last one). */
#define TM_BK 64
#define TM_STAGES 4
#define TM_THREADS 384

struct alignas(64) TensorMap { unsigned long long opaque[16]; };

__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void mbar_init(unsigned bar, unsigned count)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" :: "r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(unsigned bar, unsigned bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" :: "r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(unsigned bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void mbar_wait(unsigned bar, unsigned parity)
{
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    } while (!done);
}
/* The box at (c0 along K, c1 along the rows) of `map` into shared memory at dst; its bytes count on bar. */
__device__ __forceinline__ void tma_load_2d(unsigned dst, const TensorMap* map, int c0, int c1, unsigned bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];\n"
                 :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar) : "memory");
}

""" + _SMEM_DESCRIPTOR + r"""
template <bool BF16> __device__ __forceinline__ void wgmma_n256(float (&d)[128], unsigned long long desc_a, unsigned long long desc_b)
{
    if (BF16) {
        WGMMA256_BF16
    } else {
        WGMMA256_F16
    }
}
template <bool BF16> __device__ __forceinline__ void wgmma_n128(float (&d)[64], unsigned long long desc_a, unsigned long long desc_b)
{
    if (BF16) {
        WGMMA128_BF16
    } else {
        WGMMA128_F16
    }
}
template <int N, bool BF16> __device__ __forceinline__ void wgmma_n(float (&d)[N / 2], unsigned long long a, unsigned long long b)
{
    if constexpr (N == 256) wgmma_n256<BF16>(d, a, b); else wgmma_n128<BF16>(d, a, b);
}

template <int GROUP>
__device__ __forceinline__ void tile_of(int t, int tiles_m, int tiles_n, int& tile_m, int& tile_n)
{
    const int per_group = GROUP * tiles_n;
    const int first_m = (t / per_group) * GROUP;
    const int rows = min(tiles_m - first_m, GROUP);
    tile_m = first_m + (t % per_group) % rows;
    tile_n = (t % per_group) / rows;
}

__device__ __forceinline__ unsigned cluster_rank()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
    return r;
}
/* Every thread of the cluster's CTAs: what each did to shared memory before is seen after. */
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
/* One arrival on the mbarrier at `bar` (a shared::cta address) of CTA `rank` of the cluster. */
__device__ __forceinline__ void mbar_arrive_cluster(unsigned bar, unsigned rank)
{
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.release.cluster.shared::cluster.b64 _, [remote];\n}\n" :: "r"(bar), "r"(rank) : "memory");
}
/* The box at (c0, c1) of `map` into shared memory at offset dst of every CTA of `mask`, each
   counting the bytes on its own mbarrier at offset bar. */
__device__ __forceinline__ void tma_load_2d_multicast(unsigned dst, const TensorMap* map, int c0, int c1, unsigned bar,
                                                      unsigned short mask)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
                 " [%0], [%1, {%2, %3}], [%4], %5;\n"
                 :: "r"(dst), "l"(map), "r"(c0), "r"(c1), "r"(bar), "h"(mask) : "memory");
}

/* The 64 x 64 box at smem (128-byte swizzled rows) to (c0 along N, c1 along M) of `map`, by the
   copy engine: one bulk group per call site's commit; wait_read waits until the engine has read
   every committed group's shared memory (the staging buffer may then be written again). */
__device__ __forceinline__ void tma_store_2d(const TensorMap* map, unsigned smem, int c0, int c1)
{
    asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];\n"
                 :: "l"(map), "r"(c0), "r"(c1), "r"(smem) : "memory");
}
__device__ __forceinline__ void tma_store_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void tma_store_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
__device__ __forceinline__ void tma_store_wait_all() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }
/* The 128 threads of consumer warpgroup c (named barrier 1 + c; barrier 0 is __syncthreads). */
__device__ __forceinline__ void consumer_sync(int c) { asm volatile("bar.sync %0, 128;\n" :: "r"(c + 1) : "memory"); }

/* CM = 1: one CTA per work item. CM = 2: clusters of two CTAs on tiles (2i, j) and (2i + 1, j) of C,
   which read the same slices of Bt: each CTA's producer brings half of the B slice (BN/2 rows,
   the tensor map's box) and multicasts it into both CTAs' stage s, so that L2 serves each B
   slice once per pair. A stage may then be overwritten only when the consumers of both CTAs are
   done with it: empty[s] counts the 8 consumer warps of each CTA of the cluster (each warp
   arrives on both CTAs' barriers), and full[s] expects the whole stage, half of B written by the
   other CTA's copy. */
template <int BM, int BN, int STAGES, int GROUP, int CM, bool BF16, bool TMA_STORE>
__device__ __forceinline__ void gemm_tma_ws(const TensorMap* map_a, const TensorMap* map_b, const TensorMap* map_c,
                                            unsigned short* __restrict__ C, int M, int N, int K)
{
    constexpr int CONSUMERS = 2, WM = BM / CONSUMERS, MT = WM / 64;
    static_assert(WM % 64 == 0 && (BN == 128 || BN == 256) && (CM == 1 || CM == 2), "m64 wgmma tiles, n = 128 or 256");
    constexpr unsigned A_BYTES = BM * 128, B_BYTES = BN * 128, STAGE_BYTES = A_BYTES + B_BYTES;
    constexpr int B_ROWS = BN / CM;                                  /* rows of the B slice this CTA copies */
    extern __shared__ __align__(1024) unsigned char smem_raw[];
    __shared__ __align__(8) unsigned long long bars[2 * STAGES];   /* full[0..STAGES), empty[0..STAGES) */
    const unsigned base = (smem_u32(smem_raw) + 1023) & ~1023u;    /* swizzle atoms on 1024-byte boundaries */
    const unsigned full0 = smem_u32(bars), empty0 = full0 + 8 * STAGES;
    /* TMA_STORE: after the stages, each consumer's staging buffer of 2 boxes of 64 x 64 (16 KiB) */
    const unsigned staging0 = base + STAGES * STAGE_BYTES;
    const int tiles_m = M / BM, tiles_n = N / BN, items = tiles_m / CM * tiles_n, slices = K / TM_BK;
    const int warpgroup = threadIdx.x >> 7;
    const unsigned rank = CM == 1 ? 0 : cluster_rank();
    const int first = blockIdx.x / CM, stride = gridDim.x / CM;     /* work items of this CTA (of its cluster) */

    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(full0 + 8 * s, 1);                      /* the producer's expect_tx */
            mbar_init(empty0 + 8 * s, CONSUMERS * 4 * CM);    /* one arrival per consumer warp of the cluster */
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");   /* visible to the copy engine */
    }
    if (CM == 1) __syncthreads(); else cluster_sync();   /* the other CTA's barriers exist before any arrival */

    if (warpgroup == 0) {
        /* --8<-- [start:producer] */
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (threadIdx.x == 0) {
            int s = 0;
            unsigned phase = 0;
            for (int t = first; t < items; t += stride) {
                int tile_m, tile_n;
                tile_of<GROUP>(t, tiles_m / CM, tiles_n, tile_m, tile_n);
                tile_m = tile_m * CM + rank;
                for (int k = 0; k < slices; ++k) {
                    mbar_wait(empty0 + 8 * s, phase ^ 1);          /* the consumers are done with stage s */
                    mbar_expect_tx(full0 + 8 * s, STAGE_BYTES);
                    const unsigned stage = base + s * STAGE_BYTES;
                    tma_load_2d(stage, map_a, k * TM_BK, tile_m * BM, full0 + 8 * s);
                    if (CM == 1)
                        tma_load_2d(stage + A_BYTES, map_b, k * TM_BK, tile_n * BN, full0 + 8 * s);
                    else
                        tma_load_2d_multicast(stage + A_BYTES + rank * B_ROWS * 128, map_b, k * TM_BK,
                                              tile_n * BN + rank * B_ROWS, full0 + 8 * s, (1 << CM) - 1);
                    if (++s == STAGES) { s = 0; phase ^= 1; }
                }
            }
        }
        /* --8<-- [end:producer] */
        __syncwarp();
    } else {
        /* --8<-- [start:consumer] */
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        const int consumer = warpgroup - 1;
        const int lane = threadIdx.x & 31, warp = (threadIdx.x >> 5) & 3;
        int s = 0;
        unsigned phase = 0;
        float d[MT][BN / 2];
        for (int t = first; t < items; t += stride) {
            int tile_m, tile_n;
            tile_of<GROUP>(t, tiles_m / CM, tiles_n, tile_m, tile_n);
            tile_m = tile_m * CM + rank;
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
                for (int i = 0; i < BN / 2; ++i) d[mt][i] = 0.0f;
            for (int k = 0; k < slices; ++k) {
                mbar_wait(full0 + 8 * s, phase);                        /* stage s has landed */
                const unsigned stage = base + s * STAGE_BYTES;
                asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
                for (int kk = 0; kk < TM_BK / 16; ++kk) {
#pragma unroll
                    for (int mt = 0; mt < MT; ++mt) {
                        const unsigned long long desc_a = smem_descriptor(stage + (consumer * WM + mt * 64) * 128) + 2 * kk;
                        const unsigned long long desc_b = smem_descriptor(stage + A_BYTES) + 2 * kk;   /* +32 bytes per 16 of K */
                        wgmma_n<BN, BF16>(d[mt], desc_a, desc_b);
                    }
                }
                asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
                asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
                if (lane == 0) {                                        /* this warp is done with stage s */
                    if (CM == 1) mbar_arrive(empty0 + 8 * s);
                    else for (unsigned r = 0; r < CM; ++r) mbar_arrive_cluster(empty0 + 8 * s, r);
                }
                if (++s == STAGES) { s = 0; phase ^= 1; }
            }
            /* d[mt][4j + {0,1}]: row warp*16 + lane/4 of m-tile mt, columns 8j + 2 (lane % 4) + {0,1};
               d[mt][4j + {2,3}]: 8 rows below. */
            if (TMA_STORE) {
                /* Through shared memory: box (mt, nc) = rows 64 mt.., columns 64 nc.. of this consumer's
                   part, written as 128-byte rows swizzled like the stages (16-byte chunk j of row r at
                   j ^ (r % 8): the 8 rows one store instruction touches land in 8 different chunks,
                   no bank conflict), then copied to C by the copy engine, two boxes at a time, while
                   this warpgroup goes on to its next tile. */
                const unsigned staging = staging0 + consumer * 2 * 8192;
                const int r = warp * 16 + (lane >> 2);
#pragma unroll
                for (int box = 0; box < MT * (BN / 64); ++box) {
                    const int mt = box / (BN / 64), nc = box % (BN / 64), slot = box & 1;
                    if (slot == 0) {
                        if (threadIdx.x % 128 == 0) tma_store_wait_read();   /* the last boxes have been read */
                        consumer_sync(consumer);
                    }
                    const unsigned at = staging + slot * 8192;
#pragma unroll
                    for (int jj = 0; jj < 8; ++jj) {
                        const int j = nc * 8 + jj;
                        unsigned lo, hi;
                        if (BF16) {
                            asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(d[mt][4 * j + 1]), "f"(d[mt][4 * j]));
                            asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(hi) : "f"(d[mt][4 * j + 3]), "f"(d[mt][4 * j + 2]));
                        } else {
                            asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(d[mt][4 * j + 1]), "f"(d[mt][4 * j]));
                            asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(hi) : "f"(d[mt][4 * j + 3]), "f"(d[mt][4 * j + 2]));
                        }
                        const unsigned chunk = ((jj ^ (r & 7)) << 4) + (lane & 3) * 4;
                        asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(at + r * 128 + chunk), "r"(lo) : "memory");
                        asm volatile("st.shared.b32 [%0], %1;\n" :: "r"(at + (r + 8) * 128 + chunk), "r"(hi) : "memory");
                    }
                    if (slot == 1 || box == MT * (BN / 64) - 1) {
                        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");   /* our writes -> the copy engine */
                        consumer_sync(consumer);
                        if (threadIdx.x % 128 == 0) {
                            for (int b = box - slot; b <= box; ++b)
                                tma_store_2d(map_c, staging + (b & 1) * 8192, tile_n * BN + (b % (BN / 64)) * 64,
                                             tile_m * BM + consumer * WM + (b / (BN / 64)) * 64);
                            tma_store_commit();
                        }
                    }
                }
            } else {   /* from the registers: each thread's pairs of columns, 4 bytes at a time */
#pragma unroll
                for (int mt = 0; mt < MT; ++mt) {
                    const int row0 = tile_m * BM + consumer * WM + mt * 64 + warp * 16 + (lane >> 2);
                    const int col0 = tile_n * BN + (lane & 3) * 2;
#pragma unroll
                    for (int j = 0; j < BN / 8; ++j) {
                        const size_t at = (size_t)row0 * N + col0 + 8 * j;
                        unsigned lo, hi;
                        if (BF16) {
                            asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(d[mt][4 * j + 1]), "f"(d[mt][4 * j]));
                            asm("cvt.rn.bf16x2.f32 %0, %1, %2;\n" : "=r"(hi) : "f"(d[mt][4 * j + 3]), "f"(d[mt][4 * j + 2]));
                        } else {
                            asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(lo) : "f"(d[mt][4 * j + 1]), "f"(d[mt][4 * j]));
                            asm("cvt.rn.f16x2.f32 %0, %1, %2;\n" : "=r"(hi) : "f"(d[mt][4 * j + 3]), "f"(d[mt][4 * j + 2]));
                        }
                        *reinterpret_cast<unsigned*>(C + at) = lo;
                        *reinterpret_cast<unsigned*>(C + at + (size_t)8 * N) = hi;
                    }
                }
            }
        }
        /* --8<-- [end:consumer] */
    }
    if (TMA_STORE && warpgroup > 0 && threadIdx.x % 128 == 0) tma_store_wait_all();   /* C is written */
    if (CM > 1) cluster_sync();   /* no CTA leaves while the other may still arrive on its barriers */
}

#define CLUSTER_OF_1
#define CLUSTER_OF_2 __cluster_dims__(2, 1, 1)
#define TMA_ENTRY(NAME, BM, BN, GROUP, CM, BF16, TMA_STORE) \
extern "C" __global__ void CLUSTER_OF_##CM __launch_bounds__(TM_THREADS, 1) \
NAME(const __grid_constant__ TensorMap map_a, const __grid_constant__ TensorMap map_b, \
     const __grid_constant__ TensorMap map_c, unsigned short* C, int M, int N, int K) \
{ gemm_tma_ws<BM, BN, TM_STAGES, GROUP, CM, BF16, TMA_STORE>(&map_a, &map_b, &map_c, C, M, N, K); }

/* One kernel per tile shape and precision, launched with one CTA per tile or, *_persistent, one
   per SM (the host's grid is all that differs: two names so that a profile tells them apart);
   *_cluster: pairs of CTAs sharing the B slices by multicast, persistent. */
TMA_ENTRY(hgemm_tma_ws_128x256, 128, 256, 8, 1, false, false)
TMA_ENTRY(bgemm_tma_ws_128x256, 128, 256, 8, 1, true, false)
TMA_ENTRY(hgemm_tma_ws_256x128, 256, 128, 8, 1, false, false)
TMA_ENTRY(bgemm_tma_ws_256x128, 256, 128, 8, 1, true, false)
TMA_ENTRY(hgemm_tma_ws_128x256_persistent, 128, 256, 8, 1, false, false)
TMA_ENTRY(bgemm_tma_ws_128x256_persistent, 128, 256, 8, 1, true, false)
TMA_ENTRY(hgemm_tma_ws_256x128_persistent, 256, 128, 8, 1, false, false)
TMA_ENTRY(bgemm_tma_ws_256x128_persistent, 256, 128, 8, 1, true, false)
TMA_ENTRY(hgemm_tma_ws_128x256_cluster, 128, 256, 8, 2, false, false)
TMA_ENTRY(bgemm_tma_ws_128x256_cluster, 128, 256, 8, 2, true, false)
TMA_ENTRY(hgemm_tma_ws_256x128_cluster, 256, 128, 8, 2, false, false)
TMA_ENTRY(bgemm_tma_ws_256x128_cluster, 256, 128, 8, 2, true, false)
TMA_ENTRY(hgemm_tma_ws_128x256_store, 128, 256, 8, 1, false, true)
TMA_ENTRY(bgemm_tma_ws_128x256_store, 128, 256, 8, 1, true, true)
TMA_ENTRY(hgemm_tma_ws_256x128_store, 256, 128, 8, 1, false, true)
TMA_ENTRY(bgemm_tma_ws_256x128_store, 256, 128, 8, 1, true, true)
""".replace("WGMMA256_F16", _wgmma_instruction(256, "fp16")).replace("WGMMA256_BF16", _wgmma_instruction(256, "bf16")).replace("WGMMA128_F16", _wgmma_instruction(128, "fp16")).replace("WGMMA128_BF16", _wgmma_instruction(128, "bf16"))


@dataclass(frozen=True)
class Kernel:
    """One CUDA C kernel of this module: its source module, C tile per block, slice of K, threads,
    dynamic shared memory, precision (the inputs' and the output's type), and static shared memory."""

    name: str
    module: str
    tile_m: int
    tile_n: int
    k_step: int
    threads: int
    dynamic_shared_bytes: int
    precision: str  # "fp32", "fp16" or "bf16"
    static_shared_bytes: int = 0
    persistent: bool = False  # one CTA per SM, each walking several tiles (the TMA kernels)
    cluster_m: int = 1        # CTAs per cluster, on consecutive tile rows (sharing the slices of B)

    @property
    def shared_bytes(self) -> int:
        """Shared memory a block of it holds: static + dynamic (what a block must be allowed to opt in to)."""
        return self.static_shared_bytes + self.dynamic_shared_bytes

    def tiles(self, m: int, n: int, k: int) -> int:
        """Tiles of C at m x n x k; the sizes must be multiples of the tiles (no bounds checks in the
        kernels' inner loops)."""
        rows = self.tile_m * self.cluster_m
        if m % rows or n % self.tile_n or k % self.k_step:
            raise ValueError(f"{self.name} needs M a multiple of {rows}, N of {self.tile_n} and K of "
                             f"{self.k_step}; got {m} x {n} x {k}")
        return (m // self.tile_m) * (n // self.tile_n)

    def grid(self, m: int, n: int, k: int, sm_count: int | None = None) -> tuple[int]:
        """A 1-D grid (the kernel orders the tiles itself): one block per tile of C, or for a
        persistent kernel one per SM, never more than the tiles, in whole clusters
        (tensor_maps.persistent_grid)."""
        tiles = self.tiles(m, n, k)
        if not self.persistent:
            return (tiles,)
        if sm_count is None:
            raise ValueError(f"{self.name} is persistent: its grid needs the GPU's SM count")
        return (tensor_maps.persistent_grid(tiles, sm_count, self.cluster_m),)


def simt_shared_bytes(stages: int) -> int:
    """The SIMT kernels' static tiles: stages x BK x ((BM + A padding) + BN) floats."""
    return stages * SIMT_BK * (SIMT_TILE + SIMT_A_PAD + SIMT_TILE) * 4


def warptile_shared_bytes(bm: int, bn: int, bk: int) -> int:
    """The warp-tiled SIMT kernel's static tiles: 2 buffers x BK x ((BM + A padding) + BN) floats."""
    return 2 * bk * (bm + SIMT_A_PAD + bn) * 4


def cpasync_shared_bytes(bm: int, bn: int, bk: int, stages: int, a_row_major: bool = False) -> int:
    """The cp.async SIMT kernels' dynamic shared memory: stages x (A buffer + BK x BN) floats, the A
    buffer k-major (BK rows of BM + 4) or row-major (BM rows of BK, or BK + 4 when BK > 8)."""
    a_floats = bm * (bk if bk == 8 else bk + 4) if a_row_major else bk * (bm + 4)
    return stages * (a_floats + bk * bn) * 4


def mma_shared_bytes(bm: int, bn: int, bk: int, stages: int) -> int:
    """Bytes of the stage buffers: stages x (BM x (BK + PAD) + BK x (BN + PAD)) 2-byte elements."""
    return stages * (bm * (bk + MMA_PAD) + bk * (bn + MMA_PAD)) * 2


def _mma(name: str, bm: int, bn: int, bk: int, warps_m: int, warps_n: int, stages: int, precision: str) -> Kernel:
    return Kernel(name, "mma", bm, bn, bk, 32 * warps_m * warps_n, mma_shared_bytes(bm, bn, bk, stages), precision)


def tma_shared_bytes(bm: int, bn: int, stages: int, tma_store: bool = False) -> int:
    """The TMA kernels' dynamic shared memory: stages x (BM + BN) rows of 128 bytes (64 elements of
    K), 1 KiB for aligning the stages to the 1 024-byte swizzle atoms, and with the TMA store a
    staging buffer of two 64 x 64 boxes of C (16 KiB) per consumer warpgroup."""
    return stages * (bm + bn) * TM_BK * 2 + 1024 + (2 * TM_STAGING_BYTES if tma_store else 0)


def _tma(bm: int, bn: int, precision: str, kind: str) -> Kernel:
    """A TMA kernel of TMA_SOURCE: kind "" (one CTA per tile), "persistent", "cluster" (persistent,
    pairs of CTAs) or "store" (persistent, C written through shared memory by the copy engine)."""
    name = f"{'h' if precision == 'fp16' else 'b'}gemm_tma_ws_{bm}x{bn}" + (f"_{kind}" if kind else "")
    # static: the 2 x STAGES mbarriers, which ptxas places in a 1 KiB block (the 1 024-byte
    # alignment the dynamic stages ask for)
    return Kernel(name, "tma", bm, bn, TM_BK, TM_THREADS, tma_shared_bytes(bm, bn, TM_STAGES, kind == "store"), precision,
                  static_shared_bytes=1024, persistent=bool(kind), cluster_m=2 if kind == "cluster" else 1)


#: Every kernel, by name; the mma variants as MMA_VARIANT declares them in MMA_SOURCE.
KERNELS = {k.name: k for k in (
    Kernel("sgemm_regtile", "simt", SIMT_TILE, SIMT_TILE, SIMT_BK, SIMT_THREADS, 0, "fp32", simt_shared_bytes(1)),
    Kernel("sgemm_pipelined", "simt", SIMT_TILE, SIMT_TILE, SIMT_BK, SIMT_THREADS, 0, "fp32", simt_shared_bytes(2)),
    Kernel("sgemm_warptile", "simt", 128, 128, 8, 256, 0, "fp32", warptile_shared_bytes(128, 128, 8)),
    Kernel("sgemm_warptile_128x256", "simt", 128, 256, 8, 256, 0, "fp32", warptile_shared_bytes(128, 256, 8)),
    Kernel("sgemm_cpasync_256x128", "simt", 256, 128, 8, 256, cpasync_shared_bytes(256, 128, 8, 3), "fp32"),
    Kernel("sgemm_cpasync_256x128_8x16", "simt", 256, 128, 8, 256, cpasync_shared_bytes(256, 128, 8, 4), "fp32"),
    _mma("hgemm_mma_128x128", 128, 128, 32, 2, 2, 4, "fp16"),
    _mma("hgemm_mma_128x128_w8", 128, 128, 32, 2, 4, 4, "fp16"),
    _mma("hgemm_mma_128x128_k64", 128, 128, 64, 2, 2, 3, "fp16"),
    _mma("hgemm_mma_128x256", 128, 256, 32, 2, 4, 4, "fp16"),
    _mma("hgemm_mma_128x256_k64", 128, 256, 64, 2, 4, 3, "fp16"),
    _mma("hgemm_mma_256x128", 256, 128, 32, 4, 2, 4, "fp16"),
    _mma("hgemm_mma_256x128_w16", 256, 128, 32, 4, 4, 3, "fp16"),
    _mma("bgemm_mma_128x128", 128, 128, 32, 2, 2, 4, "bf16"),
    _mma("bgemm_mma_128x128_w8", 128, 128, 32, 2, 4, 4, "bf16"),
    _mma("bgemm_mma_128x256", 128, 256, 32, 2, 4, 4, "bf16"),
    Kernel("hgemm_wmma", "wmma", 128, 128, MMA_BK, 256, mma_shared_bytes(128, 128, MMA_BK, WMMA_STAGES), "fp16"),
    # B given transposed (N x K); 1 KiB more than the stages for aligning them to 1024 bytes
    Kernel("hgemm_wgmma_128x256", "wgmma", WG_BM, WG_BN, WG_BK, 256,
           WG_STAGES * (WG_BM + WG_BN) * 128 + 1024, "fp16"),
    *(_tma(bm, bn, p, kind) for p in ("fp16", "bf16") for bm, bn in ((128, 256), (256, 128))
      for kind in ("", "persistent", "cluster", "store")),
)}
#: Kernels that take B transposed (N x K, K contiguous): wgmma reads both operands K-major.
TAKES_B_TRANSPOSED = frozenset({"hgemm_wgmma_128x256"} | {k.name for k in KERNELS.values() if k.module == "tma"})

SOURCES = {"simt": SIMT_SOURCE, "mma": MMA_SOURCE, "wmma": WMMA_SOURCE, "wgmma": WGMMA_SOURCE, "tma": TMA_SOURCE}
#: Modules compiled for the sm_90a target (wgmma, setmaxnreg, the TMA copies): Hopper only.
SM90A_MODULES = frozenset({"wgmma", "tma"})


def toolkit_include() -> str | None:
    """The include folder of a CUDA toolkit that has ``crt/mma.h`` (which ``mma.h`` includes), or None.

    CuPy's NVRTC searches the headers of the CUDA wheels it was installed with; their ``mma.h``
    includes ``crt/mma.h``, which those wheels do not ship (seen on the H200: "cannot open source
    file crt/mma.h"). A toolkit's include folder (CUDA_PATH, CUDA_HOME, nvcc's, /usr/local/cuda) has it.
    """
    import os
    import shutil

    candidates = [os.environ.get("CUDA_PATH"), os.environ.get("CUDA_HOME"), "/usr/local/cuda"]
    nvcc = shutil.which("nvcc")
    if nvcc:
        candidates.insert(0, os.path.dirname(os.path.dirname(os.path.realpath(nvcc))))
    for root in candidates:
        if root and os.path.isfile(os.path.join(root, "include", "crt", "mma.h")):
            return os.path.join(root, "include")
    return None


def options(module_name: str) -> tuple[str, ...]:
    """NVRTC options: line information for ncu's source view, the WMMA module's header folder. CuPy
    adds the device's own architecture (``-arch=sm_90`` on an H200)."""
    if module_name not in SOURCES:
        raise ValueError(f"no CUDA C module {module_name!r}: choose one of {', '.join(SOURCES)}")
    extra: tuple[str, ...] = ("-std=c++17",) if module_name != "wgmma" else ()
    if module_name == "wmma":
        extra = (f"-DWMMA_STAGES={WMMA_STAGES}",)
        include = toolkit_include()
        if include:
            extra += (f"-I{include}",)
    return ("-lineinfo", *extra)


def source(module_name: str, kernel: str | None = None) -> str:
    """A module's CUDA C source; for the TMA module with ``kernel``, with that kernel's entry only:
    its 16 entries are instantiations of one template, NVRTC compiles each in full, and the lab uses
    four of them."""
    text = SOURCES[module_name]
    if kernel is None or module_name != "tma":
        return text
    if kernel not in KERNELS or KERNELS[kernel].module != "tma":
        raise ValueError(f"{kernel!r} is not a kernel of the TMA module")
    return "\n".join(line for line in text.splitlines()
                     if not line.startswith("TMA_ENTRY(") or line.startswith(f"TMA_ENTRY({kernel},"))


@functools.cache
def module(module_name: str, kernel: str | None = None):
    """The compiled module (CuPy RawModule, NVRTC; needs a GPU and CuPy), of the TMA module's
    ``kernel`` alone where one is named (:func:`source`). The wgmma and TMA modules need the
    ``sm_90a`` target, which CuPy's own ``-arch`` (``compute_90``) does not give: they are compiled
    by NVRTC directly to a cubin for ``sm_90a`` and loaded from that file."""
    import cupy

    if module_name not in SM90A_MODULES:
        return cupy.RawModule(code=source(module_name), options=options(module_name))
    import tempfile

    from cupy_backends.cuda.libs import nvrtc

    program = nvrtc.createProgram(source(module_name, kernel), f"gemm_{module_name}.cu", (), ())
    try:
        try:
            nvrtc.compileProgram(program, ("-arch=sm_90a", *options(module_name)))
        except nvrtc.NVRTCError:
            raise RuntimeError(f"NVRTC could not compile the {module_name} module for sm_90a:\n"
                               + nvrtc.getProgramLog(program)) from None
        cubin = nvrtc.getCUBIN(program)
    finally:
        nvrtc.destroyProgram(program)
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as handle:
        handle.write(cubin)
    return cupy.RawModule(path=handle.name)


def function(name: str):
    """The kernel ``name``, with its dynamic shared-memory limit raised to what it asks for."""
    if name not in KERNELS:
        raise ValueError(f"no CUDA C GEMM kernel {name!r}: choose one of {', '.join(KERNELS)}")
    spec = KERNELS[name]
    kernel = module(spec.module, name if spec.module == "tma" else None).get_function(name)
    if spec.dynamic_shared_bytes > 48 * 1024:
        kernel.max_dynamic_shared_size_bytes = spec.dynamic_shared_bytes
    return kernel


@functools.cache
def _sm_count(device_id: int) -> int:
    import cupy

    return int(cupy.cuda.Device(device_id).attributes["MultiProcessorCount"])


@functools.lru_cache(maxsize=64)
def _tensor_map_argument(address: int, spec: tensor_maps.TensorMap, precision: str):
    """A tensor map as a kernel argument: its 128 bytes as one NumPy structured scalar, which CuPy
    passes by value (the kernel's ``const __grid_constant__ TensorMap``). Encoded once per buffer
    and shape (the driver call costs microseconds of host time; a launch reuses it)."""
    import numpy as np

    raw = tensor_maps.encode(spec, address, precision)
    return np.frombuffer(raw, dtype=np.dtype([("opaque", "<u8", (16,))]))[0]


def launch(name: str, a, b, c) -> None:
    """c = a @ b with the CUDA C kernel ``name`` (CuPy arrays, C-contiguous, the kernel's dtype);
    for the kernels of TAKES_B_TRANSPOSED, ``b`` is Bᵀ (N x K). The TMA kernels take the tensor maps
    of A and Bᵀ (labkit.kernels.tensor_maps) in place of their pointers."""
    import numpy as np

    spec = KERNELS[name]
    m, k = a.shape
    n, k2 = b.shape if name in TAKES_B_TRANSPOSED else b.shape[::-1]
    if k2 != k or c.shape != (m, n):
        raise ValueError(f"shapes do not chain: {a.shape} @ {b.shape}{'ᵀ' if name in TAKES_B_TRANSPOSED else ''}"
                         f" -> {c.shape}")
    sizes = (np.int32(m), np.int32(n), np.int32(k))
    if spec.module == "tma":
        map_a, map_b = tensor_maps.operand_maps(m, n, k, spec.tile_m, spec.tile_n // spec.cluster_m, spec.k_step)
        map_c = tensor_maps.tensor_map(m, n, TM_STORE_BOX, TM_STORE_BOX)
        operands = (_tensor_map_argument(a.data.ptr, map_a, spec.precision),
                    _tensor_map_argument(b.data.ptr, map_b, spec.precision),
                    _tensor_map_argument(c.data.ptr, map_c, spec.precision))
        grid = spec.grid(m, n, k, _sm_count(a.device.id))
    else:
        operands, grid = (a, b), spec.grid(m, n, k)
    function(name)(grid, (spec.threads,), (*operands, c, *sizes), shared_mem=spec.dynamic_shared_bytes)
