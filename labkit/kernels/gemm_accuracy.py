"""When two matrix products of one precision agree: chapter 6's tolerance, element by element.

Two correct computations of C = A B in floating point differ by their rounding errors. For a dot
product of length K accumulated with unit roundoff u, the error is at most gamma_K (|A||B|)_ij
(gamma_K = K u / (1 - K u), Higham, *Accuracy and Stability of Numerical Algorithms*, 3.5): a
bound so loose that it would also pass a kernel that forgot a few terms. With independent rounding
errors of mean zero, the error grows like sqrt(K) u instead: it stays below lambda sqrt(K) u
(|A||B|)_ij (to first order) with probability at least 1 - 2 K exp(-lambda^2 (1 - u)^2 / 2) per
element (Higham and Mary, "A new approach to probabilistic rounding error analysis", SIAM J. Sci.
Comput. 41, 2019: P(lambda) per rounding, Q(lambda, K) = 1 - K (1 - P(lambda)) per inner product).
With lambda = 8 the failure bound is 2.5e-14 K per element: 3.4e-6 for a whole check at the lab's
512^3. So element (i, j) of a kernel's C passes when

    |C - R|_ij <= u_out (|C_ij| + |R_ij|) + 2 lambda sqrt(K) (u_in + u_acc) (|A||B|)_ij

where R is the reference (lab 06: NumPy's exact product of the inputs as the kernel reads them;
the probe: cuBLAS's result in the same precision), u_out the unit roundoff of the output type
(each computed side rounds once at the end), u_in that of the type the inputs are rounded to inside the
product (0 when they are used as stored: FP32 FMAs, FP16 and BF16 inputs on the tensor cores;
2^-11 for TF32) and u_acc that of the accumulation: 2^-24 for FP32 FMAs (round to nearest), 2^-23
on the tensor cores, whose FP32 accumulation truncates (Fasi, Higham, Mikaitis and Pranesh,
"Numerical behavior of NVIDIA tensor cores", PeerJ Comput. Sci. 2021, on V100, T4 and A100). The
factor 2: both sides err when two computed results are compared; against an exact reference it is
margin. Truncation errors are not of mean zero, unlike what the model assumes: the margin covers
them (a test holds an accumulation truncated at every term, more roundings than the tensor cores'
one per block of terms, well inside the accumulation term). On inputs drawn from [-1, 1] and
K = 4096, (|A||B|)_ij is about 1024 and the FP32 tolerance about 0.06; a kernel that skips one slice of 8 terms misses a sum of standard deviation sqrt(8 / 9), about
15 times that.

The functions take NumPy or CuPy arrays alike (``xp`` is the arrays' module).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: lambda of the probabilistic bound (see the module docstring).
LAMBDA = 8.0

#: Unit roundoffs: 2^-(mantissa bits + 1).
UNIT_ROUNDOFF = {"fp64": 2.0**-53, "fp32": 2.0**-24, "tf32": 2.0**-11, "bf16": 2.0**-8, "fp16": 2.0**-11}


@dataclass(frozen=True)
class Rounding:
    """Where a product of one precision rounds: inputs (inside the product), accumulation, output."""

    u_in: float
    u_acc: float
    u_out: float


#: The roundings of each precision of chapter 6 (kernels and cuBLAS alike).
ROUNDINGS = {
    "fp32": Rounding(0.0, UNIT_ROUNDOFF["fp32"], UNIT_ROUNDOFF["fp32"]),
    "tf32": Rounding(UNIT_ROUNDOFF["tf32"], 2 * UNIT_ROUNDOFF["fp32"], UNIT_ROUNDOFF["fp32"]),
    "fp16": Rounding(0.0, 2 * UNIT_ROUNDOFF["fp32"], UNIT_ROUNDOFF["fp16"]),
    "bf16": Rounding(0.0, 2 * UNIT_ROUNDOFF["fp32"], UNIT_ROUNDOFF["bf16"]),
    "fp64": Rounding(0.0, UNIT_ROUNDOFF["fp64"], UNIT_ROUNDOFF["fp64"]),
}


def tolerance(abs_product, result, reference, k: int, precision: str, xp=None):
    """Per-element tolerance (see the module docstring); ``abs_product`` = |A| @ |B| in FP32 or wider."""
    if k < 1:
        raise ValueError(f"K must be positive, got {k}")
    r = ROUNDINGS[precision]
    if xp is None:
        import numpy as xp
    scale = 2.0 * LAMBDA * math.sqrt(k) * (r.u_in + r.u_acc)
    return r.u_out * (xp.abs(result) + xp.abs(reference)) + scale * abs_product


@dataclass(frozen=True)
class Agreement:
    """How a result compares with the reference: the worst |C - R| / tolerance (pass: <= 1)."""

    worst_ratio: float
    max_abs_error: float
    relative_frobenius_error: float
    nonfinite: int

    @property
    def passed(self) -> bool:
        return self.nonfinite == 0 and self.worst_ratio <= 1.0


def agreement(result, reference, abs_product, k: int, precision: str, xp=None) -> Agreement:
    """Compare ``result`` with ``reference`` (both as float32 or wider arrays of the same shape)."""
    if xp is None:
        import numpy as xp
    if result.shape != reference.shape or abs_product.shape != reference.shape:
        raise ValueError(f"shapes differ: {result.shape}, {reference.shape}, {abs_product.shape}")
    nonfinite = int(xp.count_nonzero(~xp.isfinite(result)))
    diff = xp.abs(result - reference)
    tol = tolerance(abs_product, result, reference, k, precision, xp)
    with_floor = xp.maximum(tol, xp.finfo(tol.dtype).tiny)
    worst = float(xp.max(xp.where(xp.isfinite(diff), diff / with_floor, xp.inf)))
    norm = float(xp.linalg.norm(reference))
    return Agreement(
        worst_ratio=worst,
        max_abs_error=float(xp.max(xp.where(xp.isfinite(diff), diff, xp.inf))),
        relative_frobenius_error=float(xp.linalg.norm(xp.where(xp.isfinite(diff), diff, 0))) / norm if norm else 0.0,
        nonfinite=nonfinite,
    )
