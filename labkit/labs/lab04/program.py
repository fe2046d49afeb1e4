"""Lab 04's program and measurements: the kernels run here (GPU or simulator)."""

from __future__ import annotations

import time
import warnings
from contextlib import nullcontext
from dataclasses import asdict, replace
from pathlib import Path

import numpy as np
from numba import cuda
from numba.core.errors import NumbaPerformanceWarning

from labkit.kernels import elementwise, reduction, transpose
from labkit.labs.lab04 import (FAULT_PHASE, FAULTS, GPU_SIZES, PHASES, PROFILED_KERNELS, SIMULATOR_SIZES,
                               Sizes)
from labkit.profiling.timeline import EventTimeline, busy_fraction, idle_gaps

#: Threads per block of the loss reduction: its shared-memory tree is sized for this at compile time.
THREADS = reduction.THREADS
LOSS_BLOCKS = 1024

# The tiny grids are the fault this lab teaches (and the checks run at toy size): Numba's
# warning about them would only repeat it.
warnings.filterwarnings("ignore", category=NumbaPerformanceWarning)


def _blocks(n: int, threads: int = THREADS) -> int:
    return (n + threads - 1) // threads


def check_launches(sizes: Sizes) -> None:
    """Refuse, before any launch, a configuration this GPU (or, in the simulator, any GPU) cannot run."""
    from labkit.backend import is_simulator
    from labkit.launch import check_launch

    facts = None
    if not is_simulator():
        from labkit.device import read_device_facts

        facts = read_device_facts()
    check_launch(sizes.threads_per_block, 0, facts)
    check_launch(transpose.TILE * transpose.ROWS_PER_PASS, transpose.TILE * transpose.TILE_PADDED * 4, facts)
    check_launch(THREADS, THREADS * 4, facts)


class Program:
    """The program, with any subset of the four faults. ``run()`` executes all its iterations."""

    def __init__(self, sizes: Sizes, faults: frozenset[str] = frozenset(FAULTS), seed: int = 4):
        unknown = set(faults) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown faults {sorted(unknown)}: choose among {FAULTS}")
        self.sizes, self.faults = sizes, frozenset(faults)
        rng = np.random.default_rng(seed)
        shape = (sizes.batch_rows, sizes.batch_cols)
        self.host_batches = [rng.random(shape, dtype=np.float32) for _ in range(2)]
        if "pageable_transfer" not in self.faults:
            pinned = [cuda.pinned_array(shape, dtype=np.float32) for _ in range(2)]
            for target, source in zip(pinned, self.host_batches):
                target[...] = source
            self.host_batches = pinned
        self.device_batches = [cuda.device_array(shape, dtype=np.float32) for _ in range(2)]
        self.coefficients = np.stack(
            [rng.uniform(0.9, 1.0, sizes.chain_steps), rng.uniform(-0.05, 0.05, sizes.chain_steps)], axis=1
        ).astype(np.float32)
        self.device_coefficients = cuda.to_device(self.coefficients)
        self.initial_params = rng.random(sizes.chain_elements, dtype=np.float32)
        self.params = cuda.to_device(self.initial_params)
        self.initial_state = rng.random((sizes.state_side, sizes.state_side), dtype=np.float32)
        self.state = cuda.to_device(self.initial_state)
        self.state_out = cuda.device_array_like(self.state)
        self.losses = cuda.to_device(np.zeros(sizes.iterations, dtype=np.float32))
        self.compute = cuda.stream()
        self.copy = cuda.stream()
        self.ready = [cuda.event() for _ in range(2)]
        self.consumed = [cuda.event() for _ in range(2)]
        self.host_losses: list[float] = []

    # ----- the four phases ---------------------------------------------------------------
    def transfer(self, i: int) -> None:
        if "pageable_transfer" in self.faults:
            self.device_batches[i % 2].copy_to_device(self.host_batches[i % 2], stream=self.compute)
        else:
            self.ready[i % 2].wait(self.compute)  # the batch was prefetched on the copy stream

    def prefetch(self, i: int) -> None:
        """Repaired transfer: copy batch i on the copy stream once iteration i - 2 is done with its buffer."""
        slot = i % 2
        if i >= 2:
            self.consumed[slot].wait(self.copy)
        self.device_batches[slot].copy_to_device(self.host_batches[slot], stream=self.copy)
        self.ready[slot].record(self.copy)

    def normalise(self) -> None:
        threads = self.sizes.threads_per_block
        blocks = _blocks(self.sizes.chain_elements, threads)
        if "tiny_kernels" in self.faults:
            for a, b in self.coefficients:
                elementwise.scale_add[blocks, threads, self.compute](self.params, a, b)
        else:
            elementwise.fused_chain[blocks, threads, self.compute](self.params, self.device_coefficients)

    def layer(self) -> None:
        grid, block = transpose.launch_shape(self.sizes.state_side, self.sizes.state_side)
        kernel = transpose.transpose_naive if "uncoalesced" in self.faults else transpose.transpose_tiled
        kernel[grid, block, self.compute](self.state, self.state_out)

    def loss(self, i: int) -> None:
        batch = self.device_batches[i % 2].reshape(self.sizes.batch_rows * self.sizes.batch_cols)
        blocks = min(LOSS_BLOCKS, _blocks(batch.size))
        reduction.sum_squares[blocks, THREADS, self.compute](batch, self.losses[i:i + 1])
        self.consumed[i % 2].record(self.compute)
        if "host_sync" in self.faults:
            value = float(self.losses[i:i + 1].copy_to_host(stream=self.compute)[0])  # like loss.item()
            self.compute.synchronize()
            self.host_losses.append(value)

    # ----- the loop ------------------------------------------------------------------------
    def run(self, timeline: EventTimeline | None = None) -> None:
        overlapped = "pageable_transfer" not in self.faults
        self.host_losses = []
        if overlapped:
            self.prefetch(0)
        for i in range(self.sizes.iterations):
            if overlapped and i + 1 < self.sizes.iterations:
                with _phase(timeline, "transfer", i + 1, self.copy, "copy"):
                    self.prefetch(i + 1)
            with _phase(timeline, "transfer", i, self.compute):
                self.transfer(i)
            with _phase(timeline, "normalise", i, self.compute):
                self.normalise()
            with _phase(timeline, "layer", i, self.compute):
                self.layer()
            with _phase(timeline, "loss", i, self.compute):
                self.loss(i)
        self.compute.synchronize()
        self.copy.synchronize()
        if "host_sync" not in self.faults:
            self.host_losses = [float(v) for v in self.losses.copy_to_host()]


def _phase(timeline, name, iteration, stream, stream_name="compute"):
    return timeline.phase(name, iteration, stream, stream_name) if timeline else nullcontext()


# ----- checks against NumPy (simulator and GPU alike) ------------------------------------------
def check_against_numpy(sizes: Sizes) -> list[tuple[str, bool]]:
    """Run both versions once and compare every phase's result with NumPy."""
    check_launches(sizes)
    checks = []
    for label, faults in (("faulty", frozenset(FAULTS)), ("repaired", frozenset())):
        program = Program(sizes, faults)
        program.run()
        expected_params = program.initial_params
        for _ in range(sizes.iterations):
            expected_params = elementwise.chain_reference(expected_params, program.coefficients)
        checks.append((f"{label}: normalise (chain of {sizes.chain_steps} steps)",
                       np.allclose(program.params.copy_to_host(), expected_params, rtol=1e-4, atol=1e-5)))
        checks.append((f"{label}: layer (transpose)",
                       np.array_equal(program.state_out.copy_to_host(),
                                      transpose.transpose_reference(program.initial_state))))
        expected_losses = [reduction.sum_squares_reference(program.host_batches[i % 2])
                           for i in range(sizes.iterations)]
        checks.append((f"{label}: loss (sum of squares)",
                       np.allclose(program.host_losses, expected_losses, rtol=1e-4)))
    checks.append(("timer check: the read kernel reads its working set", _read_kernel_reads()))
    return checks


def _read_kernel_reads() -> bool:
    """read_passes writes only an impossible sum: plant it, across two passes, and look for it."""
    from labkit.kernels.stream import IMPOSSIBLE_SUM, read_passes

    x = np.zeros(1000, dtype=np.float32)
    x[0] = IMPOSSIBLE_SUM / 2
    out = cuda.to_device(np.zeros(1, dtype=np.float32))
    read_passes[2, 64](cuda.to_device(x), out, 2)
    return float(out.copy_to_host()[0]) == IMPOSSIBLE_SUM


# ----- step 1: the chronometer -----------------------------------------------------------------
def seconds_per_iteration(sizes: Sizes, faults: frozenset[str], repeats: int = 5) -> dict:
    """Host wall clock of whole runs (synchronised), per iteration: median, min, max over repeats.

    A first run warms up (compilation, allocations, clocks) and is not counted.
    """
    program = Program(sizes, faults)
    program.run()
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        program.run()
        samples.append((time.perf_counter() - start) / sizes.iterations)
    return {"median_seconds": float(np.median(samples)), "min_seconds": min(samples),
            "max_seconds": max(samples), "repeats": repeats}


def phase_timings(sizes: Sizes, time_gpu) -> list[dict]:
    """Each phase's GPU time in isolation, both versions, with the chapter's timer."""
    faulty, repaired = Program(sizes, frozenset(FAULTS)), Program(sizes, frozenset())
    rows = []
    work = {
        "transfer": (lambda: faulty.device_batches[0].copy_to_device(faulty.host_batches[0]),
                     lambda: repaired.device_batches[0].copy_to_device(repaired.host_batches[0]),
                     sizes.batch_bytes),
        "normalise": (faulty.normalise, repaired.normalise, None),
        "layer": (faulty.layer, repaired.layer, sizes.layer_bytes),
        "loss": (lambda: faulty.loss(0), lambda: repaired.loss(0), sizes.batch_bytes),
    }
    for phase in PHASES:
        run_faulty, run_repaired, bytes_ = work[phase]
        flush = phase == "layer"
        t_faulty = time_gpu(run_faulty, warmup=3, repeats=30, flush_l2=flush)
        t_repaired = time_gpu(run_repaired, warmup=3, repeats=30, flush_l2=flush)
        rows.append({"phase": phase, "bytes": bytes_, "faulty": t_faulty.to_dict(), "repaired": t_repaired.to_dict()})
    return rows


def ablation(sizes: Sizes, faulty_seconds: float) -> list[dict]:
    """What each fault costs: the faulty program's time minus its time with only that fault repaired."""
    rows = []
    for fault in FAULTS:
        without = seconds_per_iteration(sizes, frozenset(FAULTS) - {fault})["median_seconds"]
        rows.append({"fault": fault, "phase": FAULT_PHASE[fault], "seconds_with_only_this_repaired": without,
                     "saved_seconds": faulty_seconds - without,
                     "saved_share": (faulty_seconds - without) / faulty_seconds})
    return rows


# ----- step 2: the timeline ----------------------------------------------------------------------
def event_timeline(sizes: Sizes, iterations: int = 4) -> dict:
    """Spans of the first iterations of both versions, and the GPU's idle gaps between them."""
    out = {}
    short = Sizes(**{**asdict(sizes), "iterations": iterations})
    for label, faults in (("faulty", frozenset(FAULTS)), ("repaired", frozenset())):
        program = Program(short, faults)
        program.run()                      # warm-up
        timeline = EventTimeline()
        program.run(timeline)
        spans = timeline.spans()
        gaps = idle_gaps(spans)
        out[label] = {
            "iterations": iterations,
            "spans": [s.to_dict() for s in spans],
            "phase_seconds": {phase: sum(s.seconds for s in spans if s.phase == phase) / iterations
                              for phase in PHASES},
            "idle_gaps": len(gaps),
            "idle_seconds": sum(g.seconds for g in gaps),
            "busy_fraction": busy_fraction(spans),
            "wall_seconds": max(s.end_seconds for s in spans) - min(s.start_seconds for s in spans),
        }
    return out


# ----- step 3: Nsight Compute on the dominant kernels --------------------------------------------
def profile_target(sizes: Sizes = GPU_SIZES) -> None:
    """What ncu profiles: each profiled kernel launched once, at the lab's size."""
    faulty, repaired = Program(sizes, frozenset(FAULTS)), Program(sizes, frozenset())
    faulty.layer()
    repaired.layer()
    repaired.loss(0)
    threads = sizes.threads_per_block
    elementwise.scale_add[_blocks(sizes.chain_elements, threads), threads, faulty.compute](faulty.params, 1.0, 0.0)
    repaired.normalise()
    cuda.synchronize()


def nsight_compute(work_dir: Path) -> dict:
    """Profile the target under ncu (clocks left alone) and diagnose each kernel as the chapter does."""
    import sys

    from labkit.profiling import diagnosis, ncu

    ncu_path = ncu.find_ncu()
    if ncu_path is None:
        return {"status": "unavailable", "reason": "ncu not found (install Nsight Compute)"}
    report = work_dir / "lab04"
    try:
        ncu.profile_command([sys.executable, "-m", "labkit.labs.lab04.program", "profile-target"],
                            "|".join(PROFILED_KERNELS), report, timeout_seconds=300)
        raw = ncu.export_csv(report.with_suffix(".ncu-rep"), "raw")
        details = ncu.export_csv(report.with_suffix(".ncu-rep"), "details")
    except ncu.NcuError as exc:
        return {"status": "unavailable", "reason": str(exc)}
    (work_dir / "ncu_raw.csv").write_text(raw)
    (work_dir / "ncu_details.csv").write_text(details)
    profiles = ncu.merge_profiles(ncu.parse_raw_csv(raw), ncu.parse_details_csv(details))
    return {"status": "ok", "kernels": [diagnosis.diagnose(profile).to_dict() for profile in profiles]}


# ----- step 4: the SASS --------------------------------------------------------------------------
def sass_step(work_dir: Path) -> dict:
    """Each profiled kernel's SASS, and the chapter's questions answered from it."""
    from labkit.profiling import sass

    kernels = {"transpose_naive": transpose.transpose_naive, "transpose_tiled": transpose.transpose_tiled,
               "scale_add": elementwise.scale_add, "fused_chain": elementwise.fused_chain,
               "sum_squares": reduction.sum_squares}
    facts = {}
    for name, dispatcher in kernels.items():
        text = sass.dump_sass(dispatcher)
        (work_dir / f"sass_{name}.txt").write_text(text)
        facts[name] = sass.read_sass(text).to_dict()
    return facts


# ----- the whole lab on a GPU --------------------------------------------------------------------
def measure(progress, work_dir: Path, sizes: Sizes = GPU_SIZES) -> dict:
    """The four steps at GPU size; ``progress(label)`` advances the progress bar one step."""
    from labkit.device import read_device_facts
    from labkit.profiling import nsys
    from labkit.timing import time_gpu

    check_launches(sizes)
    progress("checks against NumPy")
    checks = [{"name": name, "passed": ok} for name, ok in
              check_against_numpy(replace(SIMULATOR_SIZES, threads_per_block=sizes.threads_per_block))]
    progress("step 1: the timer against cupyx, and the L2 effect")
    instrument = timer_checks(time_gpu, read_device_facts())
    progress("step 1: chronometer, faulty and repaired")
    faulty = seconds_per_iteration(sizes, frozenset(FAULTS))
    repaired = seconds_per_iteration(sizes, frozenset())
    progress("step 1: each phase with the timer")
    phases = phase_timings(sizes, time_gpu)
    progress("step 1: what each fault costs")
    costs = ablation(sizes, faulty["median_seconds"])
    progress("step 2: timeline")
    timeline = {"source": "labkit-events", **event_timeline(sizes)}
    if nsys.find_nsys():
        timeline["nsys_kernels"] = nsys_kernel_summary(work_dir)
        timeline["source"] = "nsys"
    progress("step 3: Nsight Compute")
    ncu_results = nsight_compute(work_dir)
    progress("step 4: SASS")
    sass_facts = sass_step(work_dir)
    return {
        "sizes": asdict(sizes),
        "checks": checks,
        "timer": instrument,
        "totals": {"faulty": faulty, "repaired": repaired,
                   "speedup": faulty["median_seconds"] / repaired["median_seconds"]},
        "phases": phases,
        "ablation": costs,
        "timeline": timeline,
        "ncu": ncu_results,
        "sass": sass_facts,
    }


MEASURE_STEPS = 9


def nsys_kernel_summary(work_dir: Path) -> list[dict]:
    """Where nsys exists: its cuda_gpu_kern_sum of the faulty program (the kernels that dominate)."""
    import sys

    from labkit.profiling import nsys

    text = nsys.profile_and_summarize([sys.executable, "-m", "labkit.labs.lab04.program", "faulty-program"], work_dir)
    return [row.to_dict() for row in nsys.parse_kern_sum(text)]


def main(argv: list[str]) -> int:
    """Entry points for the profilers' child processes."""
    if argv == ["profile-target"]:
        profile_target()
    elif argv == ["faulty-program"]:
        Program(GPU_SIZES, frozenset(FAULTS)).run()
    else:
        raise SystemExit("usage: python -m labkit.labs.lab04.program profile-target|faulty-program")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))




# ----- step 1's instrument: the timer itself, checked ----------------------------------------------
L2_WORKING_SET_BYTES = 20_000_000
HBM_WORKING_SET_BYTES = 400_000_000
READ_PASSES = 8
CUPYX_COPY_BYTES = 1 << 30
#: The compute-bound kernel timed by both timers: 2^23 elements x 4096 dependent FMAs.
CUPYX_FMA_ELEMENTS = 1 << 23
CUPYX_FMA_PER_ELEMENT = 4096


def timer_checks(time_gpu, facts) -> dict:
    """The chapter's timer against cupyx.profiler.benchmark, and rule 5's L2 effect.

    cupyx synchronises after every call, this timer runs the calls back to back: on a
    compute-bound kernel (FMA chains) the two must agree; on a 1 GiB copy, isolated calls are
    a few percent slower, and the table shows by how much.

    L2: a 20 MB working set read once per launch, with and without an L2 flush between
    repetitions; then read 8 times in one launch, against the same over 400 MB (bigger than L2).
    Apparent bandwidth = bytes read / median time, compared with the theoretical HBM peak.
    """
    from labkit.kernels.stream import read_passes

    out = cuda.device_array(1, dtype=np.float32)
    grid = facts.sm_count * 8

    def read(x, passes):
        return lambda: read_passes[grid, THREADS](x, out, passes)

    small = cuda.to_device(np.ones(L2_WORKING_SET_BYTES // 4, dtype=np.float32))
    large = cuda.to_device(np.ones(HBM_WORKING_SET_BYTES // 4, dtype=np.float32))
    rows = []
    for name, x, passes, flush in (("l2_once_warm", small, 1, False), ("l2_once_flushed", small, 1, True),
                                   ("l2_passes_warm", small, READ_PASSES, False),
                                   ("hbm_passes", large, READ_PASSES, True)):
        timing = time_gpu(read(x, passes), warmup=10, repeats=200, flush_l2=flush)
        bytes_ = passes * x.size * 4
        rows.append({"measurement": name, "bytes": bytes_, "timing": timing.to_dict(),
                     "gbps": bytes_ / timing.median_seconds / 1e9,
                     "of_hbm_peak": bytes_ / timing.median_seconds / 1e9 / facts.hbm_peak_gbps})
    checks = {"hbm_peak_gbps": facts.hbm_peak_gbps, "l2": rows, "cupyx": None}
    try:
        import cupy
        from cupyx.profiler import benchmark
    except ImportError:
        return checks
    source = cupy.ones(CUPYX_COPY_BYTES // 4, dtype=cupy.float32)
    target = cupy.empty_like(source)
    # Launched by CuPy, whose launch costs microseconds: a Numba launch's tens of microseconds of
    # Python would sit inside cupyx's event pair, which the GPU spends idle.
    fma_loop = cupy.ElementwiseKernel(
        "float32 a, float32 b", "float32 x",
        f"for (int i = 0; i < {CUPYX_FMA_PER_ELEMENT}; ++i) {{ x = fmaf(x, a, b); }}", "labkit_fma_loop")
    values = cupy.ones(CUPYX_FMA_ELEMENTS, dtype=cupy.float32)

    def fma_chains():
        fma_loop(cupy.float32(0.999), cupy.float32(0.001), values)

    checks["cupyx"] = []
    for name, fn in (("fma_chains", fma_chains), ("copy_1gib", lambda: cupy.copyto(target, source))):
        ours = time_gpu(fn, warmup=10, repeats=100)
        theirs = float(np.median(benchmark(fn, (), n_warmup=10, n_repeat=100).gpu_times[0]))
        checks["cupyx"].append({"kernel": name, "labkit_median_seconds": ours.median_seconds,
                                "cupyx_median_seconds": theirs, "ratio": theirs / ours.median_seconds})
    return checks
    source = cupy.ones(CUPYX_COPY_BYTES // 4, dtype=cupy.float32)
    target = cupy.empty_like(source)
    ours = time_gpu(lambda: cupy.copyto(target, source), warmup=10, repeats=100)
    theirs = benchmark(cupy.copyto, (target, source), n_warmup=10, n_repeat=100)
    theirs_seconds = float(np.median(theirs.gpu_times[0]))
    checks["cupyx"] = {"bytes": 2 * CUPYX_COPY_BYTES, "labkit_median_seconds": ours.median_seconds,
                       "cupyx_median_seconds": theirs_seconds, "ratio": theirs_seconds / ours.median_seconds}
    return checks
