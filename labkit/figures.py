"""Computed figures quoted in the chapters' prose and quiz answers.

A chapter writes ``[[ch04.traffic.moved_mb]]`` where it quotes a number; the site plugin
replaces it with the value computed here, formatted for the page's language. Nothing that
can be computed is typed into a chapter by hand, and tests check the rendered value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from labkit import access, latency, occupancy, roofline, workloads
from labkit.datasheets import H100_SXM, H200_SXM, Datasheet
from labkit.device import fp32_lanes_per_sm, fp32_peak_gflops
from labkit.labs.lab01 import LAB as LAB01
from labkit.labs.lab01.results import SWEEP_FMAS
from labkit.labs.lab04 import LAB as LAB04
from labkit.labs.lab04.results import RANK_TIE_SHARE
from labkit.kernels.mysteries_launch import REPAIRED_MAX_REGISTERS, THREADS as LAB05_THREADS
from labkit.profiling import checklist
from labkit.launch import PORTABLE_MAX_THREADS_PER_BLOCK
from labkit.errors import LabkitError
from labkit.profiling import diagnosis
from labkit.report.numbers import format_number


@dataclass(frozen=True)
class Figure:
    """A number for the prose: how to compute it and how many decimals to show.

    ``count_words``: a large count written with each language's word for its order of magnitude
    (French: 268,4 millions; Chinese: 2.68 亿), with COUNT_WORDS's decimals.
    """

    compute: Callable[[], float]
    decimals: int = 0
    count_words: bool = False

    def value(self) -> float:
        if self.count_words:
            return float(self.compute())
        return float(round(self.compute(), self.decimals))


#: A count's (scale, word, decimals) in each language, largest first: 10^9 and 10^6 in French,
#: 10^8 (亿) and 10^4 (万) in Chinese.
COUNT_WORDS = {
    "fr": ((1e9, "milliards", 1), (1e6, "millions", 1)),
    "zh": ((1e8, "亿", 2), (1e4, "万", 1)),
}


def format_count(value: float, lang: str) -> str:
    """A count as the language says large ones: 268435456 -> '268,4 millions' (fr), '2.68 亿' (zh);
    below every scale, the plain number."""
    for scale, word, decimals in COUNT_WORDS.get(lang, ()):
        if value >= scale:
            return f"{format_number(value / scale, decimals, lang)} {word}"
    return format_number(value, 0, lang)


# Chapter 4, quiz "excess traffic": a kernel reaches 2900 GB/s on an H100, needs 40 MB,
# takes 45 us. The givens are the scenario; everything else is derived.
TRAFFIC_ACHIEVED_GBPS = 2900.0
TRAFFIC_USEFUL_BYTES = 40e6
TRAFFIC_REAL_SECONDS = 45e-6


def _traffic() -> roofline.Traffic:
    return roofline.traffic_from_bandwidth(
        TRAFFIC_ACHIEVED_GBPS, TRAFFIC_REAL_SECONDS, TRAFFIC_USEFUL_BYTES
    )


def _traffic_t_min_seconds() -> float:
    return roofline.t_min_seconds(0.0, TRAFFIC_USEFUL_BYTES, H100_SXM.fp32_gflops, H100_SXM.hbm_gbps)


# Chapter 4, "measure without a profiler": lab 04's working set that fits in L2, against the H100's L2.
L2_DEMO_WORKING_SET_BYTES = LAB04.gpu_sizes.l2_set_bytes


# Chapter 1, worked examples: lab 01's sizes (large enough that launch costs vanish), so that the
# text's examples are the kernels the lab measures.
SAXPY_N = LAB01.gpu_sizes.vector_elements
REDUCTION_N = LAB01.gpu_sizes.vector_elements
GEMM_N = LAB01.gpu_sizes.gemm_n
GEMM_TILES = (32, 64, 128)
#: Register blocks of C per thread (r x r) for the shared-memory roof: 1 is the lab's kernel.
GEMM_REGISTER_BLOCKS = (1, 2, 4, 8)
STENCIL_N = LAB01.gpu_sizes.stencil_n
VERDICT_EXAMPLE_RATIO = 1.5


def _sectors_ratio(stride_elements: int, offset_bytes: int = 0) -> float:
    """Sectors a warp's 4-byte load touches, over the coalesced warp's: labkit.access's count."""
    sectors = access.analyze(access.WarpAccess(access.strided(stride_elements, 4, offset_bytes), 4)).sectors
    return sectors / access.analyze(access.WarpAccess(access.strided(1, 4), 4)).sectors


def _sectors(stride_elements: int) -> float:
    return access.analyze(access.WarpAccess(access.strided(stride_elements, 4), 4)).sectors


def _lab05_sizes():
    from labkit.labs.lab05 import LAB

    return LAB.gpu_sizes


def _t_min_us(workload: workloads.Workload, sheet: Datasheet) -> float:
    return 1e6 * roofline.t_min_seconds(workload.flops, workload.bytes_, sheet.fp32_gflops, sheet.hbm_gbps)


def _ridge(sheet: Datasheet) -> float:
    return roofline.ridge_point(sheet.fp32_gflops, sheet.hbm_gbps)


def _chapter1_figures() -> dict[str, Figure]:
    out = {
        "h100.fp32_tflops": Figure(lambda: H100_SXM.fp32_gflops / 1000),
        "h200.fp32_tflops": Figure(lambda: H200_SXM.fp32_gflops / 1000),
        "h200.hbm_gbps": Figure(lambda: H200_SXM.hbm_gbps),
        "h200.hbm_tbps": Figure(lambda: H200_SXM.hbm_gbps / 1000, 1),
        "h100.ridge": Figure(lambda: _ridge(H100_SXM), 1),
        "h200.ridge": Figure(lambda: _ridge(H200_SXM), 1),
        "ch01.saxpy.intensity": Figure(lambda: workloads.saxpy(SAXPY_N).intensity, 2),
        "ch01.saxpy.n_millions": Figure(lambda: SAXPY_N / 1e6, 1),
        "ch01.saxpy.n_count": Figure(lambda: SAXPY_N, count_words=True),
        "ch01.saxpy.gb": Figure(lambda: workloads.saxpy(SAXPY_N).bytes_ / 1e9, 2),
        "ch01.reduction.intensity": Figure(lambda: workloads.reduction(REDUCTION_N).intensity, 2),
        "ch01.reduction.gb": Figure(lambda: workloads.reduction(REDUCTION_N).bytes_ / 1e9, 2),
        "ch01.gemm.n": Figure(lambda: GEMM_N),
        "ch01.stencil.n": Figure(lambda: STENCIL_N),
        "ch01.stencil.intensity_reuse": Figure(lambda: workloads.stencil_5pt(STENCIL_N).intensity, 2),
        "ch01.stencil.intensity_no_reuse": Figure(lambda: workloads.stencil_5pt(STENCIL_N, reuse=False).intensity, 2),
        "ch01.stencil.gb_reuse": Figure(lambda: workloads.stencil_5pt(STENCIL_N).bytes_ / 1e9, 2),
        "ch01.stencil.gb_no_reuse": Figure(lambda: workloads.stencil_5pt(STENCIL_N, reuse=False).bytes_ / 1e9, 2),
        "ch01.verdict.ratio": Figure(lambda: VERDICT_EXAMPLE_RATIO, 1),
    }
    for gpu, sheet in (("h100", H100_SXM), ("h200", H200_SXM)):
        out[f"ch01.saxpy.t_min_us.{gpu}"] = Figure(lambda s=sheet: _t_min_us(workloads.saxpy(SAXPY_N), s))
        out[f"ch01.reduction.t_min_us.{gpu}"] = Figure(lambda s=sheet: _t_min_us(workloads.reduction(REDUCTION_N), s))
        out[f"ch01.stencil.t_min_us_reuse.{gpu}"] = Figure(lambda s=sheet: _t_min_us(workloads.stencil_5pt(STENCIL_N), s))
        out[f"ch01.stencil.t_min_us_no_reuse.{gpu}"] = Figure(
            lambda s=sheet: _t_min_us(workloads.stencil_5pt(STENCIL_N, reuse=False), s))
        for tile in GEMM_TILES:
            out[f"ch01.gemm.t_min_ms.tile{tile}.{gpu}"] = Figure(
                lambda s=sheet, t=tile: _t_min_us(workloads.gemm_tiled(GEMM_N, t), s) / 1000, 1)
    for tile in GEMM_TILES:
        out[f"ch01.gemm.intensity.tile{tile}"] = Figure(lambda t=tile: workloads.gemm_tiled(GEMM_N, t).intensity, 1)
        out[f"ch01.gemm.tile.{tile}"] = Figure(lambda t=tile: t)
    # The shared-memory roof of a tiled GEMM: FLOP per wavefront, and the FLOP rate it allows on
    # an H200 (132 SMs at 1980 MHz), for one output per thread and for register blocks of C.
    for block in GEMM_REGISTER_BLOCKS:
        per_wavefront = workloads.gemm_flops_per_wavefront(block, block)
        out[f"ch01.gemm.shared_roof_tflops.r{block}.h200"] = Figure(
            lambda f=per_wavefront: roofline.shared_roof_gflops(f, H200_SXM.sm_count, H200_SXM.boost_clock_mhz) / 1e3, 1)
        out[f"ch01.gemm.shared_roof_pct_of_fp32.r{block}.h200"] = Figure(
            lambda f=per_wavefront: 100 * roofline.shared_roof_gflops(f, H200_SXM.sm_count, H200_SXM.boost_clock_mhz)
            / fp32_peak_gflops(H200_SXM.sm_count, (9, 0), H200_SXM.boost_clock_mhz), 1)
        out[f"ch01.gemm.flops_per_wavefront.r{block}"] = Figure(lambda f=per_wavefront: f)
        out[f"ch01.gemm.outputs_per_thread.r{block}"] = Figure(lambda b=block: b * b)
        out[f"ch01.gemm.shared_loads_per_step.r{block}"] = Figure(lambda b=block: 2 * b)
    out["ch01.gemm.max_tile_one_output_per_thread"] = Figure(
        lambda: math.isqrt(PORTABLE_MAX_THREADS_PER_BLOCK))
    out["cuda.max_threads_per_block"] = Figure(lambda: PORTABLE_MAX_THREADS_PER_BLOCK)
    out["h200.fp32_flops_per_sm_clock"] = Figure(lambda: 2 * fp32_lanes_per_sm((9, 0)))
    return out


# Chapter 3: occupancy from labkit.occupancy (compute capability 9.0), Little's law from labkit.latency.
#: The worked examples' launches: 256 threads x 64 registers; 1024 threads x 32 or 33 registers;
#: 256 threads with 56 or 57 KiB of dynamic shared memory.
CH03_BLOCK, CH03_REGISTERS = 256, 64
CH03_BIG_BLOCK = 1024
CH03_SMEM_KIB = (56, 57)
#: Little's law example: the H200's datasheet bandwidth and an HBM latency of this many ns (a round
#: value for the example; the lab measures the real one).
CH03_LATENCY_NS = 600.0
#: Dependent-FMA latency for the example: the Programming Guide's typical 4 cycles (CC 7.x); one
#: warp instruction per scheduler per cycle.
CH03_FMA_LATENCY_CYCLES, CH03_FMA_ISSUE = 4.0, 1.0
#: Waves example: 2 resident blocks per SM, one block more than a wave; the small-grid quiz:
#: 150 blocks of 256 threads.
CH03_WAVE_BLOCKS_PER_SM = 2
CH03_SMALL_GRID = 150


def _ch03_launch(threads: int, registers: int, dynamic_kib: int = 0) -> occupancy.Occupancy:
    return occupancy.calculate(occupancy.KernelLaunch(threads, registers, 0, dynamic_kib * 1024))


def _ch03_copy_reads_per_sm() -> float:
    """Bytes of reads in flight per SM for an H200 copy at its datasheet bandwidth (half of it reads)."""
    return latency.bytes_in_flight_per_sm(H200_SXM.hbm_gbps / 2, CH03_LATENCY_NS * 1e-9, H200_SXM.sm_count)


def _ch03_copy_warps(loads: int, bytes_per_load: int) -> float:
    """Little's law with the latency alone: warps per SM whose reads cover (C / 2) x latency."""
    return _ch03_copy_reads_per_sm() / latency.bytes_in_flight_per_warp(loads, bytes_per_load)


def _ch03_copy_knee(loads: int, bytes_per_load: int) -> float:
    """With each warp's round trip (latency + its bytes at its SM's share): one warp more."""
    return latency.copy_knee_warps_per_sm(H200_SXM.hbm_gbps, latency.bytes_in_flight_per_warp(loads, bytes_per_load),
                                          CH03_LATENCY_NS * 1e-9, H200_SXM.sm_count)


def _ch03_transfer_ns(loads: int, bytes_per_load: int) -> float:
    """A warp's reads and writes at its SM's share of the datasheet bandwidth, in ns."""
    moved = 2 * latency.bytes_in_flight_per_warp(loads, bytes_per_load)
    return latency.share_transfer_seconds(moved, H200_SXM.hbm_gbps, H200_SXM.sm_count) * 1e9


def _ch03_wave_slots() -> int:
    return H200_SXM.sm_count * CH03_WAVE_BLOCKS_PER_SM


def _chapter3_figures() -> dict[str, Figure]:
    sm90 = occupancy.SM90
    small_grid = _ch03_launch(CH03_BLOCK, 32)
    return {
        "sm90.max_warps_per_sm": Figure(lambda: sm90.max_warps_per_sm),
        "sm90.max_threads_per_sm": Figure(lambda: sm90.max_threads_per_sm),
        "sm90.max_blocks_per_sm": Figure(lambda: sm90.max_blocks_per_sm),
        "sm90.schedulers": Figure(lambda: sm90.sm_sub_partitions),
        "sm90.warps_per_scheduler": Figure(lambda: sm90.max_warps_per_sm // sm90.sm_sub_partitions),
        "sm90.registers_per_sm": Figure(lambda: sm90.registers_per_sm),
        "sm90.registers_per_scheduler": Figure(lambda: sm90.registers_per_sm // sm90.sm_sub_partitions),
        "sm90.max_registers_per_thread": Figure(lambda: sm90.max_registers_per_thread),
        "sm90.full_occupancy_registers": Figure(
            lambda: sm90.registers_per_sm // sm90.max_threads_per_sm),
        "sm90.shared_kib": Figure(lambda: sm90.shared_bytes_per_sm / 1024),
        "sm90.optin_kib": Figure(lambda: sm90.max_shared_bytes_per_block_optin / 1024),
        "h200.sms": Figure(lambda: H200_SXM.sm_count),
        "ch03.ex.regs64.per_warp": Figure(lambda: occupancy.registers_per_warp(CH03_REGISTERS)),
        "ch03.ex.regs64.warps_per_scheduler": Figure(
            lambda: (sm90.registers_per_sm // sm90.sm_sub_partitions) // occupancy.registers_per_warp(CH03_REGISTERS)),
        "ch03.ex.regs64.warps_per_sm": Figure(
            lambda: (sm90.registers_per_sm // sm90.sm_sub_partitions) // occupancy.registers_per_warp(CH03_REGISTERS)
            * sm90.sm_sub_partitions),
        "ch03.ex.block_warps": Figure(lambda: CH03_BLOCK // sm90.warp_size),
        "ch03.ex.big_block_warps": Figure(lambda: CH03_BIG_BLOCK // sm90.warp_size),
        "ch03.ex.regs33.warps_per_scheduler": Figure(
            lambda: (sm90.registers_per_sm // sm90.sm_sub_partitions) // occupancy.registers_per_warp(33)),
        "ch03.ex.regs33.warps_per_sm": Figure(
            lambda: (sm90.registers_per_sm // sm90.sm_sub_partitions) // occupancy.registers_per_warp(33)
            * sm90.sm_sub_partitions),
        "ch03.ex.smem56.allocated_kib": Figure(
            lambda: _ch03_launch(CH03_BLOCK, 16, CH03_SMEM_KIB[0]).shared_bytes_per_block / 1024),
        "ch03.ex.regs64.blocks": Figure(lambda: _ch03_launch(CH03_BLOCK, CH03_REGISTERS).blocks_per_sm),
        "ch03.ex.regs64.occupancy_pct": Figure(lambda: 100 * _ch03_launch(CH03_BLOCK, CH03_REGISTERS).occupancy),
        "ch03.ex.regs80.occupancy_pct": Figure(lambda: 100 * _ch03_launch(CH03_BLOCK, 80).occupancy, 1),
        "ch03.ex.regs33.per_warp": Figure(lambda: occupancy.registers_per_warp(33)),
        "ch03.ex.regs33.blocks": Figure(lambda: _ch03_launch(CH03_BIG_BLOCK, 33).blocks_per_sm),
        "ch03.ex.regs33.occupancy_pct": Figure(lambda: 100 * _ch03_launch(CH03_BIG_BLOCK, 33).occupancy),
        "ch03.ex.regs32.blocks": Figure(lambda: _ch03_launch(CH03_BIG_BLOCK, 32).blocks_per_sm),
        "ch03.ex.smem56.blocks": Figure(lambda: _ch03_launch(CH03_BLOCK, 16, CH03_SMEM_KIB[0]).blocks_per_sm),
        "ch03.ex.smem57.blocks": Figure(lambda: _ch03_launch(CH03_BLOCK, 16, CH03_SMEM_KIB[1]).blocks_per_sm),
        "ch03.little.latency_ns": Figure(lambda: CH03_LATENCY_NS),
        "ch03.little.total_mb": Figure(lambda: latency.bytes_in_flight(H200_SXM.hbm_gbps, CH03_LATENCY_NS * 1e-9) / 1e6,
                                       2),
        "ch03.little.per_sm_kb": Figure(lambda: latency.bytes_in_flight_per_sm(
            H200_SXM.hbm_gbps, CH03_LATENCY_NS * 1e-9, H200_SXM.sm_count) / 1e3, 1),
        "ch03.little.copy_reads_per_sm_kb": Figure(lambda: _ch03_copy_reads_per_sm() / 1e3, 1),
        "ch03.little.copy_warps_scalar": Figure(lambda: _ch03_copy_warps(1, 4), 1),
        "ch03.little.copy_warps_vector": Figure(lambda: _ch03_copy_warps(1, 16), 1),
        "ch03.little.copy_warps_vector8": Figure(lambda: _ch03_copy_warps(8, 16), 1),
        "ch03.little.copy_warps_vector16": Figure(lambda: _ch03_copy_warps(16, 16), 1),
        "ch03.little.copy_knee_scalar": Figure(lambda: _ch03_copy_knee(1, 4), 1),
        "ch03.little.copy_knee_vector": Figure(lambda: _ch03_copy_knee(1, 16), 1),
        "ch03.little.copy_knee_vector8": Figure(lambda: _ch03_copy_knee(8, 16), 1),
        "ch03.little.copy_knee_vector16": Figure(lambda: _ch03_copy_knee(16, 16), 1),
        "ch03.little.transfer_ns_vector8": Figure(lambda: _ch03_transfer_ns(8, 16)),
        "ch03.little.share_gbps_per_sm": Figure(lambda: H200_SXM.hbm_gbps / H200_SXM.sm_count, 1),
        "ch03.little.l1_gbps_per_sm": Figure(
            lambda: roofline.SHARED_BYTES_PER_WAVEFRONT * H200_SXM.boost_clock_mhz * 1e6 / 1e9),
        "ch03.fma.latency_cycles": Figure(lambda: CH03_FMA_LATENCY_CYCLES),
        "ch03.fma.in_flight": Figure(lambda: latency.instructions_in_flight(CH03_FMA_LATENCY_CYCLES, CH03_FMA_ISSUE)),
        "ch03.fma.warps_1chain": Figure(lambda: latency.issue_knee_warps_per_sm(1, CH03_FMA_LATENCY_CYCLES,
                                                                                CH03_FMA_ISSUE)),
        "ch03.fma.warps_2chains": Figure(lambda: latency.issue_knee_warps_per_sm(2, CH03_FMA_LATENCY_CYCLES,
                                                                                 CH03_FMA_ISSUE)),
        "ch03.fma.warps_4chains": Figure(lambda: latency.issue_knee_warps_per_sm(4, CH03_FMA_LATENCY_CYCLES,
                                                                                 CH03_FMA_ISSUE)),
        "ch03.waves.blocks_per_sm": Figure(lambda: CH03_WAVE_BLOCKS_PER_SM),
        "ch03.waves.slots": Figure(_ch03_wave_slots),
        "ch03.waves.grid": Figure(lambda: _ch03_wave_slots() + 1),
        "ch03.waves.tail_pct": Figure(lambda: 100 * occupancy.tail_efficiency(
            _ch03_wave_slots() + 1, H200_SXM.sm_count, CH03_WAVE_BLOCKS_PER_SM), 1),
        "ch03.small_grid.blocks": Figure(lambda: CH03_SMALL_GRID),
        "ch03.small_grid.blocks_per_sm": Figure(lambda: small_grid.blocks_per_sm),
        "ch03.small_grid.waves": Figure(lambda: occupancy.waves(CH03_SMALL_GRID, H200_SXM.sm_count,
                                                                small_grid.blocks_per_sm), 2),
        "ch03.small_grid.achieved_max_pct": Figure(
            lambda: 100 * CH03_SMALL_GRID * small_grid.warps_per_block / H200_SXM.sm_count / sm90.max_warps_per_sm, 1),
    }


FIGURES: dict[str, Figure] = {
    "h100.hbm_gbps": Figure(lambda: H100_SXM.hbm_gbps),
    "h100.hbm_tbps": Figure(lambda: H100_SXM.hbm_gbps / 1000, 2),
    "h100.l2_mb": Figure(lambda: H100_SXM.l2_megabytes),
    "ch04.traffic.achieved_gbps": Figure(lambda: TRAFFIC_ACHIEVED_GBPS),
    "ch04.traffic.useful_mb": Figure(lambda: TRAFFIC_USEFUL_BYTES / 1e6),
    "ch04.traffic.real_us": Figure(lambda: TRAFFIC_REAL_SECONDS * 1e6),
    "ch04.traffic.t_min_us": Figure(lambda: _traffic_t_min_seconds() * 1e6),
    "ch04.traffic.percent_of_peak": Figure(lambda: 100 * TRAFFIC_ACHIEVED_GBPS / H100_SXM.hbm_gbps),
    "ch04.traffic.moved_mb": Figure(lambda: _traffic().moved_bytes / 1e6, 1),
    "ch04.traffic.excess_factor": Figure(lambda: _traffic().excess_factor, 1),
    "ch04.traffic.time_ratio": Figure(lambda: TRAFFIC_REAL_SECONDS / _traffic_t_min_seconds(), 1),
    "ch04.l2demo.working_set_mb": Figure(lambda: L2_DEMO_WORKING_SET_BYTES / 1e6),
    "lab04.rank_tie_pct": Figure(lambda: 100 * RANK_TIE_SHARE),
    "method.stop_below": Figure(lambda: roofline.STOP_BELOW, 1),
    "method.structural_above": Figure(lambda: roofline.STRUCTURAL_ABOVE, 0),
    "method.ratio_decimals": Figure(lambda: roofline.RATIO_DECIMALS),
    # Chapter 4, coalescing: a warp loading 4 bytes per lane, counted by labkit.access
    "ch04.coalescing.sectors_coalesced": Figure(lambda: _sectors(1)),
    "ch04.coalescing.sectors_one_per_lane": Figure(lambda: _sectors(8)),
    "ch04.coalescing.stride2_factor": Figure(lambda: _sectors_ratio(2), 1),
    "ch04.coalescing.misaligned_factor": Figure(lambda: _sectors_ratio(1, offset_bytes=4), 2),
    "ch04.coalescing.worst_factor": Figure(lambda: _sectors_ratio(8), 0),
    "ch04.coalescing.warp_bytes": Figure(
        lambda: access.analyze(access.WarpAccess(access.strided(1, 4), 4)).unique_bytes),
    # Chapter 1: a shared-memory wavefront (one per SM per clock), and the sweep's highest intensity
    "shared.wavefront_bytes": Figure(lambda: roofline.SHARED_BYTES_PER_WAVEFRONT),
    "ch01.sweep.intensity_max": Figure(lambda: 2 * max(SWEEP_FMAS) / (2 * workloads.FLOAT32_BYTES)),
    # Chapter 4, the decision tree's thresholds (labkit.profiling.diagnosis)
    "ch04.diagnosis.high_pct": Figure(lambda: diagnosis.HIGH_PCT),
    "ch04.diagnosis.launch_bound_us": Figure(lambda: diagnosis.LAUNCH_BOUND_SECONDS * 1e6),
    **_chapter1_figures(),
    **_chapter3_figures(),
    # Chapter 5: the checklist's thresholds, quoted where the prose explains them.
    "ch05.roof_pct": Figure(lambda: checklist.ROOF_PCT, 1),
    "ch05.min_gain_pct": Figure(lambda: checklist.MIN_GAIN_PCT),
    "ch05.divergence_threads": Figure(lambda: checklist.DIVERGENCE_THREADS),
    "ch05.low_occupancy_pct": Figure(lambda: checklist.LOW_OCCUPANCY_PCT),
    "ch05.high_pct": Figure(lambda: checklist.HIGH_PCT),
    "ch05.launch_us": Figure(lambda: checklist.LAUNCH_BOUND_SECONDS * 1e6),
    "lab05.slices": Figure(lambda: _lab05_sizes().slices),
    "lab05.slice_blocks": Figure(lambda: _lab05_sizes().slice_elements / LAB05_THREADS),
    "lab05.max_registers": Figure(lambda: REPAIRED_MAX_REGISTERS),
    "lab05.walk_blocks_per_sm": Figure(lambda: _lab05_sizes().walk_blocks / H200_SXM.sm_count),
}


def _warp(addresses, width_bytes: int, space: str = "global", op: str = "load") -> access.AccessCounts:
    return access.analyze(access.WarpAccess(tuple(addresses), width_bytes, op, space))


def _chapter2_figures() -> dict[str, Figure]:
    """Chapter 2: one warp-level access each, counted by labkit.access (the rules ncu confirmed)."""
    strided = access.strided
    column = access.tile_column

    def sectors(stride, width=4, offset=0):
        return lambda: _warp(strided(stride, width, offset), width).sectors

    def wavefronts(addresses, width=4):
        return lambda: _warp(addresses, width, "shared").wavefronts

    return {
        "ch02.sectors.f32_stride1": Figure(sectors(1)),
        "ch02.sectors.f32_stride2": Figure(sectors(2)),
        "ch02.sectors.f32_stride3": Figure(sectors(3)),
        "ch02.sectors.f32_stride8": Figure(sectors(8)),
        "ch02.sectors.f32_offset4": Figure(sectors(1, 4, 4)),
        "ch02.sectors.f32_offset32": Figure(sectors(1, 4, 32)),
        "ch02.sectors.f64_stride1": Figure(sectors(1, 8)),
        "ch02.sectors.v16_stride1": Figure(sectors(1, 16)),
        "ch02.sectors.aos32_field": Figure(sectors(8)),
        "ch02.span_bytes.f32_stride8": Figure(lambda: access.WARP_LANES * 8 * 4),
        "ch02.useful_share.f32_stride2": Figure(lambda: 100 * 128 / (32 * _warp(strided(2, 4), 4).sectors)),
        "ch02.dram.f32_stride32_bytes": Figure(lambda: access.fetched_bytes(strided(32, 4))),
        "ch02.dram.f32_stride32_sector_bytes": Figure(lambda: 32 * _warp(strided(32, 4), 4).sectors),
        "ch02.dram.f32_stride16_bytes": Figure(lambda: access.fetched_bytes(strided(16, 4))),
        "ch02.fetch_bytes": Figure(lambda: access.DRAM_FETCH_BYTES),
        "ch02.banks": Figure(lambda: access.BANKS),
        "ch02.wavefronts.column32": Figure(wavefronts(column(0, 32, 4))),
        "ch02.wavefronts.column33": Figure(wavefronts(column(0, 33, 4))),
        "ch02.wavefronts.column_swizzled": Figure(wavefronts(column(0, 32, 4, xor_swizzle=True))),
        "ch02.wavefronts.f32_stride2": Figure(wavefronts(strided(2, 4))),
        "ch02.wavefronts.f32_stride3": Figure(wavefronts(strided(3, 4))),
        "ch02.wavefronts.broadcast": Figure(wavefronts(access.broadcast(64))),
        "ch02.wavefronts.f64_stride1": Figure(wavefronts(strided(1, 8), 8)),
        "ch02.wavefronts.f64_stride2": Figure(wavefronts(strided(2, 8), 8)),
        "ch02.wavefronts.v16_stride1": Figure(wavefronts(strided(1, 16), 16)),
        "ch02.wavefronts.v16_stride2": Figure(wavefronts(strided(2, 16), 16)),
        "ch02.conflicts.column32": Figure(lambda: _warp(column(0, 32, 4), 4, "shared").bank_conflicts),
    }


FIGURES.update(_chapter2_figures())


class UnknownFigureError(LabkitError, KeyError):
    """A figure name that labkit.figures does not define."""

    def __str__(self) -> str:
        return self.args[0]


def figure_value(name: str) -> float:
    """The rounded value of a named figure; UnknownFigureError names the unknown figure."""
    try:
        return FIGURES[name].value()
    except KeyError:
        raise UnknownFigureError(f"unknown computed figure [[{name}]]: define it in labkit/figures.py") from None


def render_figure(name: str, lang: str) -> str:
    figure = FIGURES.get(name)
    if figure is not None and figure.count_words:
        return format_count(figure.value(), lang)
    return format_number(figure_value(name), FIGURES[name].decimals, lang)
