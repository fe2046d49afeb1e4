"""Lab 06's sizes on a given GPU (see labkit.labs.planning): pure, the H200's are ``LAB.gpu_sizes``.

- Memory: each phase of the lab (the checks, the timings at ``side``, then at ``large_side``)
  allocates its operands (program.Operands: A and B in FP32 for Numba and again for CuPy, in FP16,
  in BF16, B transposed in FP16 and BF16 for wgmma and the TMA steps, and an output per precision)
  and frees them before the next (program.release_device_memory); the profiled child runs after the
  last. The largest phase must fit in the memory budget: 36 n^2 bytes at n^3, 2.4 GB at 8192^3,
  0.6 GB at 4096^3.
- Time: the slowest call timed at ``side`` is the naive step's, the slowest at ``large_side`` the
  Numba register tile's. Each is estimated from its share of the FP32 peak on the H200 (probe run
  2 of labkit.calibration.gemm_probe, 4096^3 at 1980 MHz: 1.37 and 14.3 of 66.9 TFLOP/s, about 1/50 and
  1/5) and held under CALL_SECONDS: on a slower part the side is halved (a T4: 2048), and the
  large side halved until it fits, or dropped where it would not exceed the side. The estimate
  only sizes the run: nothing is concluded from it.
- FP64: none on the GPU (the checks' exact products are NumPy's, on the host at 512^3), so a part
  with 1:64 FP64 needs nothing shortened.
"""

from __future__ import annotations

from labkit.gpu.device import DeviceFacts
from labkit.labs.lab06.plan import ITEMS, fitted_side
from labkit.labs.lab06.results import Sizes, gemm_flops
from labkit.labs.planning import halve_until, memory_budget_bytes

#: Shares of the FP32 peak of the slowest step at each size, as measured on the H200 (see above).
NAIVE_SHARE_OF_FP32_PEAK = 0.02
REGTILE_SHARE_OF_FP32_PEAK = 0.2
#: The longest one timed call may take, as estimated (the naive step at 4096^3 on the H200: 0.1 s).
CALL_SECONDS = 0.5
#: The smallest side the plan goes down to: a multiple of every step's tile of C (wgmma's: 256).
SMALLEST_SIDE = 1024


def operands_bytes(m: int, n: int, k: int) -> int:
    """program.Operands at m x n x k on the device: A and B in FP32 twice (Numba's and CuPy's
    copies), in FP16 and in BF16, B transposed in FP16 and in BF16, C in FP32 (shared by Numba and
    CuPy), FP16 and BF16: 12 mk + 16 kn + 8 mn bytes."""
    return 12 * m * k + 16 * k * n + 8 * m * n


def phase_bytes(side: int, depth: int) -> int:
    """One phase's operands: one set per side its kernels are fitted to (one on a GPU's sizes)."""
    return sum(operands_bytes(s, s, depth) for s in {fitted_side(item, side) for item in ITEMS})


def footprint_bytes(sizes: Sizes) -> int:
    """The largest phase: the checks, the timings at side, or at large_side."""
    phases = [(sizes.check_side, sizes.check_depth), (sizes.side, sizes.depth)]
    if sizes.large_side is not None:
        phases.append((sizes.large_side, sizes.large_side))
    return max(phase_bytes(side, depth) for side, depth in phases)


def call_seconds(side: int, depth: int, share_of_peak: float, facts: DeviceFacts) -> float:
    """One call at side x side x depth at ``share_of_peak`` of the part's FP32 peak (maximum clock)."""
    return gemm_flops(side, depth) / (share_of_peak * facts.fp32_peak_gflops * 1e9)


def sizes_for(facts: DeviceFacts, reference: Sizes) -> Sizes:
    budget = memory_budget_bytes(facts)

    def main_fits(side: int) -> bool:
        depth = side * reference.depth // reference.side
        return (call_seconds(side, depth, NAIVE_SHARE_OF_FP32_PEAK, facts) <= CALL_SECONDS
                and phase_bytes(side, depth) <= budget)

    def large_fits(side: int) -> bool:
        return (call_seconds(side, side, REGTILE_SHARE_OF_FP32_PEAK, facts) <= CALL_SECONDS
                and phase_bytes(side, side) <= budget)

    side = halve_until(reference.side, main_fits, SMALLEST_SIDE)
    large = reference.large_side
    if large is not None:
        large = halve_until(large, large_fits, SMALLEST_SIDE)
        if large <= side or not large_fits(large):
            large = None
    return Sizes.model_validate({**reference.model_dump(), "side": side, "depth": side * reference.depth // reference.side,
                                 "large_side": large})
