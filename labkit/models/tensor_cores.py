"""The tensor cores' theoretical peaks: dense FLOP per clock per SM, by compute capability and
precision (a column of labkit.specs.architectures, from the A100 and H100 whitepapers), times the SMs and
the clock.

NVIDIA's H100 and H200 SXM datasheets give the tensor-core rates at 1830 MHz (989.4 TFLOP/s dense
FP16 = 4096 x 132 x 1.83 GHz) and the FP32 and FP64 lanes' at 1980 MHz, the maximum SM clock; the
course computes every peak at the clock it reads.
"""

from __future__ import annotations

from labkit.specs.architectures import COMPUTE_CAPABILITIES


def dense_flops_per_clock_per_sm(compute_capability: tuple[int, int], precision: str) -> int | None:
    """Dense tensor-core FLOP per clock per SM (2 per FMA) for ``precision`` inputs; None where the
    course has no rate (a compute capability or precision labkit.specs.architectures does not give)."""
    facts = COMPUTE_CAPABILITIES.get(tuple(compute_capability))
    return None if facts is None else facts.dense_tensor_flops_per_clock.get(precision)


def tensor_peak_gflops(sm_count: int, compute_capability: tuple[int, int], precision: str,
                       sm_clock_mhz: float) -> float | None:
    """Dense tensor-core peak in 10^9 FLOP/s at ``sm_clock_mhz``; None where the course has no rate."""
    rate = dense_flops_per_clock_per_sm(compute_capability, precision)
    if rate is None:
        return None
    return rate * sm_count * sm_clock_mhz * 1e6 / 1e9
