"""Computed figures quoted in the chapters' prose and quiz answers.

A chapter writes ``[[ch04.traffic.moved_mb]]`` where it quotes a number; the site plugin
replaces it with the value computed here, formatted for the page's language. Nothing that
can be computed is typed into a chapter by hand, and tests check the rendered value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from labkit.errors import LabkitError
from labkit.gpu.device import fp32_lanes_per_sm, fp32_peak_gflops
from labkit.kernels.mysteries_launch import IN_FLIGHT as LAB05_IN_FLIGHT, REPAIRED_MAX_REGISTERS, THREADS as LAB05_THREADS
from labkit.kernels.reduction_launch import THREADS as REDUCTION_THREADS
from labkit.labs.lab01 import LAB as LAB01
from labkit.labs.lab01.results import SWEEP_FMAS
from labkit.labs.lab02.results import DRAM_TOLERANCE as LAB02_DRAM_TOLERANCE
from labkit.labs.lab04 import LAB as LAB04
from labkit.labs.lab04 import results as lab04_results
from labkit.labs.recorded import little_inputs, recorded_results
from labkit.models import access, latency, occupancy, roofline, workloads
from labkit.models.launch import PORTABLE_MAX_THREADS_PER_BLOCK
from labkit.profiling import checklist
from labkit.profiling import diagnosis
from labkit.report.numbers import format_number
from labkit.specs.datasheets import COURSE_GPU, H100_SXM, H200_SXM, Datasheet


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


# Chapter 5, quiz q05-roof: a kernel whose FMA pipe is busy most of its time, whose loads use a
# quarter of each sector, and ncu's UncoalescedGlobalAccess estimate for coalescing them. The givens
# are the scenario; the best duration is the checklist's cap (checklist.capped_gain_pct): the FMA
# pipe keeps its work, so the kernel cannot take less than its share of today's time.
CH05_CAP_US = 250.0
CH05_CAP_FMA_PCT = 88.0
CH05_CAP_RULE_PCT = 30.0
CH05_CAP_BYTES_PER_SECTOR = 8


def _ch05_cap_us(gain_pct: float) -> float:
    """The quiz kernel's duration once a lever gives ``gain_pct`` % of its time."""
    return CH05_CAP_US * (1 - gain_pct / 100)


def _traffic() -> roofline.Traffic:
    return roofline.traffic_from_bandwidth(
        TRAFFIC_ACHIEVED_GBPS, TRAFFIC_REAL_SECONDS, TRAFFIC_USEFUL_BYTES
    )


def _traffic_t_min_seconds() -> float:
    return roofline.t_min_seconds(0.0, TRAFFIC_USEFUL_BYTES, H100_SXM.fp32_gflops, H100_SXM.hbm_gbps)


# Chapter 4, "measure without a profiler": lab 04's working set that fits in L2, against the H100's L2.
L2_DEMO_WORKING_SET_BYTES = LAB04.gpu_sizes.l2_set_bytes

# Chapter 4, quiz "where the tail shows": a grid of this many blocks, one resident block per SM of an
# H200 (a 1,024-thread block: 50 % theoretical occupancy), so two waves, the second partial.
TAIL_GRID = 180
TAIL_BLOCKS_PER_SM = 1


def _tail_sm_active_share() -> float:
    """Share of the elapsed SM-cycles in which an SM is active, every block lasting as long:
    blocks / (waves x SMs x resident blocks), the waves rounded up."""
    slots = H200_SXM.sm_count * TAIL_BLOCKS_PER_SM
    return TAIL_GRID / (math.ceil(TAIL_GRID / slots) * slots)


# Chapter 1, worked examples: lab 01's sizes (large enough that launch costs vanish), so that the
# text's examples are the kernels the lab measures.
SAXPY_N = LAB01.gpu_sizes.vector_elements
REDUCTION_N = LAB01.gpu_sizes.vector_elements
GEMM_N = LAB01.gpu_sizes.gemm_n
GEMM_TILES = (32, 64, 128)
#: Register blocks of C per thread (r x r) for the shared-memory roof: 1 is the lab's kernel.
GEMM_REGISTER_BLOCKS = (1, 2, 4, 8)
STENCIL_N = LAB01.gpu_sizes.stencil_n
#: Chapter 1's quizzes: z = a*x + b*y in float32 (a multiply and an FMA, two reads and a write per
#: element); an FP64 kernel of 10 FLOP per byte; a copy of 1 GB (read + written) in 270 us.
AXPBY_FLOPS, AXPBY_BYTES = 3, 3 * workloads.FLOAT32_BYTES
FP64_QUIZ_INTENSITY = 10.0
#: The FP64 quiz's kernel does this much work (10^12 FLOP at FP64_QUIZ_INTENSITY: 100 GB of traffic).
FP64_QUIZ_FLOPS = 1e12
VERDICT_QUIZ_BYTES, VERDICT_QUIZ_SECONDS = 1e9, 270e-6
#: The GEMM quiz: each thread keeps a 2 x 4 block of C in registers (a case the text does not work).
GEMM_QUIZ_BLOCK = (2, 4)


def _sectors_ratio(stride_elements: int, offset_bytes: int = 0) -> float:
    """Sectors a warp's 4-byte load touches, over the coalesced warp's: labkit.models.access's count."""
    sectors = access.analyze(access.WarpAccess(access.strided(stride_elements, 4, offset_bytes), 4)).sectors
    return sectors / access.analyze(access.WarpAccess(access.strided(1, 4), 4)).sectors


def _sectors(stride_elements: int) -> float:
    return access.analyze(access.WarpAccess(access.strided(stride_elements, 4), 4)).sectors


def _lab04_chain_blocks() -> float:
    """Lab 04's scale_add grid: one thread per element of the chain's vector, in blocks of the lab's threads."""
    return math.ceil(LAB04.gpu_sizes.chain_elements / REDUCTION_THREADS)


def _lab04_chain_warps_per_block() -> float:
    return REDUCTION_THREADS / access.WARP_LANES


def _lab04_diagnosis(kernel: str) -> diagnosis.Diagnosis:
    """Lab 04's recorded Nsight Compute profile of ``kernel``, read as `labkit diagnose` reads it."""
    return next(k for k in recorded_results("lab-04").ncu.kernels if k.name == kernel).diagnosis()


def _lab04_speed_of_light(kernel: str) -> diagnosis.SpeedOfLight:
    """Lab 04's recorded Nsight Compute profile of ``kernel``: its Speed of Light."""
    return _lab04_diagnosis(kernel).speed_of_light


def _lab05_sizes():
    from labkit.labs.lab05 import LAB

    return LAB.gpu_sizes


def _t_min_us(workload: workloads.Workload, sheet: Datasheet) -> float:
    return 1e6 * roofline.t_min_seconds(workload.flops, workload.bytes_, sheet.fp32_gflops, sheet.hbm_gbps)


def _ridge(sheet: Datasheet) -> float:
    return roofline.ridge_point(sheet.fp32_gflops, sheet.hbm_gbps)


def _verdict_quiz_t_min_measured() -> float:
    """The quiz's copy against lab 01's measured copy ceiling on the H200."""
    return roofline.t_min_seconds(0.0, VERDICT_QUIZ_BYTES, H200_SXM.fp32_gflops, recorded_results("lab-01").bandwidth_gbps)


def _fp64_quiz_seconds(peak_gflops: float) -> float:
    """t_min of the FP64 quiz's kernel (FP64_QUIZ_FLOPS at FP64_QUIZ_INTENSITY) against the H200
    SXM's HBM and a compute roof of ``peak_gflops``."""
    return roofline.t_min_seconds(FP64_QUIZ_FLOPS, FP64_QUIZ_FLOPS / FP64_QUIZ_INTENSITY, peak_gflops,
                                  H200_SXM.hbm_gbps)


def _lab01_placed(kernel: str):
    results = recorded_results("lab-01")
    return results, results.placed(kernel)


def _lab01_ratio(kernel: str) -> float:
    results, row = _lab01_placed(kernel)
    return results.t_ratio(row)


def _lab01_dram_over_minimum(kernel: str) -> float:
    """ncu's DRAM bytes (read + written) of a placed kernel over its minimum traffic."""
    results, row = _lab01_placed(kernel)
    return results.dram_over_minimum(row)


def _lab01_stencil_dram_bytes_per_point() -> float:
    """ncu's DRAM bytes (read + written) of lab 01's stencil per grid point."""
    results = recorded_results("lab-01")
    return results.traffic_of("stencil_5pt").dram_bytes / results.sizes.stencil_n ** 2


def _fp32_at_boost_gflops(sheet: Datasheet = H200_SXM) -> float:
    """The FP32 lanes' peak at the sheet's boost clock, SMs x lanes x 2 x clock (the sheet's own figure is rounded)."""
    return fp32_peak_gflops(sheet.sm_count, sheet.compute_capability, sheet.boost_clock_mhz)


def _tensor_datasheet_tflops(precision: str, sheet: Datasheet = H200_SXM) -> float:
    """The dense tensor-core rate at the clock the vendor's figures assume (labkit.specs.datasheets)."""
    from labkit.models.tensor_cores import tensor_peak_gflops

    return tensor_peak_gflops(sheet.sm_count, sheet.compute_capability, precision, sheet.tensor_clock_mhz) / 1e3


def _lab01_tensor_clock_mhz(precision: str) -> float:
    """The SM clock lab 01's library product of ``precision`` ran at, measured on the GPU."""
    return recorded_results("lab-01").tensor_ceiling(precision).timing.sm_clock_ran_mhz


def _lab01_tensor_share_of_datasheet(precision: str) -> float:
    """cuBLAS's measured rate in lab 01 over the datasheet's dense rate (at 1830 MHz)."""
    ceiling = recorded_results("lab-01").tensor_ceiling(precision)
    return ceiling.gflops / 1e3 / _tensor_datasheet_tflops(precision)


def _chapter1_figures() -> dict[str, Figure]:
    out = {
        "ch01.quiz.fp64_t_min_ms": Figure(lambda: 1e3 * _fp64_quiz_seconds(H200_SXM.fp64_gflops), 1),
        "ch01.quiz.fp64_t_memory_ms": Figure(lambda: 1e3 * _fp64_quiz_seconds(math.inf), 1),
        "ch01.quiz.fp64_tflop": Figure(lambda: FP64_QUIZ_FLOPS / 1e12),
        "ch01.fp32_ridge_at_boost": Figure(lambda: roofline.ridge_point(
            _fp32_at_boost_gflops(), H200_SXM.hbm_gbps), 1),
        "ch01.quiz.gemm_block.rows": Figure(lambda: GEMM_QUIZ_BLOCK[0]),
        "ch01.quiz.gemm_block.cols": Figure(lambda: GEMM_QUIZ_BLOCK[1]),
        "ch01.quiz.gemm_block.loads": Figure(lambda: sum(GEMM_QUIZ_BLOCK)),
        "ch01.quiz.gemm_block.fmas": Figure(lambda: GEMM_QUIZ_BLOCK[0] * GEMM_QUIZ_BLOCK[1]),
        "ch01.quiz.gemm_block.flops_per_wavefront": Figure(
            lambda: workloads.gemm_flops_per_wavefront(*GEMM_QUIZ_BLOCK), 1),
        "ch01.quiz.gemm_block.shared_roof_tflops": Figure(lambda: roofline.shared_roof_gflops(
            workloads.gemm_flops_per_wavefront(*GEMM_QUIZ_BLOCK), H200_SXM.sm_count, H200_SXM.boost_clock_mhz) / 1e3, 1),
        "ch01.quiz.verdict.copy_us": Figure(lambda: 1e6 * VERDICT_QUIZ_BYTES / (recorded_results("lab-01").bandwidth_gbps * 1e9)),
        "ch01.quiz.verdict.margin_pct": Figure(
            lambda: 100 * (1 - _verdict_quiz_t_min_measured() / VERDICT_QUIZ_SECONDS)),
        "method.stop_roof_pct": Figure(lambda: 100 / roofline.STOP_BELOW),
        "method.stop_margin_pct": Figure(lambda: 100 * (1 - 1 / roofline.STOP_BELOW)),
        "method.structural_lost_pct": Figure(lambda: 100 * (1 - 1 / roofline.STRUCTURAL_ABOVE)),
        "lab01.saxpy.ratio": Figure(lambda: _lab01_ratio("saxpy"), roofline.RATIO_DECIMALS),
        "lab01.saxpy.pct_of_copy": Figure(lambda: 100 * recorded_results("lab-01").memory_roof_share(
            recorded_results("lab-01").placed("saxpy"))),
        "lab01.stencil.ratio": Figure(lambda: _lab01_ratio("stencil_5pt"), roofline.RATIO_DECIMALS),
        "lab01.saxpy.dram_of_minimum_pct": Figure(lambda: 100 * _lab01_dram_over_minimum("saxpy")),
        "lab01.stencil.dram_of_minimum_pct": Figure(lambda: 100 * _lab01_dram_over_minimum("stencil_5pt")),
        "lab01.stencil.dram_bytes_per_point": Figure(_lab01_stencil_dram_bytes_per_point, 1),
        "lab01.stencil.dram_busy_pct": Figure(lambda: 100 * recorded_results("lab-01").dram_share_of_roof(
            recorded_results("lab-01").placed("stencil_5pt"))),
        "lab01.sweep.least_of_roof_pct": Figure(
            lambda: 100 * min(recorded_results("lab-01").of_roof(p) for p in recorded_results("lab-01").sweep)),
        "h200.tensor_clock_mhz": Figure(lambda: H200_SXM.tensor_clock_mhz),
        "h200.tensor_tflops.fp64": Figure(lambda: _ch06_tensor_tflops("fp64"), 1),
        "h200.tensor_ridge.fp64": Figure(lambda: _ch06_tensor_tflops("fp64") * 1e3 / H200_SXM.hbm_gbps, 1),
        "h200.tensor_datasheet_sparse_tflops.fp16": Figure(lambda: 2 * _tensor_datasheet_tflops("fp16")),
        "h200.tensor_datasheet_ridge.fp16": Figure(lambda: _tensor_datasheet_tflops("fp16") * 1e3 / H200_SXM.hbm_gbps),
        "lab01.tensor.fp16_clock_mhz": Figure(lambda: _lab01_tensor_clock_mhz("fp16")),
        "lab01.tensor.fp32_clock_mhz": Figure(lambda: recorded_results("lab-01").ceilings.fp32.clock_mhz),
        "lab01.tensor.fp16_pct_of_datasheet": Figure(lambda: 100 * _lab01_tensor_share_of_datasheet("fp16")),
        "h100.fp32_tflops": Figure(lambda: H100_SXM.fp32_gflops / 1000),
        "h200.fp32_tflops": Figure(lambda: H200_SXM.fp32_gflops / 1000),
        "h200.hbm_gbps": Figure(lambda: H200_SXM.hbm_gbps),
        "h200.hbm_tbps": Figure(lambda: H200_SXM.hbm_gbps / 1000, 1),
        "h100.ridge": Figure(lambda: _ridge(H100_SXM), 1),
        "h200.ridge": Figure(lambda: _ridge(H200_SXM), 1),
        "ch01.saxpy.intensity": Figure(lambda: workloads.saxpy(SAXPY_N).intensity, 2),
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
        "h200.fp64_tflops": Figure(lambda: H200_SXM.fp64_gflops / 1000),
        "lab01.copy_gbps": Figure(lambda: recorded_results("lab-01").bandwidth_gbps),
        "ch01.quiz.axpby_intensity": Figure(lambda: roofline.arithmetic_intensity(AXPBY_FLOPS, AXPBY_BYTES), 2),
        "ch01.quiz.fp64_attainable_tflops": Figure(lambda: roofline.attainable_gflops(
            FP64_QUIZ_INTENSITY, H200_SXM.fp64_gflops, H200_SXM.hbm_gbps) / 1000),
        "ch01.quiz.fp64_ridge": Figure(lambda: roofline.ridge_point(H200_SXM.fp64_gflops, H200_SXM.hbm_gbps), 1),
        "ch01.quiz.verdict.t_min_datasheet_us": Figure(
            lambda: 1e6 * roofline.t_min_seconds(0.0, VERDICT_QUIZ_BYTES, H200_SXM.fp32_gflops, H200_SXM.hbm_gbps), 1),
        "ch01.quiz.verdict.t_min_measured_us": Figure(lambda: 1e6 * _verdict_quiz_t_min_measured(), 1),
        "ch01.quiz.verdict.ratio_datasheet": Figure(lambda: VERDICT_QUIZ_SECONDS / roofline.t_min_seconds(
            0.0, VERDICT_QUIZ_BYTES, H200_SXM.fp32_gflops, H200_SXM.hbm_gbps), roofline.RATIO_DECIMALS),
        "ch01.quiz.verdict.ratio_measured": Figure(
            lambda: VERDICT_QUIZ_SECONDS / _verdict_quiz_t_min_measured(), roofline.RATIO_DECIMALS),
    }
    for precision in ("fp16", "tf32", "fp8"):
        out[f"h200.tensor_datasheet_tflops.{precision}"] = Figure(lambda p=precision: _tensor_datasheet_tflops(p), 0)
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
            / _fp32_at_boost_gflops(), 1)
        out[f"ch01.gemm.flops_per_wavefront.r{block}"] = Figure(lambda f=per_wavefront: f)
        out[f"ch01.gemm.outputs_per_thread.r{block}"] = Figure(lambda b=block: b * b)
        out[f"ch01.gemm.shared_loads_per_step.r{block}"] = Figure(lambda b=block: 2 * b)
    out["ch01.gemm.max_tile_one_output_per_thread"] = Figure(
        lambda: math.isqrt(PORTABLE_MAX_THREADS_PER_BLOCK))
    out["cuda.max_threads_per_block"] = Figure(lambda: PORTABLE_MAX_THREADS_PER_BLOCK)
    out["h200.fp32_flops_per_sm_clock"] = Figure(lambda: 2 * fp32_lanes_per_sm(H200_SXM.compute_capability))
    return out


# Chapter 3: occupancy from labkit.models.occupancy (compute capability 9.0), Little's law from labkit.models.latency.
#: The worked examples' launches: 256 threads x 64 registers; 1024 threads x 32 or 33 registers;
#: 256 threads with 56 or 57 KiB of dynamic shared memory.
CH03_BLOCK, CH03_REGISTERS = 256, 64
CH03_BIG_BLOCK = 1024
CH03_SMEM_KIB = (56, 57)
#: Dependent-FMA latency for the example: the Programming Guide's typical 4 cycles (CC 7.x); one
#: warp instruction per scheduler per cycle.
CH03_FMA_LATENCY_CYCLES, CH03_FMA_ISSUE = 4.0, 1.0
#: An H200 SM's on-chip memory, shared between its L1 and its shared memory (H100 whitepaper).
SM90_ONCHIP_BYTES = 256 << 10
#: Waves example: 2 resident blocks per SM, one block more than a wave; the small-grid quiz:
#: 150 blocks of 256 threads.
CH03_WAVE_BLOCKS_PER_SM = 2
CH03_SMALL_GRID = 150


#: The quizzes' scenarios (new situations, not the text's examples): 192 threads x 48 registers;
#: 256 threads cut from 40 to 36 registers; a copy kept to 8 warps per SM (CH03_QUIZ_COPY_KNEE_WARPS); one FMA
#: chain per thread at 8 warps per SM; 1000 blocks at 3 blocks per SM.
CH03_QUIZ_BLOCK, CH03_QUIZ_REGISTERS = 192, 48
CH03_QUIZ_CUT_REGISTERS = 36
#: The copy-knee quiz: a copy kept to this many warps per SM; the reads in flight it needs per thread.
CH03_QUIZ_COPY_KNEE_WARPS = 8
CH03_QUIZ_FMA_WARPS = 8
CH03_QUIZ_GRID, CH03_QUIZ_BLOCKS_PER_SM = 1000, 3
#: The spills quiz: lab 03's register kernel (256 threads, 80 registers) capped at 32 registers.
CH03_QUIZ_SPILL_CAP = 32


def _ch03_launch(threads: int, registers: int, dynamic_kib: int = 0) -> occupancy.Occupancy:
    return occupancy.calculate(occupancy.KernelLaunch(threads, registers, 0, dynamic_kib * 1024))


def _ch03_copy_reads_per_sm() -> float:
    """Bytes of reads in flight per SM for the measured copy bandwidth C (half of it reads)."""
    little = little_inputs()
    return latency.bytes_in_flight_per_sm(little.copy_gbps / 2, little.latency_seconds, little.sm_count)


def _ch03_quiz_copy_bytes_per_warp() -> float:
    """Read bytes a warp must have in flight for the copy's knee to fall at CH03_QUIZ_COPY_KNEE_WARPS."""
    little = little_inputs()
    return latency.copy_read_bytes_per_warp_for_knee(little.copy_gbps, little.latency_seconds, little.sm_count,
                                                     CH03_QUIZ_COPY_KNEE_WARPS)


def _ch03_copy_warps(loads: int, bytes_per_load: int) -> float:
    """Little's law with the latency alone: warps per SM whose reads cover (C / 2) x latency."""
    return _ch03_copy_reads_per_sm() / latency.bytes_in_flight_per_warp(loads, bytes_per_load)


def _ch03_copy_knee(loads: int, bytes_per_load: int) -> float:
    """With each warp's round trip (latency + its bytes at its SM's share): one warp more."""
    little = little_inputs()
    return latency.copy_knee_warps_per_sm(little.copy_gbps, latency.bytes_in_flight_per_warp(loads, bytes_per_load),
                                          little.latency_seconds, little.sm_count)


def _ch03_transfer_ns(loads: int, bytes_per_load: int) -> float:
    """A warp's reads and writes at its SM's share of the measured copy bandwidth, in ns."""
    little = little_inputs()
    moved = 2 * latency.bytes_in_flight_per_warp(loads, bytes_per_load)
    return latency.share_transfer_seconds(moved, little.copy_gbps, little.sm_count) * 1e9


def _lab03_volkov_share(loads: int) -> float:
    """Lab 03's copy with ``loads`` 16-byte loads in flight per thread: its best bandwidth at 25 %
    theoretical occupancy or less (the Volkov table), as a share of the measured copy bandwidth C."""
    results = recorded_results("lab-03")
    return max(point.gbps for point in results.low_occupancy_points(loads)) / results.memory.copy_gbps


def _lab03_fma_best_of_peak(chains: int) -> float:
    """Lab 03's FMA sweep: the best point of the curve with ``chains`` independent chains per
    thread, over every warp count, as a share of the FP32 peak at the clock read during the sweep."""
    results = recorded_results("lab-03")
    return max(point.gflops for point in results.arithmetic.curve(chains)) / results.fp32_peak_gflops()


def _ch03_warps_per_sm_by_registers(registers: int) -> int:
    """Warps an SM holds at this many registers per thread: each partition holds whole warps."""
    sm90 = occupancy.SM90
    per_scheduler = (sm90.registers_per_sm // sm90.sm_sub_partitions) // occupancy.registers_per_warp(registers)
    return per_scheduler * sm90.sm_sub_partitions


def _ch03_naive_blocks(threads: int, registers: int) -> int:
    """The mistaken count: the SM's registers divided by a block's, ignoring partitions and granularity."""
    return occupancy.SM90.registers_per_sm // (registers * threads)


def _lab03_fma_point_of_peak(chains: int, warps_per_sm: int) -> float:
    """Lab 03's FMA sweep at one point (chains per thread, warps per SM), as a share of the FP32 peak."""
    results = recorded_results("lab-03")
    point = next(p for p in results.arithmetic.curve(chains) if p.launch.warps_per_sm == warps_per_sm)
    return point.gflops / results.fp32_peak_gflops()


def _lab03_fma_max_warps() -> int:
    """The most warps per SM lab 03's FMA sweep ran (64 on Hopper)."""
    return max(point.launch.warps_per_sm for point in recorded_results("lab-03").arithmetic.points)


def _lab03_ncu_launch(label: str):
    """Lab 03's step 6: the profiled launch ``label``."""
    return next(launch for launch in recorded_results("lab-03").ncu.launches if launch.label == label)


def _lab03_achieved_warps_per_scheduler(launch) -> float:
    """A profiled launch's achieved occupancy as warps per scheduler (sm__warps_active over 4 partitions)."""
    sm90 = occupancy.SM90
    return launch.achieved_pct / 100 * sm90.max_warps_per_sm / sm90.sm_sub_partitions


def _lab03_register_slowdown(cap: int) -> float:
    """Lab 03's register kernel (step 4) capped at ``cap`` registers per thread: its median time over
    the uncapped kernel's, the same launch."""
    variants = recorded_results("lab-03").registers.variants
    free = next(v for v in variants if v.max_registers is None)
    capped = next(v for v in variants if v.max_registers == cap)
    return capped.timing.median_seconds / free.timing.median_seconds


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
        "ch03.ex.block_warps": Figure(lambda: CH03_BLOCK // sm90.warp_size),
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
        "lab03.hbm_latency_ns": Figure(lambda: little_inputs().latency_seconds * 1e9, 1),
        "lab03.copy_gbps": Figure(lambda: little_inputs().copy_gbps),
        "ch03.little.total_mb": Figure(
            lambda: latency.bytes_in_flight(little_inputs().copy_gbps, little_inputs().latency_seconds) / 1e6, 2),
        # per SM in KiB, the unit of lab 03's table (lab03.little)
        "ch03.little.per_sm_kib": Figure(lambda: latency.bytes_in_flight_per_sm(
            little_inputs().copy_gbps, little_inputs().latency_seconds, little_inputs().sm_count) / 1024, 1),
        "ch03.little.copy_reads_per_sm_kib": Figure(lambda: _ch03_copy_reads_per_sm() / 1024, 1),
        "ch03.little.copy_warps_scalar": Figure(lambda: _ch03_copy_warps(1, 4), 1),
        "ch03.little.copy_warps_vector": Figure(lambda: _ch03_copy_warps(1, 16), 1),
        "ch03.little.copy_warps_vector8": Figure(lambda: _ch03_copy_warps(8, 16), 1),
        "ch03.little.copy_warps_vector16": Figure(lambda: _ch03_copy_warps(16, 16), 1),
        "ch03.little.copy_knee_scalar": Figure(lambda: _ch03_copy_knee(1, 4), 1),
        "ch03.little.copy_knee_vector": Figure(lambda: _ch03_copy_knee(1, 16), 1),
        "ch03.little.copy_knee_vector8": Figure(lambda: _ch03_copy_knee(8, 16), 1),
        "ch03.little.copy_knee_vector16": Figure(lambda: _ch03_copy_knee(16, 16), 1),
        "ch03.little.transfer_ns_vector8": Figure(lambda: _ch03_transfer_ns(8, 16)),
        "ch03.little.copy_knee_scalar_pct": Figure(lambda: 100 * _ch03_copy_knee(1, 4) / sm90.max_warps_per_sm),
        "ch03.little.share_gbps_per_sm": Figure(lambda: little_inputs().copy_gbps / little_inputs().sm_count, 1),
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
        "lab03.volkov_pct.l1": Figure(lambda: 100 * _lab03_volkov_share(1)),
        "lab03.volkov_pct.l4": Figure(lambda: 100 * _lab03_volkov_share(4)),
        "lab03.fma.best_pct.c1": Figure(lambda: 100 * _lab03_fma_best_of_peak(1)),
        "lab03.fma.best_pct.c2": Figure(lambda: 100 * _lab03_fma_best_of_peak(2)),
        "lab03.fma.best_pct.c4": Figure(lambda: 100 * _lab03_fma_best_of_peak(4)),
        "lab03.fma.c1_w8_pct": Figure(lambda: 100 * _lab03_fma_point_of_peak(1, CH03_QUIZ_FMA_WARPS)),
        # one chain per thread at the most warps swept, and how many times Little's knee that is
        "lab03.fma.wmax": Figure(lambda: _lab03_fma_max_warps()),
        "lab03.fma.wmax_per_scheduler": Figure(lambda: _lab03_fma_max_warps() / occupancy.SM90.sm_sub_partitions),
        "lab03.fma.c1_wmax_pct": Figure(lambda: 100 * _lab03_fma_point_of_peak(1, _lab03_fma_max_warps())),
        "lab03.fma.c1_wmax_over_knee": Figure(
            lambda: _lab03_fma_max_warps() / recorded_results("lab-03").predicted_fma_knee(1), 1),
        # step 6 on the one-chain kernel: 8 warps per SM (waves_one) and 16 (fma_1_chain_16_warps)
        **{f"lab03.ncu.fma1_w{warps}.{name}": Figure(
            (lambda label=label, read=read: read(_lab03_ncu_launch(label))), decimals)
           for warps, label in ((8, "waves_one"), (16, "fma_1_chain_16_warps"))
           for name, read, decimals in (("issue_pct", lambda launch: launch.issue_active_pct, 0),
                                        ("warps_per_scheduler", _lab03_achieved_warps_per_scheduler, 1),
                                        ("wait", lambda launch: launch.stall_wait, 1))},
        # step 3's operand pair at the most warps: one chain with a in a register, and as an immediate
        **{f"lab03.ncu.fma1_{kind}_wmax.{name}": Figure(
            (lambda label=label, read=read: read(_lab03_ncu_launch(label))), decimals)
           for kind, label in (("register", "fma_1_chain_64_warps"), ("immediate", "fma_1_chain_imm_64_warps"))
           for name, read, decimals in (("issue_pct", lambda launch: launch.issue_active_pct, 0),
                                        ("dispatch", lambda launch: launch.stall_dispatch, 1))},
        "lab03.ncu.fma1_immediate_wmax.ffma_share_pct": Figure(
            lambda: 100 * _lab03_ncu_launch("fma_1_chain_imm_64_warps").ffma_share),
        "lab03.fma.c1_imm_wmax_pct": Figure(
            lambda: 100 * recorded_results("lab-03").arithmetic.immediate_curve()[-1].gflops
            / recorded_results("lab-03").fp32_peak_gflops()),
        # step 1, where each level stops answering (the pointer chase)
        # ... the L1's end as a share of the SM's 256 KiB of on-chip memory (L1 + shared memory)
        "lab03.chase.l1_end_pct": Figure(
            lambda: 100 * recorded_results("lab-03").plateau_end_bytes("l1") / SM90_ONCHIP_BYTES),
        "lab03.chase.l2_end_mib": Figure(lambda: recorded_results("lab-03").plateau_end_bytes("l2") / 2**20),
        "lab03.chase.l2_end_pct": Figure(lambda: 100 * recorded_results("lab-03").plateau_end_bytes("l2")
                                         / recorded_results("lab-03").device.l2_bytes),
        "lab03.chase.hbm_from_mib": Figure(lambda: recorded_results("lab-03").level_reached_bytes("hbm") / 2**20),
        "lab03.registers.cap32_slowdown": Figure(lambda: _lab03_register_slowdown(CH03_QUIZ_SPILL_CAP)),
        "lab03.ncu.registers_32.local_sectors": Figure(lambda: _lab03_ncu_launch("registers_32").local_sectors,
                                                       count_words=True),
        "lab03.ncu.fma8_w4.issue_pct": Figure(lambda: _lab03_ncu_launch("fma_8_chains_4_warps").issue_active_pct),
        # the quizzes
        "ch03.quiz.regs48.per_warp": Figure(lambda: occupancy.registers_per_warp(CH03_QUIZ_REGISTERS)),
        "ch03.quiz.regs48.warps_per_scheduler": Figure(
            lambda: _ch03_warps_per_sm_by_registers(CH03_QUIZ_REGISTERS) // sm90.sm_sub_partitions),
        "ch03.quiz.regs48.warps_per_sm": Figure(lambda: _ch03_warps_per_sm_by_registers(CH03_QUIZ_REGISTERS)),
        "ch03.quiz.regs48.blocks": Figure(lambda: _ch03_launch(CH03_QUIZ_BLOCK, CH03_QUIZ_REGISTERS).blocks_per_sm),
        "ch03.quiz.regs48.occupancy_pct": Figure(
            lambda: 100 * _ch03_launch(CH03_QUIZ_BLOCK, CH03_QUIZ_REGISTERS).occupancy, 2),
        "ch03.quiz.regs48.naive_blocks": Figure(lambda: _ch03_naive_blocks(CH03_QUIZ_BLOCK, CH03_QUIZ_REGISTERS)),
        "ch03.quiz.regs36.per_warp": Figure(lambda: occupancy.registers_per_warp(CH03_QUIZ_CUT_REGISTERS)),
        "ch03.quiz.regs36.warps_per_scheduler": Figure(
            lambda: _ch03_warps_per_sm_by_registers(CH03_QUIZ_CUT_REGISTERS) // sm90.sm_sub_partitions),
        "ch03.quiz.regs36.blocks": Figure(lambda: _ch03_launch(CH03_BLOCK, CH03_QUIZ_CUT_REGISTERS).blocks_per_sm),
        "ch03.quiz.regs36.occupancy_pct": Figure(lambda: 100 * _ch03_launch(CH03_BLOCK, CH03_QUIZ_CUT_REGISTERS).occupancy),
        "ch03.quiz.regs40.occupancy_pct": Figure(lambda: 100 * _ch03_launch(CH03_BLOCK, 40).occupancy),
        "ch03.quiz.regs36.naive_occupancy_pct": Figure(
            lambda: 100 * _ch03_naive_blocks(CH03_BLOCK, CH03_QUIZ_CUT_REGISTERS) * CH03_BLOCK / sm90.max_threads_per_sm,
            1),
        "ch03.quiz.copy_knee.warps": Figure(lambda: CH03_QUIZ_COPY_KNEE_WARPS),
        "ch03.quiz.copy_knee.latency_warps": Figure(lambda: CH03_QUIZ_COPY_KNEE_WARPS - 1),
        "ch03.quiz.copy_knee.warp_bytes": Figure(lambda: _ch03_quiz_copy_bytes_per_warp()),
        "ch03.quiz.copy_knee.thread_bytes": Figure(
            lambda: _ch03_quiz_copy_bytes_per_warp() / access.WARP_LANES, 1),
        "ch03.quiz.copy_knee.naive_thread_bytes": Figure(
            lambda: _ch03_copy_reads_per_sm() / CH03_QUIZ_COPY_KNEE_WARPS / access.WARP_LANES, 1),
        "ch03.quiz.fma_bound_pct": Figure(lambda: 100 * latency.issue_share(
            CH03_QUIZ_FMA_WARPS, 1, CH03_FMA_LATENCY_CYCLES, CH03_FMA_ISSUE, sm90.sm_sub_partitions)),
        "ch03.quiz.tail.slots": Figure(lambda: H200_SXM.sm_count * CH03_QUIZ_BLOCKS_PER_SM),
        "ch03.quiz.tail.waves": Figure(
            lambda: occupancy.waves(CH03_QUIZ_GRID, H200_SXM.sm_count, CH03_QUIZ_BLOCKS_PER_SM), 2),
        "ch03.quiz.tail.pct": Figure(lambda: 100 * occupancy.tail_efficiency(
            CH03_QUIZ_GRID, H200_SXM.sm_count, CH03_QUIZ_BLOCKS_PER_SM), 1),
        "ch03.waves.blocks_per_sm": Figure(lambda: CH03_WAVE_BLOCKS_PER_SM),
        "ch03.waves.slots": Figure(_ch03_wave_slots),
        "ch03.waves.grid": Figure(lambda: _ch03_wave_slots() + 1),
        "ch03.waves.tail_pct": Figure(lambda: 100 * occupancy.tail_efficiency(
            _ch03_wave_slots() + 1, H200_SXM.sm_count, CH03_WAVE_BLOCKS_PER_SM), 1),
        "ch03.small_grid.blocks": Figure(lambda: CH03_SMALL_GRID),
        "ch03.small_grid.elements": Figure(lambda: CH03_SMALL_GRID * CH03_BLOCK),
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
    # ... and the course H200's L2 as its driver reports it (lab 03's recorded device facts), in MiB
    "ch04.l2demo.device_l2_mib": Figure(lambda: recorded_results("lab-03").device.l2_bytes / 2**20),
    "ch04.tail.grid": Figure(lambda: TAIL_GRID),
    "ch04.tail.last_wave_sms": Figure(lambda: TAIL_GRID % (H200_SXM.sm_count * TAIL_BLOCKS_PER_SM)),
    "ch04.tail.sm_active_pct": Figure(lambda: 100 * _tail_sm_active_share(), 0),
    # Chapter 4, Speed of Light: the tiled transpose's Memory Throughput under its own L2 row
    "lab04.ncu.tiled.memory_pct": Figure(lambda: _lab04_speed_of_light("transpose_tiled").memory_pct, 1),
    "lab04.ncu.tiled.l2_pct": Figure(lambda: _lab04_speed_of_light("transpose_tiled").l2_pct, 1),
    # ... its scheduler statistics and first stall (chapter 5's quiz q05-tiled)
    "lab04.ncu.tiled.dram_pct": Figure(lambda: _lab04_speed_of_light("transpose_tiled").dram_pct),
    "lab04.ncu.tiled.issue_active_pct": Figure(lambda: _lab04_diagnosis("transpose_tiled").scheduler.issue_active_pct),
    "lab04.ncu.tiled.no_eligible_pct": Figure(lambda: _lab04_diagnosis("transpose_tiled").scheduler.no_eligible_pct),
    "lab04.ncu.tiled.first_stall_pct": Figure(lambda: _lab04_diagnosis("transpose_tiled").top_stalls[0].pct),
    "lab04.ncu.tiled.achieved_occupancy_pct": Figure(
        lambda: _lab04_diagnosis("transpose_tiled").occupancy.achieved_pct),
    # ... and the short kernel the lab's tree calls launch-bound: its duration and DRAM share
    "lab04.ncu.sum_squares.duration_us": Figure(
        lambda: _lab04_speed_of_light("sum_squares").duration_seconds * 1e6, 1),
    "lab04.ncu.sum_squares.dram_pct": Figure(lambda: _lab04_speed_of_light("sum_squares").dram_pct),
    "method.stop_below": Figure(lambda: roofline.STOP_BELOW, 1),
    "method.structural_above": Figure(lambda: roofline.STRUCTURAL_ABOVE, 0),
    "method.ratio_decimals": Figure(lambda: roofline.RATIO_DECIMALS),
    # Chapter 4, coalescing: a warp loading 4 bytes per lane, counted by labkit.models.access
    "ch04.coalescing.sectors_coalesced": Figure(lambda: _sectors(1)),
    "ch04.coalescing.sectors_one_per_lane": Figure(lambda: _sectors(8)),
    "ch04.coalescing.stride2_factor": Figure(lambda: _sectors_ratio(2), 1),
    "ch04.coalescing.misaligned_factor": Figure(lambda: _sectors_ratio(1, offset_bytes=4), 2),
    "ch04.coalescing.worst_factor": Figure(lambda: _sectors_ratio(8), 0),
    "ch04.coalescing.warp_bytes": Figure(
        lambda: access.analyze(access.WarpAccess(access.strided(1, 4), 4)).unique_bytes),
    "ch04.coalescing.warp_bytes_f64": Figure(
        lambda: access.analyze(access.WarpAccess(access.strided(1, 8), 8)).unique_bytes),
    # Chapter 1: a shared-memory wavefront (one per SM per clock), and the sweep's highest intensity
    "shared.wavefront_bytes": Figure(lambda: roofline.SHARED_BYTES_PER_WAVEFRONT),
    # ... and what a warp-wide 16-byte broadcast (LDS.128 on one address) costs, by labkit.models.access
    "shared.v16_broadcast_wavefronts": Figure(
        lambda: access.analyze(access.WarpAccess(access.broadcast(64), 16, "load", "shared")).wavefronts),
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
    "ch05.quiz.cap.duration_us": Figure(lambda: CH05_CAP_US),
    "ch05.quiz.cap.fma_pct": Figure(lambda: CH05_CAP_FMA_PCT),
    "ch05.quiz.cap.rule_pct": Figure(lambda: CH05_CAP_RULE_PCT),
    "ch05.quiz.cap.bytes_per_sector": Figure(lambda: CH05_CAP_BYTES_PER_SECTOR),
    "ch05.quiz.cap.best_us": Figure(
        lambda: _ch05_cap_us(checklist.capped_gain_pct(CH05_CAP_RULE_PCT, CH05_CAP_FMA_PCT))),
    # ... and what the distractors believe: the rule's estimate whole, the time following the sectors
    "ch05.quiz.cap.rule_us": Figure(lambda: _ch05_cap_us(CH05_CAP_RULE_PCT)),
    "ch05.quiz.cap.sector_factor": Figure(lambda: access.SECTOR_BYTES / CH05_CAP_BYTES_PER_SECTOR),
    "ch05.quiz.cap.sectors_us": Figure(lambda: CH05_CAP_US * CH05_CAP_BYTES_PER_SECTOR / access.SECTOR_BYTES, 1),
    "lab04.chain_blocks": Figure(_lab04_chain_blocks),
    # Chapter 4, the ablation: the pairs each saving is the median of, and its interval's confidence
    "lab04.ablation.pairs": Figure(lambda: min(len(row.paired_saved_seconds)
                                               for row in recorded_results("lab-04").ablation)),
    "lab04.ablation.confidence_pct": Figure(lambda: 100 * lab04_results.CONFIDENCE),
    "lab04.chain_warps_per_block": Figure(_lab04_chain_warps_per_block),
    "lab04.chain_one_block_pct": Figure(
        lambda: 100 * _lab04_chain_warps_per_block() / occupancy.SM90.max_warps_per_sm, 1),
    "lab05.control_loads_in_flight": Figure(lambda: 2 * LAB05_IN_FLIGHT),
    "lab05.slices": Figure(lambda: _lab05_sizes().slices),
    "lab05.slice_blocks": Figure(lambda: _lab05_sizes().slice_elements / LAB05_THREADS),
    "lab05.max_registers": Figure(lambda: REPAIRED_MAX_REGISTERS),
    "lab05.walk_blocks_per_sm": Figure(lambda: _lab05_sizes().walk_blocks / H200_SXM.sm_count),
}


def _warp(addresses, width_bytes: int, space: str = "global", op: str = "load") -> access.AccessCounts:
    return access.analyze(access.WarpAccess(tuple(addresses), width_bytes, op, space))


def _chapter2_figures() -> dict[str, Figure]:
    """Chapter 2: one warp-level access each, counted by labkit.models.access (the rules ncu confirmed)."""
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
        "ch02.dram.f32_stride12_bytes": Figure(lambda: access.fetched_bytes(strided(12, 4))),
        "ch02.dram.f32_stride12_sector_bytes": Figure(lambda: 32 * _warp(strided(12, 4), 4).sectors),
        "ch02.dram.exact_up_to_bytes": Figure(lambda: dram_band_limits_bytes()[0]),
        "ch02.dram.double_from_bytes": Figure(lambda: dram_band_limits_bytes()[1]),
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


def dram_band_limits_bytes(max_stride_elements: int = 64) -> tuple[int, int]:
    """The chapter 2 rule read off labkit.models.access: for a warp loading one float32 every ``s``
    elements, the largest stride in bytes up to which DRAM delivers exactly the sectors' bytes
    (every stride below it included), and the smallest from which it delivers twice the sectors'
    bytes (every stride above it included)."""
    def ratio(stride: int) -> float:
        addresses = access.strided(stride, 4)
        return access.fetched_bytes(addresses) / (32 * _warp(addresses, 4).sectors)

    strides = range(1, max_stride_elements + 1)
    ratios = {s: ratio(s) for s in strides}
    exact = max(s for s in strides if all(ratios[t] == 1 for t in range(1, s + 1)))
    double = min(s for s in strides if all(ratios[t] == 2 for t in range(s, max_stride_elements + 1)))
    return 4 * exact, 4 * double


#: Chapter 2's quizzes: a warp of a 4 x 64 block reading a row-major float32 matrix of 4096 columns
#: (4 lanes per row, 8 rows); a 1D stencil's three loads; a stride of 10 floats; a [32][36] tile's
#: column; a double tile's column at 32, 33 and 34 elements per row.
CH02_QUIZ_MATRIX_COLUMNS, CH02_QUIZ_BLOCK_X = 4096, 4
CH02_QUIZ_DRAM_STRIDE = 10


def _ch02_quiz_figures() -> dict[str, Figure]:
    strided = access.strided

    def narrow_block() -> int:
        lanes = [(lane // CH02_QUIZ_BLOCK_X * CH02_QUIZ_MATRIX_COLUMNS + lane % CH02_QUIZ_BLOCK_X) * 4
                 for lane in range(access.WARP_LANES)]
        return _warp(lanes, 4).sectors

    def stencil() -> int:
        line = 32 * 128      # a warp starting at a multiple of 32 floats, away from the array's start
        return sum(_warp([line + 4 * lane + shift for lane in range(access.WARP_LANES)], 4).sectors
                   for shift in (-4, 0, 4))

    def double_column(row_elements: int) -> int:
        return _warp([8 * row_elements * row for row in range(access.WARP_LANES)], 8, "shared").wavefronts

    return {
        "ch02.quiz.narrow_block_sectors": Figure(narrow_block),
        "ch02.quiz.stencil_sectors": Figure(stencil),
        "ch02.quiz.dram_stride10_bytes": Figure(lambda: access.fetched_bytes(strided(CH02_QUIZ_DRAM_STRIDE, 4))),
        "ch02.quiz.dram_stride10_sector_bytes": Figure(lambda: 32 * _sectors(CH02_QUIZ_DRAM_STRIDE)),
        "ch02.quiz.column36_wavefronts": Figure(
            lambda: _warp(access.tile_column(0, 36, 4), 4, "shared").wavefronts),
        "ch02.quiz.double_column32_wavefronts": Figure(lambda: double_column(32)),
        "ch02.quiz.double_column33_wavefronts": Figure(lambda: double_column(33)),
        "ch02.quiz.double_column34_wavefronts": Figure(lambda: double_column(34)),
    }


def _lab02_particle_ratio(what: str, slow: tuple[str, str], fast: tuple[str, str]) -> float:
    """Lab 02's particle kernels, (layout, access) against (layout, access): the median times' ratio
    (``"time"``), or ncu's DRAM bytes' (``"dram_reads"``, ``"dram_writes"``, ``"dram_bytes"``: both)."""
    results = recorded_results("lab-02")
    a, b = results.particle(*slow).run, results.particle(*fast).run
    if what == "time":
        return a.timing.median_seconds / b.timing.median_seconds
    return _lab02_dram(a.measured, what) / _lab02_dram(b.measured, what)


def _lab02_dram(measured, what: str) -> float:
    reads, writes = measured.dram_read_bytes, measured.dram_write_bytes
    return {"dram_reads": reads, "dram_writes": writes, "dram_bytes": reads + writes}[what]


def _lab02_particle_dram_pct_of_copy(layout: str, access: str) -> float:
    """ncu's DRAM bytes (read + written) of a particle kernel per second of its median time, over the
    copy ceiling of the same run (a mixed stream like the copy's)."""
    results = recorded_results("lab-02")
    run = results.particle(layout, access).run
    return 100 * results.of_ceiling(run.timing.gbps(_lab02_dram(run.measured, "dram_bytes")))


def _lab02_stride1_least_pct_of_read_roof() -> float:
    """The least share of the read roof the coalesced sweep points reach, over the element widths."""
    results = recorded_results("lab-02")
    return 100 * min(results.of_read_roof(results.sweep_point(width, 1).useful_gbps) for width in (4, 8, 16))


def _lab02_useful_over(element_bytes: int, stride: int, other_stride: int) -> float:
    results = recorded_results("lab-02")
    return (results.sweep_point(element_bytes, stride).useful_gbps
            / results.sweep_point(element_bytes, other_stride).useful_gbps)


def _chapter2_lab_figures() -> dict[str, Figure]:
    """Chapter 2's figures read from lab 02's H200 record."""
    aos, soa, aos_vector = ("aos", "scalar"), ("soa", "scalar"), ("aos", "vector")
    out = {
        "lab02.particles.aos_over_soa_time": Figure(lambda: _lab02_particle_ratio("time", aos, soa), 2),
        "lab02.particles.aos_over_soa_dram_reads": Figure(lambda: _lab02_particle_ratio("dram_reads", aos, soa), 2),
        "lab02.particles.aos_over_soa_dram_writes": Figure(lambda: _lab02_particle_ratio("dram_writes", aos, soa), 2),
        "lab02.particles.aos_over_soa_dram_bytes": Figure(lambda: _lab02_particle_ratio("dram_bytes", aos, soa), 2),
        "lab02.particles.aos_scalar_over_vector_time": Figure(
            lambda: _lab02_particle_ratio("time", aos, aos_vector), 2),
        "lab02.particles.aos_vector_dram_pct_of_copy": Figure(lambda: _lab02_particle_dram_pct_of_copy(*aos_vector)),
        "lab02.particles.aos_scalar_dram_pct_of_copy": Figure(lambda: _lab02_particle_dram_pct_of_copy(*aos)),
        "lab02.particles.l1tex_pct.aos_scalar": Figure(
            lambda: recorded_results("lab-02").particle(*aos).run.measured.l1tex_throughput_pct),
        "lab02.particles.l1tex_pct.aos_vector": Figure(
            lambda: recorded_results("lab-02").particle(*aos_vector).run.measured.l1tex_throughput_pct),
        "lab02.read_roof.pct_of_copy": Figure(
            lambda: 100 * recorded_results("lab-02").of_ceiling(recorded_results("lab-02").read_roof.gbps)),
        "lab02.read_roof.fixed_us": Figure(lambda: 1e6 * recorded_results("lab-02").read_roof_fixed_seconds),
        "lab02.read_roof.short_pct": Figure(lambda: 100 * recorded_results("lab-02").of_read_roof(
            min(recorded_results("lab-02").read_roofs, key=lambda roof: roof.read_bytes).gbps)),
        "lab02.read_roof.short_mib": Figure(lambda: min(r.read_bytes for r in recorded_results("lab-02").read_roofs)
                                            / 2 ** 20),
        "lab02.read_roof.long_gib": Figure(lambda: recorded_results("lab-02").read_roof.read_bytes / 2 ** 30),
        # at the roof: shown to a tenth, 100.0 (a plain "100" is any page's percentage)
        "lab02.sweep.stride1_least_pct_of_read_roof": Figure(_lab02_stride1_least_pct_of_read_roof, 1),
        "lab02.sweep.stride1_over_stride2": Figure(lambda: _lab02_useful_over(4, 1, 2), 2),
        "lab02.sweep.stride1_over_stride8": Figure(lambda: _lab02_useful_over(4, 1, 8), 1),
        "lab02.transpose.naive_pct_of_copy": Figure(lambda: 100 * recorded_results("lab-02").vs_copy("transpose_naive")),
        "ch02.dram.tolerance_pct": Figure(lambda: 100 * LAB02_DRAM_TOLERANCE),
    }
    for byte_stride in LAB02_FALLING_BYTE_STRIDES:   # to a tenth: the first is at the roof (see above)
        out[f"lab02.sweep.dram_pct.b{byte_stride}"] = Figure(
            lambda b=byte_stride: 100 * recorded_results("lab-02").dram_share_at_byte_stride(b, roof="read"), 1)
    return out


#: The byte strides at which chapter 2 shows DRAM delivering less and less of the read roof.
LAB02_FALLING_BYTE_STRIDES = (64, 80, 96, 128, 256)


FIGURES.update(_chapter2_figures())
FIGURES.update(_ch02_quiz_figures())
FIGURES.update(_chapter2_lab_figures())



# Chapter 6: the matrix multiply on an H200 SXM at its datasheet figures (132 SMs, 1980 MHz,
# 4.8 TB/s); the tensor cores' rates from labkit.models.tensor_cores, the shared-memory wavefronts from
# labkit.models.access (the rules ncu confirmed), occupancy from labkit.models.occupancy.
CH06_N = 4096
#: The A tile's store in step 2: 32 lanes (tx) write column ty of rows tx of a k-major tile of
#: 32 (or 33) words per row; in the quiz a 16 x 16 tile, where a warp holds two values of ty.
CH06_TILE = 32
CH06_QUIZ_TILE = 16
#: Step 4's launch (256 threads, 128 registers) and shared memory (two buffers of the A slice, 8 x
#: 132 words, and of the B slice, 8 x 128 words).
CH06_THREADS, CH06_REGISTERS = 256, 128
CH06_SMEM_BYTES = 2 * (8 * 132 + 8 * 128) * 4
#: Step 3 in Numba: one buffer of the A slice (8 x 132 words) and of the B slice (8 x 128).
CH06_NUMBA_SMEM_BYTES = (8 * 132 + 8 * 128) * 4
#: Step 5b (hgemm_mma_128x128): a 128 x 128 tile of C per block of 2 x 2 warps, 64 x 64 per warp;
#: step 5a (hgemm_wmma): 32 x 64 per warp.
CH06_MMA_BLOCK, CH06_MMA_WARP, CH06_WMMA_WARP = (128, 128), (64, 64), (32, 64)
#: The quizzes: a thin product (M = N = 8192, K = 128, FP16 in and out).
CH06_QUIZ_THIN = (8192, 8192, 128)


def _ch06_numba_registers() -> int:
    """Registers per thread the compiler gave step 3's Numba kernel (no register bound), as lab 06
    recorded them: the quiz q06-blocks reasons on the lab's own kernel."""
    return next(r.registers for r in recorded_results("lab-06").resources if r.kernel == "regtile")


def _ch06_unit_pct(key: str, unit: str) -> float:
    """How busy ``unit`` was (% of its peak) in lab 06's profiled step ``key``."""
    return next(u.pct for u in recorded_results("lab-06").profile(key).diagnosis().units if u.unit == unit)


def _ch06_local_load_share(key: str) -> float:
    """Local-memory sectors read / (local + global sectors read) through L1 by lab 06's profiled step ``key``."""
    kernel = recorded_results("lab-06").profile(key).profile()
    local = kernel.value("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum")
    return local / (local + kernel.value("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"))


def _lab06_clock_mhz(item: str, large: bool, which: str) -> float | None:
    """The SM clock lab 06's run of ``item`` ran at (``ran``), the one of the cuBLAS timed call for
    call with it (``reference``), or NVML's reading during the run (``nvml``)."""
    run = _lab06_run(item, large)
    if which == "nvml":
        return run.timing.sm_clock_mhz
    timing = run.reference if which == "reference" else run.timing
    return None if timing is None else timing.sm_clock_ran_mhz


def _lab06_run(item: str, large: bool = False):
    """Lab 06's recorded run of a step or ``cublas_<precision>`` (the course's H200 record)."""
    run = recorded_results("lab-06").run(_lab06_recorded(item), large)
    if run is None:
        raise LabkitError(f"lab 06's record has no run of {item}{' at its large size' if large else ''}: "
                           "re-record it (make lab-06)")
    return run


def _lab06_recorded(key: str) -> str:
    """``key`` if lab 06's record holds that step; a step added after the record was made
    (results.ADDED_ITEMS) is one line naming the step and the fix, not an error inside a figure."""
    if key in recorded_results("lab-06").absent_items():
        raise LabkitError(f"lab 06's record predates its step {key}: re-record it (make lab-06)")
    return key


def _lab06_metric(key: str, metric: str) -> float:
    """A raw ncu metric of lab 06's profiled step ``key``."""
    return recorded_results("lab-06").profile(key).metrics[metric].value


def _lab06_peer_config(item: str):
    """What the peer's autotuner kept at the lab's main size, in lab 06's record."""
    results = recorded_results("lab-06")
    run = _lab06_run(item)
    config = next((c for c in results.peer_configs if c.kernel == item and c.side == run.side), None)
    if config is None:
        raise LabkitError(f"lab 06's record says nothing of what {item}'s autotuner kept: re-record it (make lab-06)")
    return config


def _lab06_of_peak_at_nvml_pct(item: str) -> float:
    """A run's share of its units' peak had the peak been taken at NVML's reading (provenance): what the
    course showed before it measured the SM clock on the GPU."""
    results, run = recorded_results("lab-06"), _lab06_run(item)
    return 100 * run.tflops * 1e3 / results.device.peak_gflops(run.precision, run.timing.sm_clock_mhz)


def _lab06_diagnosis_gain_pct(key: str, item: str) -> float:
    """The gain ``labkit diagnose`` estimates for ``item`` on lab 06's profiled step ``key``."""
    from labkit.profiling import checklist

    found = checklist.assess(recorded_results("lab-06").profile(key).diagnosis())
    return next(i.gain_pct for i in found.items if i.item == item)


def _ch06_tensor_tflops(precision: str) -> float:
    from labkit.models.tensor_cores import tensor_peak_gflops

    sheet = H200_SXM
    return tensor_peak_gflops(sheet.sm_count, sheet.compute_capability, precision, sheet.boost_clock_mhz) / 1e3


def _ch06_tensor_flops_per_clock(precision: str) -> int:
    from labkit.models.tensor_cores import dense_flops_per_clock_per_sm

    return dense_flops_per_clock_per_sm(H200_SXM.compute_capability, precision)


def _ch06_thin_product() -> workloads.Workload:
    """The quiz's C = A B with A M x K, B K x N, FP16 in and out: 2 M N K FLOP, each matrix read or
    written once (2 bytes per element)."""
    m, n, k = CH06_QUIZ_THIN
    return workloads.Workload("gemm_thin_fp16", 2.0 * m * n * k, 2.0 * (m * k + k * n + m * n))


def _ch06_mma_shared_roof_tflops() -> float:
    """Step 5b's shared-memory roof on an H200 SXM: FLOP per wavefront of the whole block (ldmatrix
    reads and cp.async writes) x one wavefront per SM per clock."""
    per_wavefront = workloads.mma_block_flops_per_wavefront(*CH06_MMA_BLOCK, *CH06_MMA_WARP)
    return roofline.shared_roof_gflops(per_wavefront, H200_SXM.sm_count, H200_SXM.boost_clock_mhz) / 1e3


def _ch06_kmajor_store(pad: int, tile: int = CH06_TILE, ty: int = 0) -> access.WarpAccess:
    """One warp's store sa[tx, ty] into a tile of ``tile`` rows of ``tile + pad`` words: with a
    block of tile x tile threads, a warp holds 32 / tile rows of threads (ty, ty + 1, ...)."""
    lanes = []
    for lane in range(access.WARP_LANES):
        tx, row_of_threads = lane % tile, ty + lane // tile
        lanes.append(4 * (tx * (tile + pad) + row_of_threads))
    return access.WarpAccess(tuple(lanes), 4, access.Op.STORE, access.Space.SHARED)


def _ch06_accumulator_store(column_words: int = 0) -> access.WarpAccess:
    """One warp's 4-byte store of two FP16 accumulators into C (N = CH06_N columns): lane l writes
    row l // 4, columns 2 (l % 4) and the next, from ``column_words`` pairs in (mma.sync's and
    wgmma's accumulator layout, as steps 5e and 5f store it)."""
    row_bytes = 2 * CH06_N
    lanes = tuple((lane // 4) * row_bytes + 4 * (column_words + lane % 4) for lane in range(access.WARP_LANES))
    return access.WarpAccess(lanes, 4, access.Op.STORE, access.Space.GLOBAL)


def _chapter6_figures() -> dict[str, Figure]:
    n = CH06_N
    fp32_peak = _fp32_at_boost_gflops() / 1e3
    out = {
        "ch06.n": Figure(lambda: n),
        # steps 3c, 4 and 4': Not Selected leads, yet issue slots stay empty (Scheduler Statistics)
        **{f"lab06.ncu.{key}.no_eligible_pct": Figure(
            (lambda key=key: 100 - _ch06_unit_pct(key, "issue")), 0) for key in ("ctile", "pipelined", "numba_pipelined")},
        # the gap of steps 4 and 4' to the FP32 roof, in points of the FMA pipe's peak (one warp
        # instruction per scheduler per cycle, the issue rate): slots with nothing issued, and issued
        # non-FMA instructions; the integer pipe, where 4' issues what 4 does not
        **{f"lab06.ncu.{key}.{what}_pct": Figure(
            (lambda key=key, what=what: _ch06_unit_pct(key, "issue") - _ch06_unit_pct(key, "pipe_fma") if what == "non_fma"
             else _ch06_unit_pct(key, f"pipe_{what}")), 0)
           for key in ("pipelined", "numba_pipelined") for what in ("fma", "non_fma", "alu")},
        # step 4': its local-memory reads (the spill) as a share of all the sectors it reads through L1
        "lab06.ncu.numba_pipelined.local_load_pct": Figure(lambda: 100 * _ch06_local_load_share("numba_pipelined"), 2),
        # the SM clock each run ran at (measured on the GPU) beside NVML's reading, and what it changes;
        # ``reference``: the clock of the cuBLAS timed call for call with the run (Run.reference)
        **{f"lab06.clock.{which}_mhz.{item}": Figure(
            (lambda item=item, which=which, large=large: _lab06_clock_mhz(item.removesuffix("_large"), large, which)), 0)
           for which, items in (("ran", (("cublas_fp16", False), ("cublas_fp16_large", True), ("pipelined", False),
                                         ("tma", False), ("tma_large", True), ("wmma", False))),
                                ("reference", (("tma_large", True), ("wmma", False))),
                                ("nvml", (("cublas_fp16", False), ("tma", False))))   # NVML's: provenance, at 4096 only
           for item, large in items},
        "lab06.of_peak_pct.cublas_fp16": Figure(lambda: 100 * recorded_results("lab-06").cublas_of_peak("fp16"), 0),
        # mma.sync's own ceiling (the register-only loop), and step 5b against it (issue 29)
        "lab06.mma_roof.flops_per_clock": Figure(lambda: recorded_results("lab-06").mma_roof_flops_per_clock()),
        "lab06.mma_roof.dense_pct": Figure(lambda: 100 * recorded_results("lab-06").mma_roof_share(), 0),
        "lab06.mma_roof.step_mma_pct": Figure(lambda: 100 * recorded_results("lab-06").of_mma_roof("mma"), 0),
        **{f"lab06.of_peak_pct.{key}": Figure(
            (lambda key=key: 100 * recorded_results("lab-06").of_peak(_lab06_recorded(key))), 0)
           for key in ("mma", "wgmma", "tma", "tma_bf16")},
        # the TMA steps and the Triton peer (issue 33): their share of cuBLAS in their precision, at
        # both sizes; what each TMA step gains over the one before it
        # (each timed call for call with cuBLAS: Lab06Results.versus_cublas)
        **{f"lab06.versus_cublas_pct.{key}{'_large' if large else ''}": Figure(
            (lambda key=key, large=large: 100 * recorded_results("lab-06").versus_cublas(_lab06_recorded(key), large)), 0)
           for key in ("regtile", "ctile", "pipelined", "numba_pipelined", "mma", "numba_mma", "wgmma", "tma_ws",
                       "tma_persistent", "tma", "tma_bf16", "triton_fp16", "triton_bf16")
           for large in (False, True)},
        # the TMA steps that store C from registers: bytes of each 32-byte sector their stores use
        **{f"lab06.ncu.{key}.store_bytes_per_sector": Figure(
            (lambda key=key: _lab06_metric(_lab06_recorded(key),
                                           "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio")), 0)
           for key in ("tma_ws", "tma_persistent")},
        # the Numba steps at CUDA C's register bound: what ptxas spilled
        **{f"lab06.resources.{key}.local_bytes": Figure(
            (lambda key=key: next(r.local_bytes for r in recorded_results("lab-06").resources
                                  if r.kernel == _lab06_recorded(key))))
           for key in ("numba_mma", "numba_pipelined")},
        **{f"lab06.speedup.{key}{'_large' if large else ''}": Figure(
            (lambda key=key, large=large: recorded_results("lab-06").speedup_over_previous(_lab06_recorded(key), large)),
            2) for key in ("tma_ws", "tma_persistent", "tma") for large in (False, True)},
        **{f"lab06.triton_fp16.{field}": Figure(
            (lambda field=field: getattr(_lab06_peer_config("triton_fp16"), field)))
           for field in ("block_m", "block_n", "block_k", "warps", "stages")},
        "lab06.ncu.tma.tensor_pct": Figure(lambda: _ch06_unit_pct(_lab06_recorded("tma"), "pipe_tensor"), 0),
        "lab06.of_peak_nvml_pct.cublas_fp16": Figure(lambda: _lab06_of_peak_at_nvml_pct("cublas_fp16"), 0),
        # WMMA: the two first items of the diagnosis, estimated at the same gain
        **{f"lab06.diagnosis.wmma.{item}_gain_pct": Figure(
            (lambda item=item: _lab06_diagnosis_gain_pct("wmma", item.replace("_", "-"))), 1)
           for item in ("bank_conflicts", "coalescing")},
        "ch06.wmma.occupancy_pct": Figure(
            lambda: recorded_results("lab-06").profile("wmma").diagnosis().occupancy.theoretical_pct, 1),
        "ch06.gflop": Figure(lambda: 2 * n**3 / 1e9, 1),
        "ch06.intensity.fp32": Figure(lambda: 2 * n**3 / (3 * n * n * 4), 0),
        "ch06.intensity.fp16": Figure(lambda: 2 * n**3 / (3 * n * n * 2), 0),
        "ch06.fp32_tflops": Figure(lambda: fp32_peak, 1),
        "ch06.t_min_ms.fp32": Figure(lambda: 2 * n**3 / (fp32_peak * 1e12) * 1e3, 2),
        "ch06.t_min_ms.fp16": Figure(lambda: 2 * n**3 / (_ch06_tensor_tflops("fp16") * 1e12) * 1e3, 3),
        "ch06.tensor_over_fp32": Figure(lambda: _ch06_tensor_tflops("fp16") / fp32_peak, 0),
        "ch06.reuse.tile": Figure(lambda: CH06_TILE),
        "ch06.conflict.ways": Figure(lambda: access.analyze(_ch06_kmajor_store(0)).wavefronts),
        "ch06.conflict.padded": Figure(lambda: access.analyze(_ch06_kmajor_store(1)).wavefronts),
        "ch06.quiz.tile16_wavefronts": Figure(lambda: access.analyze(_ch06_kmajor_store(0, CH06_QUIZ_TILE)).wavefronts),
        "ch06.regtile.threads": Figure(lambda: CH06_THREADS),
        "ch06.regtile.registers": Figure(lambda: CH06_REGISTERS),
        "ch06.regtile.blocks_per_sm": Figure(lambda: occupancy.calculate(occupancy.KernelLaunch(
            CH06_THREADS, CH06_REGISTERS, CH06_SMEM_BYTES, 0)).blocks_per_sm),
        "ch06.regtile.smem_kib": Figure(lambda: CH06_SMEM_BYTES / 1024, 1),
        # q06-store-sectors: one warp's store of C from mma's accumulator layout (steps 5e, 5f)
        "ch06.quiz.store.row_bytes": Figure(lambda: 2 * n),
        "ch06.quiz.store.sectors": Figure(lambda: access.analyze(_ch06_accumulator_store()).sectors),
        "ch06.quiz.store.min_sectors": Figure(
            lambda: -(-access.analyze(_ch06_accumulator_store()).unique_bytes // access.SECTOR_BYTES)),
        "ch06.quiz.tile16_pad1_wavefronts": Figure(
            lambda: access.analyze(_ch06_kmajor_store(1, CH06_QUIZ_TILE)).wavefronts),
        "ch06.quiz.tile16_pad2_wavefronts": Figure(
            lambda: access.analyze(_ch06_kmajor_store(2, CH06_QUIZ_TILE)).wavefronts),
        "ch06.quiz.thin.m": Figure(lambda: CH06_QUIZ_THIN[0]),
        "ch06.quiz.thin.k": Figure(lambda: CH06_QUIZ_THIN[2]),
        "ch06.quiz.thin.intensity": Figure(lambda: _ch06_thin_product().intensity, 0),
        "ch06.quiz.thin.t_memory_us": Figure(lambda: _ch06_thin_product().bytes_ / (H200_SXM.hbm_gbps * 1e9) * 1e6, 1),
        "ch06.quiz.thin.t_compute_us": Figure(
            lambda: _ch06_thin_product().flops / (_ch06_tensor_tflops("fp16") * 1e12) * 1e6, 1),
        "ch06.quiz.regs.registers": Figure(lambda: _ch06_numba_registers()),
        "ch06.quiz.regs.smem_kib": Figure(lambda: CH06_NUMBA_SMEM_BYTES / 1024, 1),
        "ch06.quiz.regs.per_warp": Figure(lambda: occupancy.registers_per_warp(_ch06_numba_registers())),
        "ch06.quiz.regs.warps_per_scheduler": Figure(
            lambda: _ch03_warps_per_sm_by_registers(_ch06_numba_registers()) // occupancy.SM90.sm_sub_partitions),
        "ch06.quiz.regs.warps_by_registers": Figure(lambda: _ch03_warps_per_sm_by_registers(_ch06_numba_registers())),
        "ch06.quiz.regs.blocks_by_threads": Figure(lambda: occupancy.calculate(occupancy.KernelLaunch(
            CH06_THREADS, _ch06_numba_registers(), CH06_NUMBA_SMEM_BYTES, 0)).limits.warps),
        "ch06.quiz.regs.warps_per_sm": Figure(lambda: occupancy.calculate(occupancy.KernelLaunch(
            CH06_THREADS, _ch06_numba_registers(), CH06_NUMBA_SMEM_BYTES, 0)).active_warps_per_sm),
        "ch06.quiz.regs.blocks_by_shared": Figure(lambda: occupancy.calculate(occupancy.KernelLaunch(
            CH06_THREADS, _ch06_numba_registers(), CH06_NUMBA_SMEM_BYTES, 0)).limits.shared_memory),
        "ch06.regtile.warps_per_sm": Figure(lambda: occupancy.calculate(occupancy.KernelLaunch(
            CH06_THREADS, CH06_REGISTERS, CH06_SMEM_BYTES, 0)).active_warps_per_sm),
        "ch06.mma.warp_flops_per_wavefront": Figure(
            lambda: workloads.mma_warp_flops_per_wavefront(*CH06_MMA_WARP)),
        "ch06.wmma.warp_flops_per_wavefront": Figure(
            lambda: workloads.mma_warp_flops_per_wavefront(*CH06_WMMA_WARP)),
        "ch06.mma.block_flops_per_wavefront": Figure(
            lambda: workloads.mma_block_flops_per_wavefront(*CH06_MMA_BLOCK, *CH06_MMA_WARP)),
        "ch06.mma.shared_roof_tflops": Figure(_ch06_mma_shared_roof_tflops),
        "ch06.mma.shared_roof_pct_of_tensor": Figure(
            lambda: 100 * _ch06_mma_shared_roof_tflops() / _ch06_tensor_tflops("fp16")),
    }
    out["h200.boost_mhz"] = Figure(lambda: H200_SXM.boost_clock_mhz)
    out["h200.tensor_flops_per_sm_clock.fp16"] = Figure(lambda: _ch06_tensor_flops_per_clock("fp16"))
    for precision in ("fp16", "tf32", "fp8"):
        out[f"h200.tensor_tflops.{precision}"] = Figure(lambda p=precision: _ch06_tensor_tflops(p), 0)
        out[f"h200.tensor_ridge.{precision}"] = Figure(
            lambda p=precision: _ch06_tensor_tflops(p) * 1e3 / H200_SXM.hbm_gbps, 0)
    return out


FIGURES.update(_chapter6_figures())


class UnknownFigureError(LabkitError, KeyError):
    """A figure name that labkit.course.figures does not define."""

    def __str__(self) -> str:
        return self.args[0]


class FigureFailed(LabkitError):
    """A figure whose computation raised something other than a LabkitError (a bug in its
    definition): one line naming the figure and the file, where the build printed a traceback."""


def figure_value(name: str) -> float:
    """The rounded value of a named figure; UnknownFigureError names the unknown figure, FigureFailed
    one whose computation failed."""
    if name not in FIGURES:
        raise UnknownFigureError(f"unknown computed figure [[{name}]]: define it in labkit/course/figures.py")
    return _computed(name, FIGURES[name])


def _computed(name: str, figure: Figure) -> float:
    try:
        return figure.value()
    except LabkitError:
        raise
    except Exception as exc:   # the figure's own code: said in one line, the cause kept (LABKIT_DEBUG)
        raise FigureFailed(f"computing [[{name}]] failed ({type(exc).__name__}: {' '.join(str(exc).split())}): fix "
                           "its definition in labkit/course/figures.py") from exc


def render_figure(name: str, lang: str) -> str:
    figure = FIGURES.get(name)
    if figure is not None and figure.count_words:
        return format_count(_computed(name, figure), lang)
    return format_number(figure_value(name), FIGURES[name].decimals, lang)
