"""Roofline arithmetic: pure functions, no GPU needed.

Units are in the names: ``flops``, ``bytes_``, ``seconds``, ``gbps`` (10^9 bytes/s),
``gflops`` (10^9 FLOP/s).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


def arithmetic_intensity(flops: float, bytes_: float) -> float:
    """I = ops / bytes (FLOP per byte of DRAM traffic)."""
    if bytes_ <= 0:
        raise ValueError(f"bytes_ must be positive, got {bytes_}")
    return flops / bytes_


def ridge_point(peak_gflops: float, peak_gbps: float) -> float:
    """I_crit = P / B: the intensity (FLOP/byte) where the memory roof meets the compute roof."""
    if peak_gbps <= 0:
        raise ValueError(f"peak_gbps must be positive, got {peak_gbps}")
    return peak_gflops / peak_gbps


class Bound(str, Enum):
    MEMORY = "memory"
    COMPUTE = "compute"
    SHARED = "shared"      # shared memory's wavefronts (a hierarchical roofline's inner roof)


def bound_class(flops: float, bytes_: float, peak_gflops: float, peak_gbps: float) -> Bound:
    """Memory-bound when I < I_crit, compute-bound otherwise."""
    if arithmetic_intensity(flops, bytes_) < ridge_point(peak_gflops, peak_gbps):
        return Bound.MEMORY
    return Bound.COMPUTE


def t_min_seconds(flops: float, bytes_: float, peak_gflops: float, peak_gbps: float) -> float:
    """t_min = max(bytes / B, ops / P): the time no kernel doing this work can beat."""
    return max(bytes_ / (peak_gbps * 1e9), flops / (peak_gflops * 1e9))


#: Shared memory serves one wavefront per SM per clock: 32 banks x 4 bytes = 128 bytes (the
#: 33 TB/s of the H100 SXM's L1/shared memory = 132 SMs x 128 B x 1.98 GHz, NVIDIA's Hopper
#: whitepaper).
SHARED_BYTES_PER_WAVEFRONT = 128


def shared_seconds(wavefronts: float, sm_count: int, sm_clock_mhz: float) -> float:
    """The time shared memory needs to serve ``wavefronts``: one per SM per clock, all SMs busy."""
    return wavefronts / (sm_count * sm_clock_mhz * 1e6)


def shared_roof_gflops(flops_per_wavefront: float, sm_count: int, sm_clock_mhz: float) -> float:
    """The FLOP rate shared memory allows a kernel doing ``flops_per_wavefront``: SMs x f x that."""
    return sm_count * sm_clock_mhz * 1e6 * flops_per_wavefront / 1e9


def attainable_gflops(intensity: float, peak_gflops: float, peak_gbps: float) -> float:
    """The roof: min(P, I x B)."""
    return min(peak_gflops, intensity * peak_gbps)


class Verdict(str, Enum):
    STOP = "stop"
    FINE_TUNING = "fine-tuning"
    STRUCTURAL = "structural"


#: The verdict bands of the method: below 1.2 stop, 1.2 to 2 fine tuning, above 2 structural.
STOP_BELOW = 1.2
STRUCTURAL_ABOVE = 2.0
#: Decimals of t_real / t_min as shown, and as judged: a verdict never contradicts its number.
RATIO_DECIMALS = 2


def verdict(t_real_seconds: float, t_min_seconds_: float) -> Verdict:
    """r = t_real / t_min, to RATIO_DECIMALS decimals: r < 1.2 stop; 1.2 <= r <= 2 fine tuning;
    r > 2 a structural problem."""
    ratio = round(t_real_seconds / t_min_seconds_, RATIO_DECIMALS)
    if ratio < STOP_BELOW:
        return Verdict.STOP
    if ratio <= STRUCTURAL_ABOVE:
        return Verdict.FINE_TUNING
    return Verdict.STRUCTURAL


@dataclass(frozen=True)
class Traffic:
    """What a kernel really moved, inferred from its bandwidth and its duration.

    moved = achieved bandwidth x time; efficiency eta = useful bytes / moved bytes,
    so dram__bytes / useful bytes reads 1 / eta directly.
    """

    moved_bytes: float
    useful_bytes: float

    @property
    def efficiency(self) -> float:
        return self.useful_bytes / self.moved_bytes

    @property
    def excess_factor(self) -> float:
        """1 / eta: how many times more bytes than needed crossed the DRAM bus."""
        return self.moved_bytes / self.useful_bytes


def traffic_from_bandwidth(achieved_gbps: float, seconds: float, useful_bytes: float) -> Traffic:
    """moved bytes = achieved bandwidth x time, compared with the bytes the algorithm needs."""
    return Traffic(moved_bytes=achieved_gbps * 1e9 * seconds, useful_bytes=useful_bytes)
