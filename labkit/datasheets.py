"""Vendor datasheet figures, the one place the course types them.

These are the manufacturer's numbers (SXM parts), used for worked examples and quizzes.
Measured ceilings never live here: they come from results files.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Datasheet:
    name: str
    hbm_gbps: float          # DRAM bandwidth, 10^9 bytes/s
    fp32_gflops: float       # plain FP32 (non-tensor) peak
    fp64_gflops: float       # plain FP64 (non-tensor) peak
    l2_megabytes: float      # L2 capacity, 10^6 bytes as the vendor states it
    sm_count: int            # SMs enabled on the part (NVIDIA H100 Tensor Core GPU Architecture whitepaper)
    boost_clock_mhz: float   # the maximum SM clock the FP32 and FP64 peaks assume
    source: str


H100_SXM = Datasheet(
    name="H100 SXM",
    hbm_gbps=3350.0,
    fp32_gflops=67_000.0,
    fp64_gflops=34_000.0,
    l2_megabytes=50.0,
    sm_count=132,
    boost_clock_mhz=1980.0,
    source="NVIDIA H100 Tensor Core GPU datasheet",
)

H200_SXM = Datasheet(
    name="H200 SXM",
    hbm_gbps=4800.0,
    fp32_gflops=67_000.0,
    fp64_gflops=34_000.0,
    l2_megabytes=50.0,
    sm_count=132,
    boost_clock_mhz=1980.0,
    source="NVIDIA H200 Tensor Core GPU datasheet",
)
