"""Lab 02's program: the kernels run here (GPU, or the simulator with the CUDA C kernels' twins).

On a GPU, ``measure`` starts the analyzer (a simulator process tracing every launch of the
plan), checks every kernel against NumPy, times every launch, profiles all of them in one ncu
process (metrics only, caches flushed per pass, clocks untouched), reads the SASS, then joins
the analyzer's predictions to the measurements. In the simulator the same steps run at small
size with the twins, without ncu or SASS.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from labkit.gpu import SIMULATED, cuda, nan_device_array
from labkit.kernels import coalescing
from labkit.kernels import coalescing_cuda as cc
from labkit.labs.base import Bench, Check, Program
from labkit.labs.ceilings import measure as measure_copy_ceiling  # the course's one copy ceiling
from labkit.labs.lab02 import plan as lp
from labkit.report.tables import Column, Table
from labkit.labs.lab02.results import (METRICS, PROFILE_METRICS, SASS_METRICS, SHARED_WIDTHS, Counts, DeviceFigures, KernelRun,
                                       Lab02Results, NcuRun, ParticleRun, ReadRoof, SassListing, SassShared, SharedBaseline,
                                       SharedPoint, Sizes, SweepPoint, TransposeRun, Unavailable, mismatches)

KERNEL_REGEX = "strided_read|drift_|shared_stride|tile_copy|transpose_"
_L2_FETCH_LIMIT = 0x05    # cudaLimitMaxL2FetchGranularity
#: The SMs of the course's GPU: the shared sweep's grid, where no record says otherwise.
H200_SMS = 132


def _twins():
    from labkit.kernels import coalescing_twins

    return coalescing_twins


class Kernels:
    """Launches the lab's kernels: Numba ones directly, CUDA C ones through CuPy on a GPU and
    through their simulated twins (labkit.kernels.coalescing_twins) in the simulator."""

    def __init__(self) -> None:
        self._cupy_views: dict[int, tuple] = {}

    def _cupy(self, array):
        """A CuPy view of a Numba device array, made once per array (no per-launch conversion)."""
        import cupy

        key = id(array)
        if key not in self._cupy_views:
            self._cupy_views[key] = (array, cupy.asarray(array))
        return self._cupy_views[key][1]

    def run(self, name: str, grid, block, *args) -> None:
        if name in ("strided_read", "drift_aos", "drift_soa"):
            getattr(coalescing, name)[grid, block](*args)
        elif SIMULATED:
            twins = _twins()
            records = {"strided_read_16": (0, twins.UINT4), "read_roof": (0, twins.UINT4),
                       "drift_aos_vector": (0, twins.FLOAT4),
                       "drift_soa_vector": (0, twins.FLOAT4)}
            if name in records:
                index, record = records[name]
                args = list(args)
                args[index] = args[index].view(record)
            twins.TWINS[name][grid, block](*args)
        else:
            converted = [self._cupy(a) if hasattr(a, "__cuda_array_interface__") else a for a in args]
            cc.function(name)(tuple(grid) if isinstance(grid, tuple) else (grid,),
                              tuple(block) if isinstance(block, tuple) else (block,), tuple(converted))


def _zeros(nbytes: int):
    """A device buffer of zero bytes (a memset on a GPU)."""
    if SIMULATED:
        return cuda.to_device(np.zeros(nbytes, np.uint8))
    from numba.cuda.cudadrv.driver import device_memset

    buffer = cuda.device_array(nbytes, dtype=np.uint8)
    device_memset(buffer, 0, nbytes)
    return buffer


class Buffers:
    """Device memory for every launch of a plan, and how to launch each one on it."""

    def __init__(self, sizes: Sizes, plan: list[lp.Launch], random: bool = True, seed: int = 2):
        """``random`` False (ncu's child, whose counters do not depend on values) leaves the
        particles and the matrix as allocated; the sweep buffer is always zeros (never the sentinel)."""
        rng = np.random.default_rng(seed)
        self.sweep = _zeros(lp.sweep_buffer_bytes(plan))
        self.sweep_out = {4: cuda.to_device(np.zeros(1, np.float32)), 8: cuda.to_device(np.zeros(1, np.float64)),
                          16: cuda.to_device(np.zeros(1, np.uint32))}
        n = sizes.particles

        def data(shape):
            return cuda.to_device(rng.random(shape, dtype=np.float32)) if random else cuda.device_array(shape, np.float32)

        self.aos = data((n, 8))
        self.soa = data((8, n))
        shared = [launch for launch in plan if launch.step == "shared"]
        self.shared_out = cuda.device_array(max((launch.blocks * cc.THREADS for launch in shared), default=1),
                                            dtype=np.uint32)
        side = sizes.matrix_side
        self.matrix = data(side * side)
        self.matrix_out = cuda.device_array(side * side, dtype=np.float32)
        self.side = side
        self.kernels = Kernels()

    def launch(self, launch: lp.Launch, iterations: int | None = None):
        """A function that enqueues ``launch`` once (shared sweep: with ``iterations`` if given)."""
        grid = launch.grid if launch.grid[1] > 1 else launch.grid[0]
        block = launch.block if launch.block[1] > 1 else launch.block[0]
        run = self.kernels.run
        if launch.step == "sweep":
            width = launch.element_bytes
            if width == 16:
                args = (self.sweep, self.sweep_out[16], np.int64(launch.stride), np.int64(launch.offset),
                        np.uint32(lp.SENTINEL))
            else:
                dtype = np.float32 if width == 4 else np.float64
                args = (self.sweep.view(dtype), self.sweep_out[width], np.int64(launch.stride),
                        np.int64(launch.offset), dtype(-1.0))
            return lambda: run(launch.kernel, grid, block, *args)
        if launch.step == "particles":
            dt = np.float32(lp.DT)
            args = {"drift_aos": (self.aos, dt), "drift_soa": (self.soa, dt),
                    "drift_aos_vector": (self.aos.reshape(self.aos.size), dt),
                    "drift_soa_vector": (self.soa.reshape(self.soa.size), dt, np.int32(self.soa.shape[1]))}
            return lambda: run(launch.kernel, grid, block, *args[launch.kernel])
        if launch.step == "shared":
            its = launch.iterations if iterations is None else iterations
            return lambda: run(launch.kernel, grid, block, self.shared_out, np.int32(launch.stride), np.int32(its))
        return lambda: run(launch.kernel, grid, block, self.matrix, self.matrix_out, np.int32(self.side))


# ----- checks against NumPy ----------------------------------------------------------------------------
def check_against_numpy(sizes: Sizes) -> list[Check]:
    """Every kernel once at ``sizes`` (small), fresh random inputs, poisoned outputs; in the
    simulator the CUDA C kernels' twins stand in for them (their checks say so)."""
    rng = np.random.default_rng()
    kernels = Kernels()
    tag = " (simulated twin)" if SIMULATED else ""
    checks = []
    threads, blocks = cc.THREADS, 2
    elements = threads * blocks * coalescing.SWEEP_LOADS
    for width in (4, 8, 16):
        stride, offset = int(rng.integers(2, 5)), int(rng.integers(0, 3))
        k = int(rng.integers(0, elements))
        passed = True
        for planted, expected in ((k * stride + offset, True), (k * stride + offset + 1, False)):
            if width == 16:
                x = np.zeros((elements * stride + offset + 2) * 4, np.uint32)
                x[4 * planted] = lp.SENTINEL
                out = cuda.to_device(np.zeros(1, np.uint32))
                kernels.run("strided_read_16", blocks, threads, cuda.to_device(x), out, np.int64(stride),
                            np.int64(offset), np.uint32(lp.SENTINEL))
                hit = int(out.copy_to_host()[0]) == lp.SENTINEL
            else:
                dtype = np.float32 if width == 4 else np.float64
                x = rng.random(elements * stride + offset + 2).astype(dtype)
                x[planted] = -1.0
                out = nan_device_array(1, dtype)
                kernels.run("strided_read", blocks, threads, cuda.to_device(x), out, np.int64(stride),
                            np.int64(offset), dtype(-1.0))
                hit = float(out.copy_to_host()[0]) == -1.0
            passed = passed and hit == expected
        name = f"strided_read, {width}-byte elements, stride {stride}, offset {offset}: reads exactly its elements"
        checks.append(Check(name=name + (tag if width == 16 else ""), passed=passed))
    words = rng.integers(0, 1 << 32, blocks * threads * cc.ROOF_LOADS * 4, dtype=np.uint32)
    out = cuda.to_device(np.full(blocks, 0xFFFFFFFF, np.uint32))
    kernels.run("read_roof", blocks, threads, cuda.to_device(words), out)
    checks.append(Check(name="read_roof, each block's XOR of its words" + tag,
                        passed=bool(np.array_equal(out.copy_to_host(), cc.read_roof_reference(words, threads)))))
    n = 4 * threads * blocks
    fields = rng.random((8, n), dtype=np.float32)
    expected = coalescing.drift_reference(fields, np.float32(lp.DT))
    dt = np.float32(lp.DT)
    for layout, access in (("aos", "scalar"), ("soa", "scalar"), ("aos", "vector"), ("soa", "vector")):
        kernel, _ = lp.particle_kernel(layout, access)
        data = cuda.to_device(np.ascontiguousarray(fields.T) if layout == "aos" else fields.copy())
        grid = lp.particle_threads(n, access, layout) // threads
        if access == "scalar":
            kernels.run(kernel, grid, threads, data, dt)
        elif layout == "aos":
            kernels.run(kernel, grid, threads, data.reshape(data.size), dt)
        else:
            kernels.run(kernel, grid, threads, data.reshape(data.size), dt, np.int32(n))
        got = data.copy_to_host()
        got = got.T if layout == "aos" else got
        checks.append(Check(name=f"drift, {layout}, {access}" + (tag if access == "vector" else ""),
                            passed=bool(np.allclose(got, expected, rtol=1e-6, atol=1e-6))))
    for width in SHARED_WIDTHS:
        stride, iterations = int(rng.integers(1, 65)), int(rng.integers(1, 4))
        out = cuda.to_device(np.full(threads * blocks, 0xFFFFFFFF, np.uint32))
        kernels.run(f"shared_stride_{width}", blocks, threads, out, np.int32(stride), np.int32(iterations))
        reference = np.tile(cc.shared_stride_reference(width, threads, stride, iterations), blocks)
        checks.append(Check(name=f"shared_stride_{width}, stride {stride}" + tag,
                            passed=bool(np.array_equal(out.copy_to_host(), reference))))
    side = 2 * cc.TILE
    source = rng.random(side * side, dtype=np.float32)
    for kernel in ("tile_copy", "transpose_naive", "transpose_tiled", "transpose_padded", "transpose_swizzled"):
        target = nan_device_array(side * side)
        grid, block = cc.transpose_launch(side)
        kernels.run(kernel, grid, block, cuda.to_device(source), target, np.int32(side))
        reference = source if kernel == "tile_copy" else source.reshape(side, side).T.reshape(-1)
        checks.append(Check(name=f"{kernel}, {side} x {side}" + tag,
                            passed=bool(np.array_equal(target.copy_to_host(), reference))))
    return checks


# ----- the analyzer, beside the GPU --------------------------------------------------------------------
def start_analyzer(plan: list[lp.Launch], work: Path) -> subprocess.Popen:
    """The analyzer in a simulator process (NUMBA_ENABLE_CUDASIM=1), tracing while the GPU measures."""
    (work / "plan.json").write_text(json.dumps([launch.to_dict() for launch in plan]))
    repo = str(Path(__file__).resolve().parents[3])
    env = {**os.environ, "NUMBA_ENABLE_CUDASIM": "1",
           "PYTHONPATH": os.pathsep.join(filter(None, [repo, os.environ.get("PYTHONPATH")]))}
    return subprocess.Popen([sys.executable, "-m", "labkit.labs.lab02.analysis", str(work / "plan.json"),
                             str(work / "predicted.json")], env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True)


def analyzer_results(process: subprocess.Popen, work: Path) -> dict[str, Counts]:
    output, _ = process.communicate(timeout=900)
    if process.returncode != 0:
        last = (output.strip().splitlines() or ["no output"])[-1]
        raise RuntimeError(f"the analyzer's simulator process failed: {last}")
    return {name: Counts(**values) for name, values in json.loads((work / "predicted.json").read_text()).items()}


# ----- Nsight Compute: one process, every launch ------------------------------------------------------
def profile_target(sizes_path: str, plan_path: str) -> None:
    """What ncu profiles: every launch of the plan once, in order, at the lab's size."""
    sizes = Sizes.model_validate_json(Path(sizes_path).read_text())
    plan = [lp.Launch.from_dict(d) for d in json.loads(Path(plan_path).read_text())]
    buffers = Buffers(sizes, plan, random=False)
    for launch in plan:
        buffers.launch(launch)()
    cuda.synchronize()


def nsight_compute(sizes: Sizes, plan: list[lp.Launch], work: Path
                   ) -> tuple[NcuRun | Unavailable, dict[str, tuple[Counts, SassShared]]]:
    """Every launch's hardware counters (L1TEX, executed shared instructions, DRAM bytes) and
    instruction-level shared counters, from one ncu process, in base units; raw CSV kept."""
    from labkit.profiling.lab_profile import profile_lab
    from labkit.profiling.ncu import NcuError

    (work / "sizes.json").write_text(sizes.model_dump_json())
    (work / "plan.json").write_text(json.dumps([launch.to_dict() for launch in plan]))

    def read(run) -> tuple[NcuRun, dict[str, tuple[Counts, SassShared]]]:
        names = [profile.name for profile in run.profiles]
        if names != [launch.kernel for launch in plan]:
            raise NcuError(f"ncu profiled {len(names)} launches that do not match the plan's {len(plan)} "
                           f"(first: {names[:3]})")
        measured = {}
        for launch, profile in zip(plan, run.profiles):
            values = {field: profile.value(metric) for field, metric in METRICS.items() if field != "dram_read_bytes"}
            hardware = Counts(**values, dram_read_bytes=profile.bytes_(METRICS["dram_read_bytes"]),
                              **_profile_counts(profile))
            sass = SassShared(**{field: profile.value(metric) for field, metric in SASS_METRICS.items()})
            measured[launch.name] = (hardware, sass)
        return NcuRun(status="ok", version=run.version, seconds=run.seconds), measured

    return profile_lab("labkit.labs.lab02.program", KERNEL_REGEX, work, read,
                       lambda reason: (Unavailable(status="unavailable", reason=reason), {}),
                       metrics=[*METRICS.values(), *SASS_METRICS.values(), *PROFILE_METRICS.values()],
                       args=[str(work / "sizes.json"), str(work / "plan.json")], print_units="base",
                       report="lab02", timeout_seconds=600)


# ----- SASS -------------------------------------------------------------------------------------------
def _profile_counts(profile) -> dict[str, float | None]:
    """Counts' issue-29 fields from a profile that holds all of PROFILE_METRICS; all None from one
    made before them (a raw CSV kept with an older record, read back by the tests)."""
    if not all(metric in profile.metrics for metric in PROFILE_METRICS.values()):
        return dict.fromkeys(PROFILE_METRICS)
    return {"dram_write_bytes": profile.bytes_(PROFILE_METRICS["dram_write_bytes"]),
            "l1tex_throughput_pct": profile.value(PROFILE_METRICS["l1tex_throughput_pct"]),
            "lsu_pipe_pct": profile.value(PROFILE_METRICS["lsu_pipe_pct"])}


def sass_step(facts, work: Path) -> SassListing | Unavailable:
    """The loads and stores each kernel compiles to: Numba's through nvdisasm, the CUDA C ones
    through nvcc (same source and options as NVRTC's, for this GPU's architecture) and cuobjdump."""
    from labkit.gpu.tools import find_tool, run_tool
    from labkit.profiling import sass

    kernels = {}
    try:
        for dispatcher, names in ((coalescing.strided_read, None), (coalescing.drift_aos, None),
                                  (coalescing.drift_soa, None)):
            for signature, text in dispatcher.inspect_sass().items():
                suffix = ".f64" if "float64" in str(signature) else ".f32" if dispatcher is coalescing.strided_read else ""
                name = dispatcher.py_func.__name__ + suffix
                (work / f"sass_{name}.txt").write_text(text)
                kernels[name] = sass.read_memory_widths(text)
        nvcc = find_tool("nvcc")
        if nvcc is None:
            raise sass.SassError("nvcc not found: the CUDA C kernels' SASS needs the CUDA toolkit")
        major, minor = facts.compute_capability
        (work / "lab02.cu").write_text(cc.SOURCE)
        done = run_tool([nvcc, "-cubin", f"-arch=sm_{major}{minor}", *cc.options(), "-o", str(work / "lab02.cubin"),
                         str(work / "lab02.cu")], 300, sass.SassError)
        if done.returncode != 0:
            raise sass.SassError(f"nvcc failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
        (work / "lab02.cu").unlink()
        for name, text in sass.cubin_sass(str(work / "lab02.cubin")).items():
            (work / f"sass_{name}.txt").write_text(text)
            kernels[name] = sass.read_memory_widths(text)
        (work / "lab02.cubin").unlink()
    except sass.SassError as exc:
        return Unavailable(status="unavailable", reason=str(exc))
    return SassListing(status="ok", kernels=kernels)


def l2_fetch_granularity() -> int | None:
    """The driver's cudaLimitMaxL2FetchGranularity, read (never set) through CuPy."""
    try:
        import cupy

        return int(cupy.cuda.runtime.deviceGetLimit(_L2_FETCH_LIMIT))
    except Exception:   # no CuPy, or a runtime that does not know the limit
        return None


class Lab02Program(Program[Sizes, Lab02Results]):
    def check(self, sizes: Sizes) -> list[Check]:
        return check_against_numpy(sizes)

    def analyze_in_simulator(self, sizes: Sizes, sm_count: int = 2, workers: int = 1) -> dict[str, Counts]:
        """The analyzer's counts of every launch at ``sizes``, traced here (simulator only)."""
        from labkit.labs.lab02 import analysis

        return analysis.predict_all(lp.launches(sizes, sm_count), workers=workers)

    def simulator_tables(self, recorded: list[Lab02Results]) -> list[Table]:
        """The analyzer, here and now, on every launch of the lab at the GPU's sizes, beside the
        counters ncu measured on the recorded GPU (the first record; 132 SMs without one)."""
        from labkit.labs.lab02 import LAB

        record = recorded[0] if recorded else None
        sm_count = record.device.sm_count if record else H200_SMS
        sizes = record.sizes if record else LAB.gpu_sizes   # the recorded GPU's own plan
        predicted = self.analyze_in_simulator(sizes, sm_count, workers=os.cpu_count() or 1)
        runs = {run.launch: run for run in record.runs()} if record else {}
        rows = []
        for name, counts in predicted.items():
            run = runs.get(name)
            holds = (None if run is None or run.measured is None or run.measured_sass is None
                     else not mismatches(counts, run.measured, run.measured_sass))
            rows.append((name, counts.ld_sectors_per_request, counts.st_sectors_per_request,
                         counts.shared_ld_wavefronts, counts.shared_ld_conflicts,
                         None if counts.dram_read_bytes is None else counts.dram_read_bytes / 1e6, holds))
        return [Table("lab02.analyzer_here", (
            Column("launch"), Column("spr_ld", "ratio_plain"), Column("spr_st", "ratio_plain"),
            Column("shared_wavefronts", "count"), Column("conflicts_analyzer", "count"),
            Column("dram_predicted_mb", "count"), Column("equals_recorded", "bool")), tuple(rows))]

    def measure(self, bench: Bench, sizes: Sizes) -> Lab02Results:
        from labkit.labs.lab02 import LAB

        facts = bench.facts
        plan = lp.launches(sizes, facts.sm_count)
        with tempfile.TemporaryDirectory(prefix="lab-02-analyzer-") as tmp:
            analyzer = None if bench.simulated else start_analyzer(plan, Path(tmp))
            bench.progress("checks against NumPy, the copy ceiling")
            checks = check_against_numpy(LAB.simulator_sizes)
            ceiling = measure_copy_ceiling(bench)
            buffers = Buffers(sizes, plan)
            timings = {}
            for step, flush, warmup, repeats in (("sweep", True, 2, max(5, sizes.repeats // 2)),
                                                 ("particles", True, 2, sizes.repeats),
                                                 ("shared", False, 1, max(3, sizes.repeats // 4)),
                                                 ("transpose", True, 3, sizes.repeats)):
                bench.progress(f"{step}: timing {sum(launch.step == step for launch in plan)} launches")
                for launch in (launch for launch in plan if launch.step == step):
                    timings[launch.name] = bench.time_gpu(buffers.launch(launch), warmup=warmup, repeats=repeats,
                                                          flush_l2=flush)
            bench.progress("the read roof: the sweep's span, then an eighth of it")
            roofs = read_roofs(buffers, bench, sizes)
            shared = {launch.element_bytes: launch for launch in plan if launch.step == "shared"}
            baselines = [SharedBaseline(element_bytes=w, timing=bench.time_gpu(
                buffers.launch(shared[w], iterations=0), warmup=1, repeats=max(3, sizes.repeats // 4)))
                for w in SHARED_WIDTHS]
            copyto = None if bench.simulated else _cupy_copyto(buffers, bench, sizes)
            del buffers
            bench.progress("Nsight Compute: every launch, one process")
            if bench.simulated:
                ncu_run, measured = Unavailable(status="unavailable", reason="simulator: no profiler"), {}
                listing = Unavailable(status="unavailable", reason="simulator: nothing is compiled")
            else:
                ncu_run, measured = nsight_compute(sizes, plan, bench.work_dir)
                listing = sass_step(facts, bench.work_dir)
            bench.progress("the analyzer's predictions (simulator traces)")
            predicted = (self.analyze_in_simulator(sizes, facts.sm_count) if analyzer is None
                         else analyzer_results(analyzer, Path(tmp)))
        for name in ("plan.json", "sizes.json"):
            (bench.work_dir / name).unlink(missing_ok=True)
        return _results(sizes, plan, checks, facts, timings, baselines, copyto, predicted, measured, ncu_run,
                        listing).model_copy(update={"copy_ceiling": ceiling, "read_roofs": roofs})


#: The read roof's sizes: the sweep buffer's whole span (the roof), then this fraction of it (what a
#: launch costs besides its bytes: ReadRoof, Lab02Results.read_roof_fixed_seconds).
SHORT_ROOF_FRACTION = 8


def read_roofs(buffers: Buffers, bench: Bench, sizes: Sizes) -> list[ReadRoof]:
    """The read roof (coalescing_cuda's read_roof) over the sweep buffer's whole blocks, then over an
    eighth of them, each timed as the sweep is (L2 flushed before each call); in the simulator, eight
    blocks and one."""
    per_block = cc.THREADS * cc.ROOF_LOADS * 16
    whole = SHORT_ROOF_FRACTION * per_block if bench.simulated else buffers.sweep.size // per_block * per_block
    out = cuda.device_array(cc.read_roof_blocks(whole), dtype=np.uint32)
    roofs = []
    for read_bytes in (whole, max(per_block, whole // SHORT_ROOF_FRACTION // per_block * per_block)):
        blocks = cc.read_roof_blocks(read_bytes)
        timing = bench.time_gpu(lambda: buffers.kernels.run("read_roof", blocks, cc.THREADS, buffers.sweep, out),
                                warmup=2, repeats=max(5, sizes.repeats // 2), flush_l2=True)
        roofs.append(ReadRoof(read_bytes=read_bytes, timing=timing))
    return roofs


def _cupy_copyto(buffers: Buffers, bench: Bench, sizes: Sizes):
    try:
        import cupy
    except ImportError:
        return None
    source, target = cupy.asarray(buffers.matrix), cupy.asarray(buffers.matrix_out)
    return bench.time_gpu(lambda: cupy.copyto(target, source), warmup=3, repeats=sizes.repeats, flush_l2=True)


def _results(sizes, plan, checks, facts, timings, baselines, copyto, predicted, measured, ncu_run, listing):
    def run(launch: lp.Launch) -> KernelRun:
        hardware, sass = measured.get(launch.name, (None, None))
        return KernelRun(launch=launch.name, kernel=launch.kernel, source=launch.source,
                         timing=timings[launch.name], predicted=predicted[launch.name], measured=hardware,
                         measured_sass=sass)

    sweep, particles, shared, transposes = [], [], [], []
    for launch in plan:
        if launch.step == "sweep":
            sweep.append(SweepPoint(element_bytes=launch.element_bytes, stride=launch.stride, offset=launch.offset,
                                    elements=lp.sweep_elements(launch), run=run(launch)))
        elif launch.step == "particles":
            layout, access = launch.name.split(".")[1:]
            particles.append(ParticleRun(layout=layout, access=access, particles=sizes.particles,
                                         useful_bytes=lp.useful_particle_bytes(sizes.particles), run=run(launch)))
        elif launch.step == "shared":
            shared.append(SharedPoint(element_bytes=launch.element_bytes, stride=launch.stride,
                                      iterations=launch.iterations, warps=launch.blocks * cc.THREADS // 32,
                                      run=run(launch)))
        else:
            transposes.append(TransposeRun(kernel=launch.kernel, moved_bytes=2 * 4 * sizes.matrix_side ** 2,
                                           run=run(launch)))
    device = DeviceFigures(sm_count=facts.sm_count, max_sm_clock_mhz=facts.max_sm_clock_mhz,
                           hbm_peak_gbps=facts.hbm_peak_gbps,
                           l2_fetch_granularity_bytes=None if SIMULATED else l2_fetch_granularity())
    return Lab02Results(sizes=sizes, checks=checks, device=device, tile=cc.TILE, rows=cc.ROWS, sweep=sweep,
                        particles=particles, shared=shared, shared_baselines=baselines, transposes=transposes,
                        cupy_copyto=copyto, ncu=ncu_run, sass=listing)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "profile-target":
        profile_target(sys.argv[2], sys.argv[3])
    else:
        print("usage: python -m labkit.labs.lab02.program profile-target SIZES.json PLAN.json", file=sys.stderr)
        sys.exit(2)
