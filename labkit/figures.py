"""Computed figures quoted in the chapters' prose and quiz answers.

A chapter writes ``[[ch04.traffic.moved_mb]]`` where it quotes a number; the site plugin
replaces it with the value computed here, formatted for the page's language. Nothing that
can be computed is typed into a chapter by hand, and tests check the rendered value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from labkit import access, roofline, workloads
from labkit.datasheets import H100_SXM, H200_SXM, Datasheet
from labkit.device import fp32_lanes_per_sm, fp32_peak_gflops
from labkit.labs.lab01 import LAB as LAB01
from labkit.labs.lab01.results import SWEEP_FMAS
from labkit.labs.lab04 import LAB as LAB04
from labkit.labs.lab04.results import RANK_TIE_SHARE
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
    figure = FIGURES.get(name)
    if figure is not None and figure.count_words:
        return format_count(figure.value(), lang)
    return format_number(figure_value(name), FIGURES[name].decimals, lang)
