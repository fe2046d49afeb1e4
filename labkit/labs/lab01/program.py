"""Lab 01's measurements: the kernels run here (GPU or simulator)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from labkit.gpu import cuda, nan_device_array
from labkit.gpu.device import fp32_lanes_per_sm, fp64_lanes_per_sm
from labkit.kernels import reduction, samples
from labkit.kernels import roofline_kernels as rk
from labkit.labs.base import Bench, Check, Program
from labkit.labs.ceilings import COPY_THREADS
from labkit.labs.ceilings import measure as measure_copy_ceiling  # the course's one copy ceiling
from labkit.labs.lab01.results import (SAMPLE_KERNELS, TENSOR_PRECISIONS, TRAFFIC_METRICS, BandwidthCeiling,
                                       Ceilings, DevicePeaks, FmaCeiling, Lab01Results, PlacedTraffic, Placement,
                                       PlacementProfile, Sizes, SweepPoint, TensorCeiling, Unavailable,
                                       sample_workload)

SAXPY_A = np.float32(2.0)
SWEEP_A, SWEEP_B = np.float32(0.999), np.float32(0.001)
STENCIL_C0, STENCIL_C1 = np.float32(0.5), np.float32(0.125)
STENCIL_BLOCK = (32, 8)


def _blocks(n: int, threads: int) -> int:
    return (n + threads - 1) // threads


# ----- the sample kernels, launched the same way for checks, timing and ncu -----------------------------
def _filled(shape):
    """A float32 device array filled on the device, every float 0x3F3F3F3F (about 0.75): ncu's child,
    whose DRAM bytes do not depend on the values, skips drawing and copying gigabytes of random ones."""
    from numba.cuda.cudadrv.driver import device_memset

    array = cuda.device_array(shape, np.float32)
    device_memset(array, 0x3F, array.nbytes)
    return array


def sample_launchers(sizes: Sizes, blocks_for_sum: int, rng: np.random.Generator | None):
    """name -> (launch(), flush L2?) for chapter 1's sample kernels at ``sizes``, on
    random inputs from ``rng`` (``None``: inputs filled on the device, on a GPU only); the outputs
    that are only written start as NaN."""
    def data(shape):
        return _filled(shape) if rng is None else cuda.to_device(rng.random(shape, dtype=np.float32))

    n = sizes.vector_elements
    x, y = data(n), data(n)
    total = cuda.to_device(np.zeros(1, dtype=np.float32))
    g = sizes.gemm_n
    a, b = data((g, g)), data((g, g))
    c = nan_device_array((g, g))
    s = sizes.stencil_n
    grid = data((s, s))
    out = nan_device_array((s, s))
    stencil_grid = (_blocks(s, STENCIL_BLOCK[0]), _blocks(s, STENCIL_BLOCK[1]))
    tile = samples.GEMM_TILE
    launchers = {
        "saxpy": (lambda: samples.saxpy[_blocks(n, 256), 256](SAXPY_A, x, y), True),
        "reduction": (lambda: reduction.block_sum[blocks_for_sum, reduction.THREADS](x, total), True),
        "gemm_tile32": (lambda: samples.gemm_tiled[(g // tile, g // tile), (tile, tile)](a, b, c), False),
        "stencil_5pt": (lambda: samples.stencil_5pt[stencil_grid, STENCIL_BLOCK](grid, out, STENCIL_C0, STENCIL_C1),
                        True),
    }
    buffers = {"x": x, "y": y, "total": total, "a": a, "b": b, "c": c, "grid": grid, "out": out}
    return launchers, buffers


# ----- checks against NumPy -------------------------------------------------------------------------
def check_against_numpy(sizes: Sizes) -> list[Check]:
    """Every kernel once at ``sizes`` (small), on fresh random inputs and poisoned outputs, against NumPy."""
    rng = np.random.default_rng()
    checks = []
    n = sizes.copy_bytes // 4
    source = rng.random(n, dtype=np.float32)
    target = nan_device_array(n)
    rk.copy_wide[rk.copy_blocks(n, COPY_THREADS), COPY_THREADS](cuda.to_device(source), target)
    checks.append(Check(name="copy", passed=bool(np.array_equal(target.copy_to_host(), source))))
    threads = sizes.fma_blocks_per_sm * sizes.fma_threads
    for name, kernel, dtype in (("FP32 FMA chains", rk.fma_peak_f32, np.float32),
                                ("FP64 FMA chains", rk.fma_peak_f64, np.float64)):
        a, b = dtype(rng.uniform(0.5, 1.0)), dtype(rng.uniform(0.0, 0.5))
        out = nan_device_array(threads, dtype)
        kernel[sizes.fma_blocks_per_sm, sizes.fma_threads](out, 1, a, b)
        checks.append(Check(name=name, passed=bool(np.allclose(
            out.copy_to_host(), rk.fma_peak_reference(threads, 1, a, b, dtype), rtol=1e-5))))
    values = rng.random(sizes.sweep_elements, dtype=np.float32)
    for fmas in (0, 3, 19):  # the add, the one-round loop, then a 16-round trip plus the rest
        data = cuda.to_device(values)
        rk.sweep[rk.sweep_blocks(values.size), rk.SWEEP_THREADS](data, fmas, SWEEP_A, SWEEP_B)
        checks.append(Check(name=f"sweep, {fmas} FMA per element", passed=bool(np.allclose(
            data.copy_to_host(), rk.sweep_reference(values, fmas, SWEEP_A, SWEEP_B), rtol=1e-5))))
    launchers, buffers = sample_launchers(sizes, blocks_for_sum=4, rng=rng)
    x, y = buffers["x"].copy_to_host(), buffers["y"].copy_to_host()
    for name in SAMPLE_KERNELS:
        launchers[name][0]()
    expected = {
        "saxpy": (buffers["y"], SAXPY_A * x + y, 1e-6),
        "gemm_tile32": (buffers["c"], buffers["a"].copy_to_host() @ buffers["b"].copy_to_host(), 1e-4),
        "stencil_5pt": (buffers["out"], samples.stencil_reference(buffers["grid"].copy_to_host(), STENCIL_C0,
                                                                  STENCIL_C1), 1e-6),
    }
    for name in SAMPLE_KERNELS:
        if name == "reduction":
            total = buffers["total"].copy_to_host()[0]
            passed = bool(np.isclose(total, x.astype(np.float64).sum(), rtol=1e-4))
        else:
            array, reference, rtol = expected[name]
            passed = bool(np.allclose(array.copy_to_host(), reference, rtol=rtol))
        checks.append(Check(name=name, passed=passed))
    return checks


# ----- step 1: the ceilings ---------------------------------------------------------------------------
def ceilings(sizes: Sizes, bench: Bench) -> Ceilings:
    """HBM: the course's copy ceiling (labkit.labs.ceilings: lab 01's copy_wide, L2 flushed, bytes read +
    written) vs cupy.copyto on arrays of the same size; FP32/FP64: FMA chains, their FLOPs over the
    median time (the reference, SMs x lanes x 2 x the clock read, is derived on reading)."""
    facts, time_gpu = bench.facts, bench.time_gpu
    ceiling = measure_copy_ceiling(bench, sizes.copy_bytes)
    try:
        import cupy
    except ImportError:
        reference_gbps, reference_is = facts.hbm_peak_gbps, "theoretical"
    else:
        cs = cupy.ones(sizes.copy_bytes // 4, dtype=cupy.float32)
        ct = cupy.empty_like(cs)
        theirs = time_gpu(lambda: cupy.copyto(ct, cs), warmup=5, repeats=sizes.repeats, flush_l2=True)
        reference_gbps, reference_is = theirs.gbps(ceiling.copy_bytes), "cupy_copyto"
        del cs, ct
    hbm = BandwidthCeiling(copy_bytes=ceiling.copy_bytes, timing=ceiling.timing, reference_gbps=reference_gbps,
                           reference_is=reference_is)
    blocks = facts.sm_count * sizes.fma_blocks_per_sm
    threads = blocks * sizes.fma_threads
    fma = {}
    for name, kernel, dtype in (("fp32", rk.fma_peak_f32, np.float32), ("fp64", rk.fma_peak_f64, np.float64)):
        out = cuda.device_array(threads, dtype=dtype)
        timing = time_gpu(lambda: kernel[blocks, sizes.fma_threads](out, sizes.fma_trips, dtype(0.999), dtype(0.001)),
                          warmup=3, repeats=sizes.repeats)
        fma[name] = FmaCeiling(flops=rk.fma_peak_flops(threads, sizes.fma_trips), timing=timing,
                               sm_clock_mhz=timing.sm_clock_mhz or facts.max_sm_clock_mhz)
    return Ceilings(hbm=hbm, **fma)


# ----- step 1b: the tensor cores' ceilings -------------------------------------------------------------
CUBLAS_LIBRARY = "cuBLAS (cublasGemmEx)"
FP8_LIBRARY = "cuBLASLt (torch._scaled_mm)"


def tensor_ceilings(sizes: Sizes, bench: Bench) -> list[TensorCeiling]:
    """A tensor_n^3 matrix product in each tensor-core precision, through the vendor's library: cuBLAS
    through CuPy (TF32 on FP32 data, FP16 and BF16 with FP32 accumulation, FP64), and FP8 (E4M3 in, BF16
    out) through PyTorch's cuBLASLt where PyTorch is installed (cublasGemmEx takes no FP8)."""
    n = sizes.tensor_n

    def missing(precision: str, why: str) -> TensorCeiling:
        return TensorCeiling(precision=precision, library=FP8_LIBRARY if precision == "fp8" else CUBLAS_LIBRARY,
                             n=n, timing=None, unavailable=why)

    if bench.simulated:
        return [missing(p, "the simulator has no tensor cores") for p in TENSOR_PRECISIONS]
    try:
        import cupy
    except ImportError:
        return [missing(p, "CuPy is not installed") for p in TENSOR_PRECISIONS]
    from labkit.kernels import gemm_cublas

    rng = cupy.random.default_rng(11)
    a32, b32 = rng.random((n, n), dtype=cupy.float32), rng.random((n, n), dtype=cupy.float32)
    operands = {"tf32": (a32, b32, cupy.float32), "fp16": (a32.astype(cupy.float16), b32.astype(cupy.float16),
                                                             cupy.float16),
                "bf16": (gemm_cublas.bf16_bits(a32, cupy), gemm_cublas.bf16_bits(b32, cupy), cupy.uint16),
                "fp64": (a32.astype(cupy.float64), b32.astype(cupy.float64), cupy.float64)}
    out = []
    for precision in TENSOR_PRECISIONS:
        if precision == "fp8":
            out.append(_fp8_ceiling(n, bench) or missing(precision, "PyTorch is not installed (FP8 needs cuBLASLt, "
                                                                   "which CuPy does not reach)"))
            continue
        a, b, dtype = operands[precision]
        c = cupy.empty((n, n), dtype=dtype)
        timing = bench.time_gpu(lambda: gemm_cublas.gemm(a, b, c, precision), warmup=5, repeats=sizes.repeats)
        out.append(TensorCeiling(precision=precision, library=CUBLAS_LIBRARY, n=n, timing=timing))
        del c
    return out


def _fp8_ceiling(n: int, bench: Bench) -> TensorCeiling | None:
    """FP8 E4M3 inputs (B column-major, as cuBLASLt wants it), unit scales, BF16 output; None without PyTorch."""
    try:
        import torch
    except ImportError:
        return None
    a = torch.rand(n, n, device="cuda").to(torch.float8_e4m3fn)
    b = torch.rand(n, n, device="cuda").to(torch.float8_e4m3fn).t()
    one = torch.tensor(1.0, device="cuda")
    timing = bench.time_gpu(lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16),
                            warmup=5, repeats=20)
    return TensorCeiling(precision="fp8", library=FP8_LIBRARY, n=n, timing=timing)


# ----- step 2: the sweep ------------------------------------------------------------------------------
def intensity_sweep(sizes: Sizes, bench: Bench) -> list[SweepPoint]:
    """The sweep kernel at each number of FMAs per element: its FLOPs, bytes and time."""
    n = sizes.sweep_elements
    data = cuda.to_device(np.ones(n, dtype=np.float32))
    blocks = rk.sweep_blocks(n)
    points = []
    for fmas in sizes.sweep_fmas:
        timing = bench.time_gpu(lambda: rk.sweep[blocks, rk.SWEEP_THREADS](data, fmas, SWEEP_A, SWEEP_B),
                                warmup=2, repeats=max(3, sizes.repeats // 2))
        points.append(SweepPoint(fmas=fmas, flops=rk.sweep_flops_per_element(fmas) * n,
                                 moved_bytes=rk.SWEEP_BYTES_PER_ELEMENT * n, timing=timing))
    return points


# ----- step 3: placement ------------------------------------------------------------------------------
def placement(sizes: Sizes, bench: Bench) -> list[Placement]:
    """Chapter 1's kernels: their work (labkit.models.workloads) and time (median, L2 flushed where HBM is meant)."""
    launchers, _ = sample_launchers(sizes, blocks_for_sum=_blocks_for_sum(sizes, bench.facts.sm_count),
                                    rng=np.random.default_rng(1))
    rows = []
    for name in SAMPLE_KERNELS:
        launch, flush = launchers[name]
        work = sample_workload(name, sizes)
        timing = bench.time_gpu(launch, warmup=2, repeats=max(3, sizes.repeats // 2), flush_l2=flush)
        rows.append(Placement(kernel=name, flops=work.flops, moved_bytes=work.bytes_, timing=timing))
    return rows


def _blocks_for_sum(sizes: Sizes, sm_count: int) -> int:
    """8 blocks per SM for the reduction's grid-stride loop, none without an element to read."""
    return min(sm_count * 8, _blocks(sizes.vector_elements, reduction.THREADS))


# ----- step 4: what DRAM moved for each placed kernel (Nsight Compute) -----------------------------------
#: The functions ncu names (the sample kernels and the reduction's block_sum).
NCU_REGEX = "saxpy|block_sum|gemm_tiled|stencil_5pt"


def profile_target(sizes_path: str) -> None:
    """What ncu profiles: each placed kernel launched once, in SAMPLE_KERNELS' order, at the lab's sizes."""
    from labkit.gpu.device import read_device_facts

    sizes = Sizes.model_validate_json(Path(sizes_path).read_text())
    launchers, _ = sample_launchers(sizes, _blocks_for_sum(sizes, read_device_facts().sm_count), rng=None)
    for name in SAMPLE_KERNELS:
        launchers[name][0]()
    cuda.synchronize()


def placed_traffic(sizes: Sizes, work_dir: Path) -> PlacementProfile | Unavailable:
    """ncu's DRAM bytes read and written by each placed kernel: one ncu process (clocks left alone,
    caches flushed before each launch as the timed runs flush L2), two metrics, raw CSV kept."""
    from labkit.profiling.lab_profile import profile_lab
    from labkit.profiling.ncu import NcuError

    (work_dir / "sizes.json").write_text(sizes.model_dump_json())

    def read(run) -> PlacementProfile:
        if len(run.profiles) != len(SAMPLE_KERNELS):
            raise NcuError(f"ncu profiled {len(run.profiles)} launches, the lab made {len(SAMPLE_KERNELS)}")
        return PlacementProfile(status="ok", version=run.version, kernels=[
            PlacedTraffic(kernel=name, **{field: profile.bytes_(metric) for field, metric in TRAFFIC_METRICS.items()})
            for name, profile in zip(SAMPLE_KERNELS, run.profiles)])

    try:
        return profile_lab("labkit.labs.lab01.program", NCU_REGEX, work_dir, read,
                           lambda reason: Unavailable(status="unavailable", reason=reason),
                           metrics=list(TRAFFIC_METRICS.values()), args=[str(work_dir / "sizes.json")],
                           print_units="base", report="lab01", timeout_seconds=300)
    finally:
        (work_dir / "sizes.json").unlink(missing_ok=True)


class Lab01Program(Program[Sizes, Lab01Results]):
    def check(self, sizes: Sizes) -> list[Check]:
        return check_against_numpy(sizes)

    def measure(self, bench: Bench, sizes: Sizes) -> Lab01Results:
        from labkit.labs.lab01 import LAB

        facts = bench.facts
        bench.progress("checks against NumPy")
        checks = check_against_numpy(LAB.simulator_sizes)
        bench.progress("step 1: ceilings (copy, FP32 and FP64 FMA)")
        measured_ceilings = ceilings(sizes, bench)
        bench.progress("step 1b: the tensor cores' ceilings (cuBLAS; FP8 through PyTorch where installed)")
        tensor = tensor_ceilings(sizes, bench)
        bench.progress("step 2: intensity sweep")
        sweep_points = intensity_sweep(sizes, bench)
        bench.progress("step 3: the chapter's kernels on the roofline")
        placed = placement(sizes, bench)
        bench.progress("step 4: the placed kernels' DRAM bytes (Nsight Compute)")
        traffic = (Unavailable(status="unavailable", reason="simulator: no profiler") if bench.simulated
                   else placed_traffic(sizes, bench.work_dir))
        device = DevicePeaks(sm_count=facts.sm_count, max_sm_clock_mhz=facts.max_sm_clock_mhz,
                             hbm_peak_gbps=facts.hbm_peak_gbps,
                             fp32_lanes_per_sm=fp32_lanes_per_sm(facts.compute_capability),
                             fp64_lanes_per_sm=fp64_lanes_per_sm(facts.compute_capability),
                             compute_capability=tuple(facts.compute_capability))
        return Lab01Results(sizes=sizes, checks=checks, device=device, ceilings=measured_ceilings,
                            sweep=sweep_points, placement=placed, tensor=tensor, traffic=traffic)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "profile-target":
        profile_target(sys.argv[2])
    else:
        print("usage: python -m labkit.labs.lab01.program profile-target SIZES.json", file=sys.stderr)
        sys.exit(2)
