"""Lab 01's measurements: the kernels run here (GPU or simulator)."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path

import numpy as np
from numba import cuda

from labkit import roofline, workloads
from labkit.kernels import roofline_kernels as rk
from labkit.kernels import reduction, samples
from labkit.labs.lab01 import ROOF_TOLERANCE, SAMPLE_KERNELS, SIMULATOR_SIZES, SWEEP_FMAS, Sizes

MEASURE_STEPS = 5
COPY_THREADS = 256
SWEEP_A, SWEEP_B = np.float32(0.999), np.float32(0.001)
STENCIL_C0, STENCIL_C1 = np.float32(0.5), np.float32(0.125)
STENCIL_BLOCK = (32, 8)


def _blocks(n: int, threads: int) -> int:
    return (n + threads - 1) // threads


# ----- the sample kernels, launched the same way for checks and for timing --------------------------
def sample_launchers(sizes: Sizes, blocks_for_sum: int):
    """name -> (workload, launch(), flush L2?) for chapter 1's sample kernels at ``sizes``."""
    n = sizes.vector_elements
    x = cuda.to_device(np.linspace(0, 1, n, dtype=np.float32))
    y = cuda.to_device(np.linspace(1, 2, n, dtype=np.float32))
    total = cuda.to_device(np.zeros(1, dtype=np.float32))
    g = sizes.gemm_n
    a = cuda.to_device(np.random.default_rng(1).random((g, g), dtype=np.float32))
    b = cuda.to_device(np.random.default_rng(2).random((g, g), dtype=np.float32))
    c = cuda.device_array((g, g), dtype=np.float32)
    s = sizes.stencil_n
    grid = cuda.to_device(np.random.default_rng(3).random((s, s), dtype=np.float32))
    out = cuda.device_array_like(grid)
    stencil_grid = (_blocks(s, STENCIL_BLOCK[0]), _blocks(s, STENCIL_BLOCK[1]))
    tile = samples.GEMM_TILE
    launchers = {
        "saxpy": (workloads.saxpy(n), lambda: samples.saxpy[_blocks(n, 256), 256](np.float32(2.0), x, y), True),
        "reduction": (workloads.reduction(n), lambda: reduction.block_sum[blocks_for_sum, reduction.THREADS](x, total),
                      True),
        "gemm_tile32": (workloads.gemm_tiled(g, tile), lambda: samples.gemm_tiled[(g // tile, g // tile), (tile, tile)](a, b, c),
                        False),
        "stencil_5pt": (workloads.stencil_5pt(s), lambda: samples.stencil_5pt[stencil_grid, STENCIL_BLOCK](
            grid, out, STENCIL_C0, STENCIL_C1), True),
    }
    buffers = {"x": x, "y": y, "total": total, "a": a, "b": b, "c": c, "grid": grid, "out": out}
    return launchers, buffers


# ----- checks against NumPy -------------------------------------------------------------------------
def check_against_numpy(sizes: Sizes) -> list[tuple[str, bool]]:
    """Every kernel once at ``sizes`` (small), compared with NumPy."""
    checks = []
    n = sizes.copy_bytes // 4
    source = np.arange(n, dtype=np.float32)
    target = cuda.device_array(n, dtype=np.float32)
    rk.copy_wide[rk.copy_blocks(n, COPY_THREADS), COPY_THREADS](cuda.to_device(source), target)
    checks.append(("copy", np.array_equal(target.copy_to_host(), source)))
    threads = sizes.fma_blocks_per_sm * sizes.fma_threads
    for name, kernel, dtype in (("FP32 FMA chains", rk.fma_peak_f32, np.float32), ("FP64 FMA chains", rk.fma_peak_f64, np.float64)):
        out = cuda.device_array(threads, dtype=dtype)
        kernel[sizes.fma_blocks_per_sm, sizes.fma_threads](out, 1, dtype(0.5), dtype(0.25))
        checks.append((name, np.allclose(out.copy_to_host(), rk.fma_peak_reference(threads, 1, 0.5, 0.25, dtype),
                                         rtol=1e-5)))
    values = np.linspace(0, 1, sizes.sweep_elements, dtype=np.float32)
    for fmas in (0, 3, 19):  # the add, the one-round loop, then a 16-round trip plus the rest
        data = cuda.to_device(values)
        rk.sweep[rk.sweep_blocks(values.size), rk.SWEEP_THREADS](data, fmas, SWEEP_A, SWEEP_B)
        checks.append((f"sweep, {fmas} FMA per element", np.allclose(data.copy_to_host(),
                                                                     rk.sweep_reference(values, fmas, SWEEP_A, SWEEP_B),
                                                                     rtol=1e-5)))
    launchers, buffers = sample_launchers(sizes, blocks_for_sum=4)
    x, y = buffers["x"].copy_to_host(), buffers["y"].copy_to_host()
    for name in SAMPLE_KERNELS:
        launchers[name][1]()
    checks.append(("saxpy", np.allclose(buffers["y"].copy_to_host(), 2 * x + y, rtol=1e-6)))
    checks.append(("reduction", bool(np.isclose(buffers["total"].copy_to_host()[0], x.astype(np.float64).sum(), rtol=1e-4))))
    checks.append(("gemm_tile32", np.allclose(buffers["c"].copy_to_host(),
                                              buffers["a"].copy_to_host() @ buffers["b"].copy_to_host(), rtol=1e-4)))
    checks.append(("stencil_5pt", np.allclose(buffers["out"].copy_to_host(),
                                              samples.stencil_reference(buffers["grid"].copy_to_host(), STENCIL_C0,
                                                                        STENCIL_C1), rtol=1e-6)))
    return checks


# ----- step 1: the ceilings ---------------------------------------------------------------------------
def ceilings(sizes: Sizes, facts, time_gpu) -> dict:
    """HBM: labkit's copy vs cupy.copyto (bytes read + written); FP32/FP64: FMA chains vs
    SMs x lanes x 2 x the SM clock read during the run."""
    from labkit.device import fp32_lanes_per_sm, fp64_lanes_per_sm

    n = sizes.copy_bytes // 4
    source = cuda.to_device(np.ones(n, dtype=np.float32))
    target = cuda.device_array_like(source)
    ours = time_gpu(lambda: rk.copy_wide[rk.copy_blocks(n, COPY_THREADS), COPY_THREADS](source, target),
                    warmup=5, repeats=sizes.repeats)
    result = {}
    copy_bytes = 2 * sizes.copy_bytes
    try:
        import cupy

        cs, ct = cupy.asarray(source), cupy.asarray(target)
        theirs = time_gpu(lambda: cupy.copyto(ct, cs), warmup=5, repeats=sizes.repeats)
        reference, reference_is = copy_bytes / theirs.median_seconds / 1e9, "cupy_copyto"
    except ImportError:
        reference, reference_is = facts.hbm_peak_gbps, "theoretical"
    measured = copy_bytes / ours.median_seconds / 1e9
    result["hbm"] = {"measured": measured, "reference": reference, "ratio": measured / reference,
                     "reference_is": reference_is, "timing": ours.to_dict()}
    blocks = facts.sm_count * sizes.fma_blocks_per_sm
    threads = blocks * sizes.fma_threads
    for name, kernel, dtype, lanes_per_sm in (
            ("fp32", rk.fma_peak_f32, np.float32, fp32_lanes_per_sm(facts.compute_capability)),
            ("fp64", rk.fma_peak_f64, np.float64, fp64_lanes_per_sm(facts.compute_capability))):
        out = cuda.device_array(threads, dtype=dtype)
        timing = time_gpu(lambda: kernel[blocks, sizes.fma_threads](out, sizes.fma_trips, dtype(0.999), dtype(0.001)),
                          warmup=3, repeats=sizes.repeats)
        clock = timing.sm_clock_mhz or facts.max_sm_clock_mhz
        gflops = rk.fma_peak_flops(threads, sizes.fma_trips) / timing.median_seconds / 1e9
        peak = facts.sm_count * lanes_per_sm * 2 * clock / 1e3
        result[name] = {"measured": gflops, "reference": peak, "ratio": gflops / peak,
                        "reference_is": "theoretical_at_clock", "sm_clock_mhz": clock, "timing": timing.to_dict()}
    return result


# ----- step 2: the sweep ------------------------------------------------------------------------------
def intensity_sweep(sizes: Sizes, time_gpu, peak_gflops: float, bandwidth_gbps: float) -> list[dict]:
    """Each point's GFLOP/s against the measured roof min(P, I x B)."""
    n = sizes.sweep_elements
    data = cuda.to_device(np.ones(n, dtype=np.float32))
    blocks = rk.sweep_blocks(n)
    points = []
    for fmas in SWEEP_FMAS:
        timing = time_gpu(lambda: rk.sweep[blocks, rk.SWEEP_THREADS](data, fmas, SWEEP_A, SWEEP_B),
                          warmup=2, repeats=max(3, sizes.repeats // 2))
        flops = rk.sweep_flops_per_element(fmas) * n
        intensity = flops / (rk.SWEEP_BYTES_PER_ELEMENT * n)
        gflops = flops / timing.median_seconds / 1e9
        roof = roofline.attainable_gflops(intensity, peak_gflops, bandwidth_gbps)
        points.append({"fmas": fmas, "intensity": intensity, "gflops": gflops, "roof_gflops": roof,
                       "of_roof": gflops / roof, "within_tolerance": gflops >= (1 - ROOF_TOLERANCE) * roof,
                       "median_seconds": timing.median_seconds})
    return points


# ----- step 3: placement ------------------------------------------------------------------------------
def placement(sizes: Sizes, facts, time_gpu, peak_gflops: float, bandwidth_gbps: float) -> list[dict]:
    """Chapter 1's kernels: t_real (median, L2 flushed where HBM is meant) against t_min on the
    measured ceilings, and the verdict band of t_real / t_min."""
    launchers, _ = sample_launchers(sizes, blocks_for_sum=facts.sm_count * 8)
    rows = []
    for name in SAMPLE_KERNELS:
        work, launch, flush = launchers[name]
        timing = time_gpu(launch, warmup=2, repeats=max(3, sizes.repeats // 2), flush_l2=flush)
        t_min = roofline.t_min_seconds(work.flops, work.bytes_, peak_gflops, bandwidth_gbps)
        rows.append({"kernel": name, "intensity": work.intensity, "flops": work.flops, "bytes": work.bytes_,
                     "t_real_seconds": timing.median_seconds, "t_min_seconds": t_min,
                     "ratio": timing.median_seconds / t_min,
                     "verdict": roofline.verdict(timing.median_seconds, t_min).value,
                     "bound": roofline.bound_class(work.flops, work.bytes_, peak_gflops, bandwidth_gbps).value,
                     "gflops": work.flops / timing.median_seconds / 1e9})
    return rows


def measure(progress, work_dir: Path, sizes: Sizes) -> dict:
    from labkit.device import fp32_lanes_per_sm, read_device_facts
    from labkit.timing import time_gpu

    facts = read_device_facts()
    progress("checks against NumPy")
    checks = [{"name": name, "passed": bool(ok)} for name, ok in check_against_numpy(SIMULATOR_SIZES)]
    progress("step 1: ceilings (copy, FP32 and FP64 FMA)")
    roof = ceilings(sizes, facts, time_gpu)
    peak, bandwidth = roof["fp32"]["measured"], roof["hbm"]["measured"]
    progress("step 2: intensity sweep")
    sweep_points = intensity_sweep(sizes, time_gpu, peak, bandwidth)
    progress("step 3: the chapter's kernels on the roofline")
    placed = placement(sizes, facts, time_gpu, peak, bandwidth)
    progress("done")
    return {
        "sizes": asdict(sizes),
        "checks": checks,
        "device": {"sm_count": facts.sm_count, "hbm_peak_gbps": facts.hbm_peak_gbps,
                   "fp32_lanes_per_sm": fp32_lanes_per_sm(facts.compute_capability)},
        "ceilings": roof,
        "sweep": sweep_points,
        "placement": placed,
    }
