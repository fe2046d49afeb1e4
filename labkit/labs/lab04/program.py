"""Lab 04's program and measurements: the kernels run here (GPU or simulator)."""

from __future__ import annotations

import time
from contextlib import nullcontext
from pathlib import Path

import numpy as np

from labkit.gpu import cuda
from labkit.kernels import elementwise, reduction, transpose
from labkit.labs.base import Bench, Check, Program
from labkit.labs.lab04.results import CUPYX_COPY_BYTES
from labkit.labs.lab04.results import (FAULTS, L2_MEASUREMENTS, PHASES, PROFILED_KERNELS, AblationRow, L2Read,
                                       Lab04Results, NcuProfiles, PhaseTimings, SassListing, Sizes, Timeline,
                                       TimerChecks, TimerComparison, Totals, Unavailable, VersionTimeline)
from labkit.profiling.event_timeline import EventTimeline
from labkit.records import Spread

#: Threads per block of the loss reduction: its shared-memory tree is sized for this at compile time.
THREADS = reduction.THREADS
LOSS_BLOCKS = 1024



def _blocks(n: int, threads: int = THREADS) -> int:
    return (n + threads - 1) // threads


def check_launches(sizes: Sizes, facts=None) -> None:
    """Refuse, before any launch, a configuration this GPU (``facts``; None: any GPU) cannot run."""
    from labkit.models.launch import check_launch

    check_launch(sizes.threads_per_block, 0, facts)
    check_launch(transpose.TILE * transpose.ROWS_PER_PASS, transpose.TILE * transpose.TILE_PADDED * 4, facts)
    check_launch(THREADS, THREADS * 4, facts)


class Pipeline:
    """The program, with any subset of the four faults. ``run()`` executes all its iterations.

    ``seed`` None draws fresh random inputs (the checks); a number, the same ones each time.
    """

    def __init__(self, sizes: Sizes, faults: frozenset[str] = frozenset(FAULTS), seed: int | None = 4):
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
def check_against_numpy(sizes: Sizes) -> list[Check]:
    """Run both versions once, on fresh random inputs, and compare every phase's result with NumPy."""
    check_launches(sizes)
    checks = []
    for label, faults in (("faulty", frozenset(FAULTS)), ("repaired", frozenset())):
        pipeline = Pipeline(sizes, faults, seed=None)
        pipeline.state_out.copy_to_device(np.full_like(pipeline.initial_state, np.nan))   # poisoned
        pipeline.run()
        expected_params = pipeline.initial_params
        for _ in range(sizes.iterations):
            expected_params = elementwise.chain_reference(expected_params, pipeline.coefficients)
        checks.append(Check(name=f"{label}: normalise (chain of {sizes.chain_steps} steps)", passed=bool(
            np.allclose(pipeline.params.copy_to_host(), expected_params, rtol=1e-4, atol=1e-5))))
        checks.append(Check(name=f"{label}: layer (transpose)", passed=bool(np.array_equal(
            pipeline.state_out.copy_to_host(), transpose.transpose_reference(pipeline.initial_state)))))
        expected_losses = [reduction.sum_squares_reference(pipeline.host_batches[i % 2])
                           for i in range(sizes.iterations)]
        checks.append(Check(name=f"{label}: loss (sum of squares)",
                            passed=bool(np.allclose(pipeline.host_losses, expected_losses, rtol=1e-4))))
    checks.append(Check(name="timer check: the read kernel reads its working set", passed=_read_kernel_reads()))
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
def chronometer(sizes: Sizes, seed: int = 4) -> tuple[Totals, list[AblationRow]]:
    """Host wall clock of whole runs (synchronised), per iteration: the faulty program against the
    repaired one and against each fault repaired alone, in paired, interleaved runs.

    Each round runs five pairs, in a fresh random order: (faulty, repaired) and, for each fault,
    (faulty, only that fault repaired), the two runs of a pair back to back, the faulty one first
    in even rounds and second in odd ones (so that neither side always follows the other). A pair's
    difference, faulty - other, is one paired sample of the saving (AblationRow; its interval:
    labkit.labs.lab04.results.paired_interval_seconds). The totals are the spreads of all faulty
    runs and of the repaired runs. Each configuration first runs once to warm up (compilation,
    allocations) and is not counted.
    """
    configurations = {"faulty": frozenset(FAULTS), "repaired": frozenset(),
                      **{fault: frozenset(FAULTS) - {fault} for fault in FAULTS}}
    pipelines = {name: Pipeline(sizes, faults) for name, faults in configurations.items()}
    for pipeline in pipelines.values():
        pipeline.run()

    def per_iteration(name: str) -> float:
        start = time.perf_counter()
        pipelines[name].run()
        return (time.perf_counter() - start) / sizes.iterations

    samples: dict[str, list[float]] = {name: [] for name in configurations}
    differences: dict[str, list[float]] = {name: [] for name in configurations if name != "faulty"}
    order = np.random.default_rng(seed)
    for round_index in range(sizes.chronometer_rounds):
        for other in order.permutation(list(differences)):
            if round_index % 2 == 0:
                faulty, alone = per_iteration("faulty"), per_iteration(other)
            else:
                alone, faulty = per_iteration(other), per_iteration("faulty")
            samples["faulty"].append(faulty)
            samples[other].append(alone)
            differences[other].append(faulty - alone)

    def spread(name: str) -> Spread:
        values = samples[name]
        return Spread(median_seconds=float(np.median(values)), min_seconds=min(values), max_seconds=max(values),
                      repeats=len(values))

    totals = Totals(faulty=spread("faulty"), repaired=spread("repaired"))
    return totals, [AblationRow(fault=fault, with_only_this_repaired=spread(fault),
                                paired_saved_seconds=differences[fault]) for fault in FAULTS]


def phase_timings(sizes: Sizes, time_gpu) -> list[PhaseTimings]:
    """Each phase's GPU time in isolation, both versions, with the chapter's timer."""
    faulty, repaired = Pipeline(sizes, frozenset(FAULTS)), Pipeline(sizes, frozenset())
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
        rows.append(PhaseTimings(phase=phase, moved_bytes=bytes_,
                                 faulty=time_gpu(run_faulty, warmup=3, repeats=30, flush_l2=flush),
                                 repaired=time_gpu(run_repaired, warmup=3, repeats=30, flush_l2=flush)))
    return rows


# ----- step 2: the timeline ----------------------------------------------------------------------
def event_timeline(sizes: Sizes, iterations: int = 4) -> dict[str, VersionTimeline]:
    """Spans of the first iterations of both versions, on the GPU's clock."""
    out = {}
    short = sizes.model_copy(update={"iterations": iterations})
    for label, faults in (("faulty", frozenset(FAULTS)), ("repaired", frozenset())):
        pipeline = Pipeline(short, faults)
        pipeline.run()                      # warm-up
        timeline = EventTimeline()
        pipeline.run(timeline)
        out[label] = VersionTimeline(iterations=iterations, spans=timeline.spans())
    return out


# ----- step 3: Nsight Compute on the dominant kernels --------------------------------------------
def profile_target(sizes: Sizes) -> None:
    """What ncu profiles: each profiled kernel launched once, at the lab's size."""
    faulty, repaired = Pipeline(sizes, frozenset(FAULTS)), Pipeline(sizes, frozenset())
    faulty.layer()
    repaired.layer()
    repaired.loss(0)
    threads = sizes.threads_per_block
    elementwise.scale_add[_blocks(sizes.chain_elements, threads), threads, faulty.compute](faulty.params, 1.0, 0.0)
    repaired.normalise()
    cuda.synchronize()


def nsight_compute(work_dir: Path) -> NcuProfiles | Unavailable:
    """Profile the target under ncu (clocks left alone) and diagnose each kernel as the chapter does."""
    from labkit.profiling import diagnosis
    from labkit.profiling.lab_profile import profile_lab

    return profile_lab("labkit.labs.lab04.program", "|".join(PROFILED_KERNELS), work_dir,
                       lambda run: NcuProfiles(status="ok", kernels=[diagnosis.StoredProfile.of(p) for p in run.profiles]),
                       lambda reason: Unavailable(status="unavailable", reason=reason),
                       pages=("raw", "details"), report="lab04", timeout_seconds=300)


# ----- step 4: the SASS --------------------------------------------------------------------------
def sass_step(work_dir: Path) -> SassListing:
    """Each profiled kernel's SASS, and the chapter's questions answered from it."""
    from labkit.profiling import sass

    kernels = {"transpose_naive": transpose.transpose_naive, "transpose_tiled": transpose.transpose_tiled,
               "scale_add": elementwise.scale_add, "fused_chain": elementwise.fused_chain,
               "sum_squares": reduction.sum_squares}
    facts = {}
    for name, dispatcher in kernels.items():
        text = sass.dump_sass(dispatcher)
        (work_dir / f"sass_{name}.txt").write_text(text)
        facts[name] = sass.read_sass(text)
    return SassListing(status="ok", kernels=facts)


def nsys_kernel_summary(work_dir: Path):
    """Where nsys exists: its cuda_gpu_kern_sum of the faulty program (the kernels that dominate)."""
    import sys

    from labkit.profiling import nsys

    text = nsys.profile_and_summarize([sys.executable, "-m", "labkit.labs.lab04.program", "faulty-program"], work_dir)
    return nsys.parse_kern_sum(text)


# ----- step 1's instrument: the timer itself, checked ----------------------------------------------
READ_PASSES = 8
#: The compute-bound kernel timed by both timers: 2^23 elements x 4096 dependent FMAs.
CUPYX_FMA_ELEMENTS = 1 << 23
CUPYX_FMA_PER_ELEMENT = 4096


def timer_checks(sizes: Sizes, time_gpu, facts) -> TimerChecks:
    """The chapter's timer against cupyx.profiler.benchmark, and rule 5's L2 effect.

    cupyx synchronises after every call, this timer runs the calls back to back: on a
    compute-bound kernel (FMA chains) the two must agree; on a 1 GiB copy, isolated calls are
    a few percent slower, and the table shows by how much.

    L2: a working set that fits in L2 (``sizes.l2_set_bytes``, 20 MB) read once per launch, with
    and without an L2 flush between repetitions; then read 8 times in one launch, against the same
    over one that does not (``sizes.hbm_set_bytes``, 400 MB).
    Apparent bandwidth = bytes read / median time, compared with the theoretical HBM peak.
    """
    from labkit.kernels.stream import read_passes

    out = cuda.device_array(1, dtype=np.float32)
    small = cuda.to_device(np.ones(sizes.l2_set_bytes // 4, dtype=np.float32))
    large = cuda.to_device(np.ones(sizes.hbm_set_bytes // 4, dtype=np.float32))
    plan = {"l2_once_warm": (small, 1, False), "l2_once_flushed": (small, 1, True),
            "l2_passes_warm": (small, READ_PASSES, False), "hbm_passes": (large, READ_PASSES, True)}
    rows = []
    for name in L2_MEASUREMENTS:
        x, passes, flush = plan[name]
        grid = min(facts.sm_count * 8, _blocks(x.size))   # 8 blocks per SM, none without an element to read
        timing = time_gpu(lambda: read_passes[grid, THREADS](x, out, passes), warmup=10, repeats=200, flush_l2=flush)
        rows.append(L2Read(measurement=name, read_bytes=passes * x.size * 4, passes=passes, timing=timing))
    return TimerChecks(l2=rows, cupyx=cupyx_comparisons(time_gpu))


def cupyx_comparisons(time_gpu) -> list[TimerComparison] | None:
    """Both timers on a compute-bound kernel and on a 1 GiB copy; None without CuPy."""
    try:
        import cupy
        from cupyx.profiler import benchmark
    except ImportError:
        return None
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

    comparisons = []
    for name, fn in (("fma_chains", fma_chains), ("copy_1gib", lambda: cupy.copyto(target, source))):
        ours = time_gpu(fn, warmup=10, repeats=100)
        theirs = float(np.median(benchmark(fn, (), n_warmup=10, n_repeat=100).gpu_times[0]))
        comparisons.append(TimerComparison(kernel=name, labkit_median_seconds=ours.median_seconds,
                                           cupyx_median_seconds=theirs))
    return comparisons


# ----- the whole lab -----------------------------------------------------------------------------
class Lab04Program(Program[Sizes, Lab04Results]):
    def check(self, sizes: Sizes) -> list[Check]:
        return check_against_numpy(sizes)

    def measure(self, bench: Bench, sizes: Sizes) -> Lab04Results:
        """The four steps at ``sizes``; profilers are skipped in the simulator."""
        from labkit.labs.lab04 import LAB
        from labkit.profiling import nsys

        check_launches(sizes, None if bench.simulated else bench.facts)
        bench.progress("checks against NumPy")
        checks = check_against_numpy(LAB.simulator_sizes.model_copy(
            update={"threads_per_block": sizes.threads_per_block}))
        bench.progress("step 1: the timer against cupyx, and the L2 effect")
        instrument = timer_checks(sizes, bench.time_gpu, bench.facts)
        bench.progress("step 1: chronometer, the faulty program paired with each repair, interleaved rounds")
        totals, costs = chronometer(sizes)
        bench.progress("step 1: each phase with the timer")
        phases = phase_timings(sizes, bench.time_gpu)
        no_gpu = Unavailable(status="unavailable", reason="kernels ran in the Numba CUDA simulator")
        bench.progress("step 2: timeline")
        if bench.simulated:
            timeline = no_gpu
        elif nsys.find_nsys():
            timeline = Timeline(source="nsys", nsys_kernels=nsys_kernel_summary(bench.work_dir), **event_timeline(sizes))
        else:
            timeline = Timeline(source="labkit-events", **event_timeline(sizes))
        bench.progress("step 3: Nsight Compute")
        ncu_results = no_gpu if bench.simulated else nsight_compute(bench.work_dir)
        bench.progress("step 4: SASS")
        sass_facts = no_gpu if bench.simulated else sass_step(bench.work_dir)
        return Lab04Results(sizes=sizes, checks=checks, hbm_peak_gbps=bench.facts.hbm_peak_gbps, timer=instrument,
                            totals=totals, phases=phases, ablation=costs, timeline=timeline, ncu=ncu_results,
                            sass=sass_facts)


def main(argv: list[str]) -> int:
    """Entry points for the profilers' child processes."""
    from labkit.labs.lab04 import LAB

    if argv == ["profile-target"]:
        from labkit.gpu.device import read_device_facts

        profile_target(LAB.sizes_for(read_device_facts()))
    elif argv == ["faulty-program"]:
        from labkit.gpu.device import read_device_facts

        Pipeline(LAB.sizes_for(read_device_facts()), frozenset(FAULTS)).run()
    else:
        raise SystemExit("usage: python -m labkit.labs.lab04.program profile-target|faulty-program")
    return 0


if __name__ == "__main__":
    import sys

    raise SystemExit(main(sys.argv[1:]))
