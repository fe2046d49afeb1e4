"""cuBLAS as chapter 6's reference: C = A @ B for row-major CuPy arrays through ``cublasGemmEx``,
with the precision named rather than left to CuPy's defaults.

A row-major M x K matrix is, to column-major cuBLAS, its K x M transpose. So C = A B (row-major)
is computed as C^T = B^T A^T (column-major): ``gemmEx(N, N, m=N, n=M, k=K, B, ldb=N, A, lda=K,
C, ldc=N)``, no copy, no transpose kernel (:func:`row_major_arguments`).

The precisions (:data:`PRECISIONS`): input and output types, and cuBLAS's compute type.

- ``fp32``: SGEMM, FP32 in and out, ``CUBLAS_COMPUTE_32F``: FP32 FMAs, no tensor cores;
- ``tf32``: FP32 in and out, ``CUBLAS_COMPUTE_32F_FAST_TF32``: inputs rounded to TF32 (10-bit
  mantissa) on the tensor cores, FP32 accumulation;
- ``fp16`` / ``bf16``: FP16 or BF16 in and out, ``CUBLAS_COMPUTE_32F``: FP32 accumulation on
  the tensor cores, rounded to the output type once;
- ``fp64``: DGEMM (on Hopper, the FP64 tensor cores: DMMA).

FP8 is not reachable through ``cublasGemmEx`` (only ``cublasLtMatmul`` takes FP8 with its
scales); the probe measures it through PyTorch's ``_scaled_mm`` where PyTorch is installed.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

# cudaDataType and cublasComputeType_t values (library_types.h, cublas_api.h).
CUDA_R_32F = 0
CUDA_R_64F = 1
CUDA_R_16F = 2
CUDA_R_16BF = 14
CUBLAS_COMPUTE_32F = 68
CUBLAS_COMPUTE_32F_FAST_TF32 = 77
CUBLAS_COMPUTE_64F = 70
CUBLAS_OP_N = 0
CUBLAS_GEMM_DEFAULT = -1


@dataclass(frozen=True)
class Precision:
    name: str
    data_type: int   # cudaDataType of A, B and C
    compute_type: int
    storage: str     # NumPy dtype of the arrays (BF16: its 16-bit patterns, as uint16)
    scalar: str      # NumPy dtype of alpha and beta (the compute type's)


PRECISIONS = {p.name: p for p in (
    Precision("fp32", CUDA_R_32F, CUBLAS_COMPUTE_32F, "float32", "float32"),
    Precision("tf32", CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32, "float32", "float32"),
    Precision("fp16", CUDA_R_16F, CUBLAS_COMPUTE_32F, "float16", "float32"),
    Precision("bf16", CUDA_R_16BF, CUBLAS_COMPUTE_32F, "uint16", "float32"),
    Precision("fp64", CUDA_R_64F, CUBLAS_COMPUTE_64F, "float64", "float64"),
)}


def storage_dtype(precision: str) -> np.dtype:
    """The NumPy dtype of a precision's arrays; BF16 matrices are held as their bit patterns
    (uint16), which cuBLAS and the kernels read as BF16 (any 2-byte dtype is accepted)."""
    return np.dtype(PRECISIONS[precision].storage)


def bf16_bits(x32, xp=np):
    """FP32 -> BF16 bit patterns (uint16), rounded to nearest even (finite inputs): the top 16 bits
    of each float after adding 0x7FFF plus the lowest kept bit. NumPy or CuPy arrays (``xp``)."""
    u = xp.ascontiguousarray(x32, dtype=xp.float32).view(xp.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(xp.uint16)


def from_bf16_bits(bits, xp=np):
    """BF16 bit patterns (uint16) -> the FP32 values they stand for, exactly."""
    return (bits.astype(xp.uint32) << 16).view(xp.float32)


def row_major_arguments(m: int, n: int, k: int) -> dict:
    """gemmEx's (column-major) sizes and leading dimensions for row-major C(m x n) = A(m x k) B(k x n):
    cuBLAS computes C^T = B^T A^T, its first operand being B (ld n) and its second A (ld k)."""
    if min(m, n, k) < 1:
        raise ValueError(f"sizes must be positive, got {m} x {n} x {k}")
    return {"m": n, "n": m, "k": k, "lda": n, "ldb": k, "ldc": n}


@functools.cache
def _scalars(scalar: str) -> tuple[np.ndarray, np.ndarray]:
    """alpha = 1 and beta = 0 in host memory (cuBLAS's default pointer mode reads them there)."""
    return np.ones(1, dtype=scalar), np.zeros(1, dtype=scalar)


def _cublas():
    try:
        from cupy_backends.cuda.libs import cublas
    except ImportError:  # older layouts
        from cupy.cuda import cublas
    return cublas


def gemm(a, b, c, precision: str) -> None:
    """c = a @ b by cublasGemmEx in ``precision`` (CuPy arrays, row-major, of the precision's dtype)."""
    import cupy

    spec = PRECISIONS[precision]
    m, k = a.shape
    k2, n = b.shape
    if k2 != k or c.shape != (m, n):
        raise ValueError(f"shapes do not chain: {a.shape} @ {b.shape} -> {c.shape}")
    dtype = storage_dtype(precision)
    for name, x in (("a", a), ("b", b), ("c", c)):
        right_type = x.dtype.itemsize == 2 if precision == "bf16" else x.dtype == dtype
        if not right_type or not x.flags.c_contiguous:
            raise ValueError(f"{name} must be a C-contiguous array of {precision} ({dtype}), got {x.dtype}")
    args = row_major_arguments(m, n, k)
    alpha, beta = _scalars(spec.scalar)
    _cublas().gemmEx(cupy.cuda.device.get_cublas_handle(), CUBLAS_OP_N, CUBLAS_OP_N,
                     args["m"], args["n"], args["k"], alpha.ctypes.data,
                     b.data.ptr, spec.data_type, args["lda"], a.data.ptr, spec.data_type, args["ldb"],
                     beta.ctypes.data, c.data.ptr, spec.data_type, args["ldc"],
                     spec.compute_type, CUBLAS_GEMM_DEFAULT)
