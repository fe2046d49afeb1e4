"""Triton's standard GEMM (labkit.kernels.gemm_triton_jit) as lab 06's peer: where it is installed,
what a Python user would write instead of the chapter's CUDA C, timed on the same CuPy operands.

Triton is not a dependency of the course: :func:`unavailable` says why it cannot run here, in one
line, and the lab records that reason instead of a rate. Triton launches take PyTorch tensors (it
reads their pointer and dtype), so the CuPy arrays are shared with PyTorch through DLPack, without
a copy; BF16, which CuPy holds as its 16-bit patterns, is viewed as ``torch.bfloat16``. Both run on
the legacy default stream, the one the lab's CUDA events are recorded on.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

PRECISIONS = ("fp16", "bf16")


@functools.cache
def unavailable() -> str | None:
    """Why Triton's GEMM cannot run here (no Triton, no PyTorch for its launcher, or neither sees a
    GPU); None if it can."""
    try:
        import triton
    except ImportError:
        return "Triton is not installed here (it is not a dependency of the course: pip install triton to compare)"
    try:
        import torch
    except ImportError:
        return f"Triton {triton.__version__} launches on PyTorch tensors, and PyTorch is not installed here"
    if not torch.cuda.is_available():
        return "PyTorch sees no CUDA GPU here, so Triton has none to compile for"
    return None


def version() -> str:
    """'Triton 3.6.0': the peer's library and version, for the record."""
    import triton

    return f"Triton {triton.__version__}"


def _torch_view(array, precision: str):
    """A CuPy array as a PyTorch tensor on the same memory (DLPack), BF16 bit patterns as bfloat16."""
    import torch

    tensor = torch.from_dlpack(array)
    return tensor.view(torch.bfloat16) if precision == "bf16" else tensor


def launcher(a, b, c, precision: str) -> Callable[[], None]:
    """One c = a @ b by Triton's autotuned GEMM, enqueued (a: M x K, b: K x N, c: M x N, CuPy,
    C-contiguous, 16-bit). The first call at a new size runs the autotuner, which times each
    configuration and keeps the fastest: the lab's warm-up calls absorb it."""
    if precision not in PRECISIONS:
        raise ValueError(f"Triton's GEMM here runs in {' or '.join(PRECISIONS)}, not {precision}")
    from labkit.kernels.gemm_triton_jit import gemm_kernel

    ta, tb, tc = (_torch_view(x, precision) for x in (a, b, c))
    m, k = ta.shape
    n = tb.shape[1]

    def grid(meta):
        return (-(-m // meta["BLOCK_M"]) * -(-n // meta["BLOCK_N"]),)

    def run() -> None:
        gemm_kernel[grid](ta, tb, tc, m, n, k, ta.stride(0), ta.stride(1), tb.stride(0), tb.stride(1),
                          tc.stride(0), tc.stride(1))

    return run


def chosen_config() -> dict[str, int] | None:
    """The configuration the autotuner kept at the last size it tuned (block_m, block_n, block_k,
    group_m, warps, stages); None before the first call."""
    from labkit.kernels.gemm_triton_jit import gemm_kernel

    best = getattr(gemm_kernel, "best_config", None)
    if best is None:
        return None
    kw = best.kwargs
    return {"block_m": kw["BLOCK_M"], "block_n": kw["BLOCK_N"], "block_k": kw["BLOCK_K"], "group_m": kw["GROUP_M"],
            "warps": best.num_warps, "stages": best.num_stages}
