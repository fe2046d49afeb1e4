"""Computed figures quoted in the chapters' prose and quiz answers.

A chapter writes ``[[ch04.traffic.moved_mb]]`` where it quotes a number; the site plugin
replaces it with the value computed here, formatted for the page's language. Nothing that
can be computed is typed into a chapter by hand, and tests check the rendered value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from labkit import roofline, workloads
from labkit.datasheets import H100_SXM, H200_SXM, Datasheet
from labkit.device import fp32_peak_gflops
from labkit.labs.lab04.results import RANK_TIE_SHARE
from labkit.labs.lab05.results import REPAIRED_MAX_REGISTERS, THREADS as LAB05_THREADS
from labkit.profiling import checklist
from labkit.launch import PORTABLE_MAX_THREADS_PER_BLOCK
from labkit.errors import LabkitError
from labkit.report.numbers import format_number


@dataclass(frozen=True)
class Figure:
    """A number for the prose: how to compute it and how many decimals to show."""

    compute: Callable[[], float]
    decimals: int = 0

    def value(self) -> float:
        return float(round(self.compute(), self.decimals))


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


# Chapter 4, "measure without a profiler": a 20 MB working set against the H100's L2.
L2_DEMO_WORKING_SET_BYTES = 20e6


# Chapter 1, worked examples: sizes chosen large enough that launch costs vanish.
SAXPY_N = 1 << 28
REDUCTION_N = 1 << 28
GEMM_N = 8192
GEMM_TILES = (32, 64, 128)
#: Register blocks of C per thread (r x r) for the shared-memory roof: 1 is the lab's kernel.
GEMM_REGISTER_BLOCKS = (1, 2, 4, 8)
STENCIL_N = 16384
VERDICT_EXAMPLE_RATIO = 1.5


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
    # The shared-memory roof of a tiled GEMM: FLOP per wavefront, and the FLOP rate it allows on
    # an H200 (132 SMs at 1980 MHz), for one output per thread and for register blocks of C.
    for block in GEMM_REGISTER_BLOCKS:
        per_wavefront = workloads.gemm_flops_per_wavefront(block, block)
        out[f"ch01.gemm.shared_roof_tflops.r{block}.h200"] = Figure(
            lambda f=per_wavefront: roofline.shared_roof_gflops(f, H200_SXM.sm_count, H200_SXM.boost_clock_mhz) / 1e3, 1)
        out[f"ch01.gemm.shared_roof_pct_of_fp32.r{block}.h200"] = Figure(
            lambda f=per_wavefront: 100 * roofline.shared_roof_gflops(f, H200_SXM.sm_count, H200_SXM.boost_clock_mhz)
            / fp32_peak_gflops(H200_SXM.sm_count, (9, 0), H200_SXM.boost_clock_mhz), 1)
    out["ch01.gemm.flops_per_wavefront.r1"] = Figure(lambda: workloads.gemm_flops_per_wavefront(1, 1))
    out["ch01.gemm.max_tile_one_output_per_thread"] = Figure(
        lambda: math.isqrt(PORTABLE_MAX_THREADS_PER_BLOCK))
    return out


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
    **_chapter1_figures(),
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
}


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
    return format_number(figure_value(name), FIGURES[name].decimals, lang)
