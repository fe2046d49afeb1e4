"""Triton's standard blocked GEMM, C = A B in FP16 or BF16 with FP32 accumulation: the peer lab 06
times beside its own steps and cuBLAS (labkit.kernels.gemm_triton imports this module only where
Triton is installed; the course does not depend on it).

The algorithm of Triton's matrix-multiplication tutorial: each program computes a BLOCK_M x BLOCK_N
tile of C, walking K by BLOCK_K with ``tl.dot`` (which Triton lowers to wgmma on Hopper, to
mma.sync before it) and software-pipelined loads over ``num_stages`` slices; programs are ordered in
groups of GROUP_M tile rows so that the tiles in flight share their slices of A and B in L2. The
autotuner times each configuration on the first call at a new (M, N, K) and keeps the fastest.
"""

from __future__ import annotations

import triton
import triton.language as tl

#: The configurations the autotuner tries: those of Triton's tutorial for 16-bit inputs on NVIDIA
#: GPUs, as (BLOCK_M, BLOCK_N, BLOCK_K, GROUP_M, stages, warps).
CONFIGS = (
    (128, 256, 64, 8, 3, 8),
    (64, 256, 32, 8, 4, 4),
    (128, 128, 32, 8, 4, 4),
    (128, 64, 32, 8, 4, 4),
    (64, 128, 32, 8, 4, 4),
)


@triton.autotune(
    configs=[triton.Config({"BLOCK_M": bm, "BLOCK_N": bn, "BLOCK_K": bk, "GROUP_M": g}, num_stages=stages,
                           num_warps=warps) for bm, bn, bk, g, stages, warps in CONFIGS],
    key=["M", "N", "K"],
)
@triton.jit
def gemm_kernel(a_ptr, b_ptr, c_ptr, M, N, K, stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, GROUP_M: tl.constexpr):
    pid = tl.program_id(axis=0)
    tiles_m = tl.cdiv(M, BLOCK_M)
    tiles_n = tl.cdiv(N, BLOCK_N)
    per_group = GROUP_M * tiles_n
    first_m = (pid // per_group) * GROUP_M
    rows = min(tiles_m - first_m, GROUP_M)
    tile_m = first_m + ((pid % per_group) % rows)
    tile_n = (pid % per_group) // rows

    offs_m = (tile_m * BLOCK_M + tl.arange(0, BLOCK_M)) % M
    offs_n = (tile_n * BLOCK_N + tl.arange(0, BLOCK_N)) % N
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        a = tl.load(a_ptrs, mask=offs_k[None, :] < K - k * BLOCK_K, other=0.0)
        b = tl.load(b_ptrs, mask=offs_k[:, None] < K - k * BLOCK_K, other=0.0)
        acc = tl.dot(a, b, acc)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk

    rows_c = tile_m * BLOCK_M + tl.arange(0, BLOCK_M)
    cols_c = tile_n * BLOCK_N + tl.arange(0, BLOCK_N)
    c_ptrs = c_ptr + rows_c[:, None] * stride_cm + cols_c[None, :] * stride_cn
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=(rows_c[:, None] < M) & (cols_c[None, :] < N))
