"""Lab 03's program and measurements: the kernels run here (GPU or simulator)."""

from __future__ import annotations

import csv
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from labkit.gpu import SIMULATED, cuda, nan_device_array
from labkit.gpu.device import fp32_lanes_per_sm, read_clocks
from labkit.kernels import chase, ilp, register_pressure
from labkit.kernels.compiled import allow_dynamic_shared, resources
from labkit.labs.base import Bench, Check, Program
from labkit.labs.ceilings import measure as measure_copy_ceiling  # the course's one copy ceiling
from labkit.labs.lab03.sizing import FULL_COPY_LOADS, full_copy_warps
from labkit.models import occupancy
from labkit.models.access import WARP_LANES
from labkit.labs.lab03.results import (ArithmeticStep, ChasePoint, Device, DriverStep, FmaKernel, FmaPoint,
                                       FmaSass, Lab03Results, LatencyStep, Launch, MemoryStep, NcuLaunch, NcuStep,
                                       RegisterStep, RegisterVariant, SassStep, Sizes, StreamKernel, StreamPoint,
                                       Unavailable, WavePoint, WaveStep)
from labkit.models.launch import LaunchConfigError
from labkit.profiling.diagnosis import DURATION_METRIC

COPY_SIGNATURE = "void(float32[::1], float32[::1])"
FMA_SIGNATURE = "void(float32[::1], int64, float32, float32)"
MIX_SIGNATURE = "void(float32[::1], float32[::1], int64, float32)"
#: The copy's evict-first hint (labkit.kernels.intrinsics.STREAMING) on every access, or none.
STREAM_HINT = False
#: Threads per block of the checks' copy (one warp), and of the copy that stands in for cupy.copyto
#: without CuPy (two warps); the sweep's blocks follow the SM (copy_shape).
COPY_THREADS, WIDE_COPY_THREADS = 32, 64
#: Threads per block of the FMA and waves kernels: four warps, one per scheduler.
FMA_THREADS = 128
FMA_A, FMA_B = np.float32(0.999), np.float32(0.001)
MIX_A = np.float32(1 / 256)



def _address(array) -> int | None:
    """Where a device array lives (None in the simulator, where the chase follows indices)."""
    return None if SIMULATED else int(array.__cuda_array_interface__["data"][0])


def copy_shape(warps_per_sm: int, arch: occupancy.Architecture = occupancy.SM90) -> tuple[int, int]:
    """(threads per block, blocks per SM) of the copy at ``warps_per_sm``: the smallest blocks (in
    whole warps) of which ``arch``'s SM holds enough: one-warp blocks up to its resident-block limit
    (32 on the H200), then two-warp blocks, three where two are not enough (48 warps on 16 blocks)."""
    if not 1 <= warps_per_sm <= arch.max_warps_per_sm:
        raise ValueError(f"{warps_per_sm} warps per SM: compute capability {arch.label} holds 1 to "
                         f"{arch.max_warps_per_sm}")
    for warps_per_block in range(1, warps_per_sm + 1):
        if warps_per_sm % warps_per_block == 0 and warps_per_sm // warps_per_block <= arch.max_blocks_per_sm:
            return warps_per_block * WARP_LANES, warps_per_sm // warps_per_block
    raise AssertionError("one block of every warp always fits")


def capped_launch(threads: int, blocks_per_sm: int, registers: int | None,
                  arch: occupancy.Architecture) -> Launch | None:
    """The launch that holds exactly ``blocks_per_sm`` blocks per SM (its dynamic shared memory from
    labkit.models.occupancy), or None where the kernel's registers stop it below that."""
    try:
        dynamic = occupancy.dynamic_shared_for_blocks(blocks_per_sm, occupancy.KernelLaunch(threads, registers or 0),
                                                      arch)
    except LaunchConfigError:
        return None
    return Launch(threads_per_block=threads, blocks_per_sm=blocks_per_sm, dynamic_shared_bytes=dynamic)


def fma_trips(sizes: Sizes, chains: int) -> int:
    """Trips of the FMA kernel with ``chains`` chains: every thread does the same FMAs whatever its
    chains (fma_trips x the most chains in all)."""
    most = max(sizes.fma_chains)
    if most % chains:
        raise ValueError(f"{chains} chains does not divide {most}: FMA chain counts must divide the largest")
    return sizes.fma_trips * most // chains


def wave_grid(quarters: int, extra: int, slots: int) -> int:
    """quarters/4 of a wave of ``slots`` blocks, plus ``extra`` blocks."""
    return max(1, quarters * slots // 4 + extra)


# ----- checks against NumPy ------------------------------------------------------------------------
def check_against_numpy(sizes: Sizes) -> list[Check]:
    """Every kernel of the lab at small size, on fresh random inputs and poisoned outputs."""
    rng = np.random.default_rng()
    checks = []
    for working_set in (4096, 3 * 4096 + 128):
        order = chase.cycle_order(chase.slots(working_set), rng)
        words = cuda.device_array(working_set // chase.WORD_BYTES, dtype=np.uint64)
        base = _address(words)
        words.copy_to_device(chase.chain_words(order, base))
        out = cuda.to_device(np.zeros(3, dtype=np.uint64))
        warm, steps = len(order) // 2, 77
        chase.chase[1, 1](words, chase.start_of(order, base), warm, steps, out)
        got = out.copy_to_host()
        checks.append(Check(name=f"pointer chase over {working_set} bytes", passed=bool(
            int(got[2]) == chase.end_reference(order, warm + steps, base) and got[0] > 0)))
    blocks = 2
    for loads in sizes.stream_loads:
        n = 4 * (blocks * COPY_THREADS * loads * 3 + 5)   # three trips of the grid, then a remainder
        source = rng.random(n, dtype=np.float32)
        target = nan_device_array(n)
        ilp.stream_copy(loads, STREAM_HINT)[blocks, COPY_THREADS](cuda.to_device(source), target)
        checks.append(Check(name=f"copy, {loads} load(s) of 16 bytes in flight per thread", passed=bool(
            np.array_equal(target.copy_to_host(), source))))
    threads = blocks * FMA_THREADS
    for chains in sizes.fma_chains:
        out = nan_device_array(threads)
        ilp.fma_chains(chains)[blocks, FMA_THREADS](out, 2, FMA_A, FMA_B)
        checks.append(Check(name=f"FMA, {chains} independent chain(s) per thread", passed=bool(np.allclose(
            out.copy_to_host(), ilp.fma_reference(threads, 2, chains, FMA_A, FMA_B), rtol=1e-5))))
    out = nan_device_array(threads)
    ilp.fma_chains(1, FMA_A)[blocks, FMA_THREADS](out, 2, np.float32(0.0), FMA_B)   # its a is the literal
    checks.append(Check(name="FMA, 1 chain, a as an immediate operand", passed=bool(np.allclose(
        out.copy_to_host(), ilp.fma_reference(threads, 2, 1, FMA_A, FMA_B), rtol=1e-5))))
    out, cycles = nan_device_array(1), cuda.to_device(np.zeros(1, dtype=np.uint64))
    ilp.fma_dependent[1, 1](out, cycles, 3, FMA_A, FMA_B)
    checks.append(Check(name="dependent FMA chain", passed=bool(
        np.isclose(out.copy_to_host()[0], ilp.fma_dependent_reference(3, FMA_A, FMA_B), rtol=1e-6)
        and cycles.copy_to_host()[0] > 0)))
    threads = blocks * WARP_LANES
    data = rng.uniform(0.5, 1.5, register_pressure.LIVE * threads).astype(np.float32)
    device_data = cuda.to_device(data)
    for cap in sizes.register_caps:
        out = nan_device_array(threads)
        register_pressure.register_mix(cap)[blocks, WARP_LANES](device_data, out, 2, MIX_A)
        limit = f"at most {cap} registers" if cap else "no register limit"
        checks.append(Check(name=f"register mix, {limit}", passed=bool(
            np.allclose(out.copy_to_host(), register_pressure.mix_reference(data, threads, 2, MIX_A), rtol=1e-4))))
    return checks


# ----- step 1: latency ------------------------------------------------------------------------------
def _clock_now() -> float | None:
    clocks = read_clocks()
    return None if clocks is None else clocks.sm_mhz


def _l2_evictor(l2_bytes: int):
    """On a GPU, a function that reads twice L2's size of other data (lab 04's read kernel), so
    that L2 holds nothing of what comes next; in the simulator, nothing to evict."""
    if SIMULATED:
        return lambda: None
    from labkit.kernels.stream import read_passes

    other = cuda.device_array(2 * l2_bytes // 4, dtype=np.float32)
    sink = cuda.device_array(1, dtype=np.float32)
    return lambda: read_passes[256, 256](other, sink, 1)


def latency_step(sizes: Sizes, l2_bytes: int) -> LatencyStep:
    """One thread chases a random cycle through each working set: L2 emptied of it (the chain was
    just copied in), a warm-up (a whole lap, at most chase_warm_steps steps), then chase_steps
    timed steps."""
    rng = np.random.default_rng(3)
    words = cuda.device_array(max(sizes.chase_working_sets) // chase.WORD_BYTES, dtype=np.uint64)
    base = _address(words)
    out = cuda.device_array(3, dtype=np.uint64)
    evict = _l2_evictor(l2_bytes)
    points, clocks = [], []
    for working_set in sizes.chase_working_sets:
        order = chase.cycle_order(chase.slots(working_set), rng)
        words[:working_set // chase.WORD_BYTES].copy_to_device(chase.chain_words(order, base))
        evict()
        warm = min(len(order), sizes.chase_warm_steps)
        chase.chase[1, 1](words, chase.start_of(order, base), warm, sizes.chase_steps, out)
        cycles, nanoseconds, end = (int(v) for v in out.copy_to_host())
        clocks.append(_clock_now())
        if end != chase.end_reference(order, warm + sizes.chase_steps, base):
            raise RuntimeError(f"the pointer chase over {working_set} bytes ended in the wrong place")
        points.append(ChasePoint(working_set_bytes=working_set, steps=sizes.chase_steps, cycles=max(cycles, 1),
                                 nanoseconds=max(nanoseconds, 1)))
    read = [c for c in clocks if c is not None]
    return LatencyStep(stride_bytes=chase.STRIDE_BYTES, points=points,
                       sm_clock_mhz=statistics.median(read) if read else None)


# ----- step 2: Little's law for memory ----------------------------------------------------------------
def copy_reference(bench: Bench):
    """C, the course's copy ceiling (labkit.labs.ceilings: the same kernel, size and timing in every lab)."""
    ceiling = measure_copy_ceiling(bench)
    return ceiling.timing, ceiling.copy_bytes


def memory_step(sizes: Sizes, bench: Bench, source, target) -> MemoryStep:
    """The copy at each loads-in-flight count and resident warps per SM (one wave of persistent
    blocks, residency capped by dynamic shared memory)."""
    arch = occupancy.architecture(bench.facts.compute_capability)
    elements = source.size
    reference, reference_bytes = copy_reference(bench)
    kernels, points = [], []
    for loads in sizes.stream_loads:
        kernel = ilp.stream_copy(loads, STREAM_HINT)
        registers = resources(kernel, COPY_SIGNATURE).registers_per_thread
        kernels.append(StreamKernel(loads=loads, registers_per_thread=registers))
        for warps in sizes.stream_warps:
            launch = capped_launch(*copy_shape(warps, arch), registers, arch)
            if launch is None:
                continue
            allow_dynamic_shared(kernel, COPY_SIGNATURE, launch.dynamic_shared_bytes)
            grid = bench.facts.sm_count * launch.blocks_per_sm
            run = kernel[grid, launch.threads_per_block, 0, launch.dynamic_shared_bytes]
            timing = bench.time_gpu(lambda: run(source, target), warmup=1, repeats=sizes.repeats)
            points.append(StreamPoint(loads=loads, launch=launch, moved_bytes=ilp.stream_bytes_moved(elements),
                                      timing=timing))
    return MemoryStep(copy_bytes=reference_bytes, reference=reference, reference_is="course_copy",
                      kernels=kernels, points=points)


# ----- step 3: Little's law for arithmetic -------------------------------------------------------------
def fma_latency_cycles(sizes: Sizes) -> tuple[int, int]:
    """(dependent FMAs, cycles): the median of three single-thread chains, after one untimed."""
    out, cycles = cuda.device_array(1, dtype=np.float32), cuda.device_array(1, dtype=np.uint64)
    samples = []
    for _ in range(4):
        ilp.fma_dependent[1, 1](out, cycles, sizes.fma_latency_trips, FMA_A, FMA_B)
        samples.append(int(cycles.copy_to_host()[0]))
    return sizes.fma_latency_trips * ilp.FMAS_PER_TRIP, max(1, int(statistics.median(samples[1:])))


def fma_curve(sizes: Sizes, bench: Bench, kernel, chains: int) -> tuple[FmaKernel, list[FmaPoint]]:
    """One FMA kernel of ``chains`` chains timed at each of the sweep's warps per SM."""
    arch = occupancy.architecture(bench.facts.compute_capability)
    registers = resources(kernel, FMA_SIGNATURE).registers_per_thread
    trips = fma_trips(sizes, chains)
    points = []
    for warps in sizes.fma_warps:
        launch = capped_launch(FMA_THREADS, warps // (FMA_THREADS // WARP_LANES), registers, arch)
        if launch is None:
            continue
        allow_dynamic_shared(kernel, FMA_SIGNATURE, launch.dynamic_shared_bytes)
        grid = bench.facts.sm_count * launch.blocks_per_sm
        out = cuda.device_array(grid * FMA_THREADS, dtype=np.float32)
        run = kernel[grid, FMA_THREADS, 0, launch.dynamic_shared_bytes]
        timing = bench.time_gpu(lambda: run(out, trips, FMA_A, FMA_B), warmup=1, repeats=sizes.repeats)
        points.append(FmaPoint(chains=chains, launch=launch, flops=ilp.fma_flops(grid * FMA_THREADS, trips, chains),
                               timing=timing))
    return FmaKernel(chains=chains, registers_per_thread=registers), points


def arithmetic_step(sizes: Sizes, bench: Bench) -> ArithmeticStep:
    """The FMA sweep (each chain count at each warps per SM), then the one-chain kernel again with
    ``a`` an immediate operand (two register reads per FFMA instead of three)."""
    fmas, cycles = fma_latency_cycles(sizes)
    kernels, points = [], []
    for chains in sizes.fma_chains:
        kernel, curve = fma_curve(sizes, bench, ilp.fma_chains(chains), chains)
        kernels.append(kernel)
        points += curve
    immediate_kernel, immediate_points = fma_curve(sizes, bench, ilp.fma_chains(1, FMA_A), 1)
    read = [p.timing.sm_clock_mhz for p in points if p.timing.sm_clock_mhz is not None]
    measured = [p.timing.sm_clock_ran_mhz for p in points if p.timing.sm_clock_ran_mhz is not None]
    return ArithmeticStep(latency_fmas=fmas, latency_cycles=cycles, kernels=kernels, points=points,
                          sm_clock_mhz=statistics.median(read) if read else None,
                          sm_clock_ran_mhz=statistics.median(measured) if measured else None,
                          immediate_kernel=immediate_kernel, immediate_points=immediate_points)


#: The FMA kernels whose SASS the lab keeps (sass_<name>.txt): one chain with ``a`` in a register and
#: as an immediate, and eight chains.
SASS_KERNELS = ((1, None), (1, FMA_A), (8, None))


def sass_step(work_dir: Path) -> SassStep | Unavailable:
    """Each of SASS_KERNELS' SASS written beside the record, and where its FFMAs' sources come from."""
    from labkit.profiling import sass

    kernels = []
    for chains, literal in SASS_KERNELS:
        dispatcher = ilp.fma_chains(chains, literal)
        try:
            dispatcher.compile(FMA_SIGNATURE)   # the types the lab launches it with (a recording compiled none here)
            text = sass.dump_sass(dispatcher)
        except sass.SassError as error:
            return Unavailable(status="unavailable", reason=str(error))
        name = dispatcher.py_func.__name__
        (work_dir / f"sass_{name}.txt").write_text(text)
        found = sass.read_ffma_operands(text)
        kernels.append(FmaSass(kernel=name, ffma=found.ffma, three_register=found.three_register,
                               reused=found.reused))
    return SassStep(status="ok", kernels=kernels)


# ----- step 4: register pressure ------------------------------------------------------------------------
def register_step(sizes: Sizes, bench: Bench, data) -> RegisterStep:
    """The register kernel at each limit: its registers and spills as compiled, and its time."""
    grid = bench.facts.sm_count * sizes.register_blocks_per_sm
    threads = grid * sizes.register_threads
    if data.size < register_pressure.LIVE * threads:
        raise ValueError(f"the register step needs {register_pressure.LIVE * threads} input values, "
                         f"it has {data.size}")
    out = cuda.device_array(threads, dtype=np.float32)
    variants = []
    for cap in sizes.register_caps:
        kernel = register_pressure.register_mix(cap)
        compiled = resources(kernel, MIX_SIGNATURE)
        run = kernel[grid, sizes.register_threads]
        timing = bench.time_gpu(lambda: run(data, out, sizes.register_rounds, MIX_A), warmup=1, repeats=sizes.repeats)
        variants.append(RegisterVariant(max_registers=cap, registers_per_thread=compiled.registers_per_thread,
                                        local_bytes_per_thread=compiled.local_bytes_per_thread,
                                        flops=register_pressure.mix_flops(threads, sizes.register_rounds),
                                        timing=timing))
    return RegisterStep(threads_per_block=sizes.register_threads, variants=variants)


# ----- step 5: waves -------------------------------------------------------------------------------------
def waves_step(sizes: Sizes, bench: Bench) -> WaveStep:
    """Blocks of equal duration (one dependent FMA chain per thread, latency-bound whatever the
    residency), resident wave_blocks_per_sm per SM, at grids around whole waves."""
    arch = occupancy.architecture(bench.facts.compute_capability)
    kernel = ilp.fma_chains(1)
    registers = resources(kernel, FMA_SIGNATURE).registers_per_thread
    launch = capped_launch(sizes.wave_threads, sizes.wave_blocks_per_sm, registers, arch)
    if launch is None:
        raise LaunchConfigError(f"the waves' kernel cannot hold {sizes.wave_blocks_per_sm} blocks per SM")
    allow_dynamic_shared(kernel, FMA_SIGNATURE, launch.dynamic_shared_bytes)
    slots = bench.facts.sm_count * launch.blocks_per_sm
    grids = sorted({wave_grid(quarters, extra, slots) for quarters, extra in sizes.wave_grids})
    out = cuda.device_array(max(grids) * sizes.wave_threads, dtype=np.float32)
    points = []
    for grid in grids:
        run = kernel[grid, sizes.wave_threads, 0, launch.dynamic_shared_bytes]
        timing = bench.time_gpu(lambda: run(out, sizes.wave_trips, FMA_A, FMA_B), warmup=1, repeats=sizes.repeats)
        points.append(WavePoint(grid_blocks=grid, timing=timing))
    return WaveStep(launch=launch, registers_per_thread=registers, points=points)


# ----- step 6: Nsight Compute ----------------------------------------------------------------------------
#: The launches the ncu step profiles, in launch order (labels of labkit/report/labels/lab03.py), on
#: the H200; :func:`profiled` gives them on any GPU (the full-occupancy copy fills its SM's warps).
PROFILED = ("copy_8_loads_16_warps", "copy_1_load_16_warps", "copy_1_load_64_warps", "fma_1_chain_16_warps",
            "fma_8_chains_4_warps", "fma_1_chain_64_warps", "fma_1_chain_imm_64_warps", "registers_free",
            "registers_32", "waves_one", "waves_one_plus_one")
#: The FMA launches profiled: (chains, a as an immediate, warps per SM; None: every warp the SM holds).
PROFILED_FMA = ((1, False, 16), (8, False, 4), (1, False, None), (1, True, None))


def profiled(arch: occupancy.Architecture) -> tuple[str, ...]:
    """PROFILED on ``arch``: the copy and the FMA kernels at full occupancy hold their SM's warps
    (64, 48 or 32)."""
    full = full_copy_warps(arch)
    return tuple(label.replace("_64_warps", f"_{full}_warps") for label in PROFILED)
PROFILED_KERNELS = "stream_copy|fma_chains|register_mix"
#: Per buffer, for the profiled copies: far above L2, small enough for ncu's replays to be quick.
PROFILE_STREAM_BYTES = 256 << 20
#: Blocks per SM of the profiled register kernels' grid (whole waves at 3, 4, 6 and 8 blocks per SM).
PROFILE_REGISTER_BLOCKS_PER_SM = 24
#: What issue 29 added to the profile (every stall reason, eligible warps, the FFMA share, the FMA pipe):
#: the one-chain FMA plateau's cause is read in them.
ISSUE_29_METRICS = (
    "smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_selected_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_no_instruction_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_branch_resolving_per_issue_active.ratio",
    "smsp__average_warp_latency_per_inst_issued.ratio",
    "smsp__warps_eligible.avg.per_cycle_active",
    "smsp__inst_executed.sum",
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active",
)
NCU_METRICS = (
    DURATION_METRIC,
    "sm__maximum_warps_per_active_cycle_pct",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "launch__occupancy_limit_blocks",
    "launch__occupancy_limit_registers",
    "launch__occupancy_limit_shared_mem",
    "launch__occupancy_limit_warps",
    "launch__registers_per_thread",
    "launch__shared_mem_per_block_dynamic",
    "launch__waves_per_multiprocessor",
    "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio",
    "smsp__average_warps_issue_stalled_wait_per_issue_active.ratio",
    "smsp__issue_active.avg.pct_of_peak_sustained_active",
    *ISSUE_29_METRICS,
    "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum",
    "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
    "sm__cycles_active.avg",
    "sm__cycles_elapsed.avg",
)
_PER_BLOCK_BYTES = {"byte/block": 1.0, "Kbyte/block": 1e3, "Mbyte/block": 1e6}


def _persistent(kernel, signature: str, threads: int, blocks_per_sm: int, sm_count: int,
                arch: occupancy.Architecture, extra_blocks: int = 0):
    """The kernel configured for a capped launch of blocks_per_sm x SMs (+ extra) blocks."""
    launch = capped_launch(threads, blocks_per_sm, resources(kernel, signature).registers_per_thread, arch)
    if launch is None:
        raise LaunchConfigError(f"a profiled kernel cannot hold {blocks_per_sm} blocks of {threads} threads per SM")
    allow_dynamic_shared(kernel, signature, launch.dynamic_shared_bytes)
    grid = sm_count * blocks_per_sm + extra_blocks
    return grid, kernel[grid, threads, 0, launch.dynamic_shared_bytes]


def profile_target(sizes: Sizes) -> None:
    """What ncu profiles: the PROFILED launches, once each, in that order (ncu's child process)."""
    from labkit.gpu.device import read_device_facts

    facts = read_device_facts()
    arch, sms = occupancy.architecture(facts.compute_capability), facts.sm_count
    source = cuda.to_device(np.ones(PROFILE_STREAM_BYTES // 4, dtype=np.float32))
    target = cuda.device_array_like(source)
    for loads, warps in ((8, 16), (1, 16), (FULL_COPY_LOADS, full_copy_warps(arch))):
        _, run = _persistent(ilp.stream_copy(loads, STREAM_HINT), COPY_SIGNATURE, *copy_shape(warps, arch), sms, arch)
        run(source, target)
    for chains, immediate, warps in PROFILED_FMA:
        kernel = ilp.fma_chains(chains, FMA_A if immediate else None)
        grid, run = _persistent(kernel, FMA_SIGNATURE, FMA_THREADS, (warps or arch.max_warps_per_sm) // (FMA_THREADS // WARP_LANES),
                                sms, arch)
        run(cuda.device_array(grid * FMA_THREADS, dtype=np.float32), fma_trips(sizes, chains), FMA_A, FMA_B)
    grid = sms * PROFILE_REGISTER_BLOCKS_PER_SM
    threads = grid * sizes.register_threads
    data = cuda.to_device(np.ones(register_pressure.LIVE * threads, dtype=np.float32))
    out = cuda.device_array(threads, dtype=np.float32)
    for cap in (None, 32):
        register_pressure.register_mix(cap)[grid, sizes.register_threads](data, out, sizes.register_rounds, MIX_A)
    for extra in (0, 1):
        grid, run = _persistent(ilp.fma_chains(1), FMA_SIGNATURE, sizes.wave_threads, sizes.wave_blocks_per_sm, sms,
                                arch, extra)
        run(cuda.device_array(grid * sizes.wave_threads, dtype=np.float32), sizes.wave_trips, FMA_A, FMA_B)
    cuda.synchronize()


def _per_block_bytes(profile, metric: str) -> float:
    unit = profile.metrics[metric].unit
    if unit not in _PER_BLOCK_BYTES:
        from labkit.profiling.ncu import NcuError

        raise NcuError(f"kernel {profile.name}: metric {metric} is in {unit!r}, not bytes per block")
    return profile.value(metric) * _PER_BLOCK_BYTES[unit]


def ncu_launch(label: str, profile) -> NcuLaunch:
    """One profiled launch, as the chapter reads it (stall reasons in cycles per issued instruction).
    The metrics issue 29 added (ISSUE_29_METRICS) are None in a page exported before them."""
    stall = "smsp__average_warps_issue_stalled_{}_per_issue_active.ratio"

    def since_29(metric: str) -> float | None:
        return profile.value(metric) if metric in profile.metrics else None

    return NcuLaunch(
        label=label, kernel=profile.name, threads_per_block=math.prod(profile.block_size),
        grid_blocks=math.prod(profile.grid_size), registers_per_thread=int(profile.value("launch__registers_per_thread")),
        dynamic_shared_bytes=round(_per_block_bytes(profile, "launch__shared_mem_per_block_dynamic")),
        theoretical_pct=profile.value("sm__maximum_warps_per_active_cycle_pct"),
        achieved_pct=profile.value("sm__warps_active.avg.pct_of_peak_sustained_active"),
        block_limits={name: profile.value(f"launch__occupancy_limit_{name}")
                      for name in ("blocks", "registers", "shared_mem", "warps")},
        waves_per_sm=profile.value("launch__waves_per_multiprocessor"),
        stall_long_scoreboard=profile.value(stall.format("long_scoreboard")),
        stall_not_selected=profile.value(stall.format("not_selected")),
        stall_math_pipe_throttle=profile.value(stall.format("math_pipe_throttle")),
        stall_wait=profile.value(stall.format("wait")),
        issue_active_pct=profile.value("smsp__issue_active.avg.pct_of_peak_sustained_active"),
        stall_dispatch=since_29(stall.format("dispatch_stall")), stall_selected=since_29(stall.format("selected")),
        stall_no_instruction=since_29(stall.format("no_instruction")),
        stall_branch_resolving=since_29(stall.format("branch_resolving")),
        warp_cycles_per_issue=since_29("smsp__average_warp_latency_per_inst_issued.ratio"),
        eligible_warps=since_29("smsp__warps_eligible.avg.per_cycle_active"),
        instructions=since_29("smsp__inst_executed.sum"),
        ffma_thread_instructions=since_29("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"),
        fma_pipe_pct=since_29("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active"),
        local_sectors=profile.value("l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum")
        + profile.value("l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum"),
        sm_active_cycles=profile.value("sm__cycles_active.avg"), sm_elapsed_cycles=profile.value("sm__cycles_elapsed.avg"),
        duration_seconds=profile.seconds(DURATION_METRIC))


def nsight_compute(work_dir: Path, arch: occupancy.Architecture) -> NcuStep | Unavailable:
    """One ncu process (clocks left alone, NCU_METRICS only) over profile_target's launches."""
    from labkit.profiling.lab_profile import profile_lab
    from labkit.profiling.ncu import NcuError

    labels = profiled(arch)

    def read(run) -> NcuStep:
        if len(run.profiles) != len(labels):
            raise NcuError(f"ncu profiled {len(run.profiles)} launches, the lab made {len(labels)}")
        return NcuStep(status="ok", launches=[ncu_launch(label, profile) for label, profile in zip(labels, run.profiles)])

    return profile_lab("labkit.labs.lab03.program", PROFILED_KERNELS, work_dir, read,
                       lambda reason: Unavailable(status="unavailable", reason=reason),
                       metrics=NCU_METRICS, report="lab03", timeout_seconds=300)


# ----- step 7: the calculator against the driver ------------------------------------------------------------
DRIVER_ROWS = "occupancy_driver.csv"
DRIVER_EDGES = "occupancy_driver_edges.csv"


def _write_csv(path: Path, columns: list[str], rows: list[list]) -> None:
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows([["" if value is None else value for value in row] for row in rows])


def driver_step(work_dir: Path, compute_capability: tuple[int, int]) -> DriverStep | Unavailable:
    """labkit.occupancy_probe's kernels and queries (NVRTC through CuPy, the driver's
    cuOccupancyMaxActiveBlocksPerMultiprocessor beside labkit's answer), written as raw CSV."""
    from labkit.calibration import occupancy_probe as probe

    started = time.perf_counter()
    try:
        driver = probe.CupyDriver()
    except probe.ProbeError as error:
        return Unavailable(status="unavailable", reason=str(error))
    arch = occupancy.architecture(compute_capability)
    device = probe.device_record(driver.device_properties())
    found = probe.calibrate(driver, arch)
    _write_csv(work_dir / DRIVER_ROWS, found["columns"], found["rows"])
    edge_columns = list(found["edges"][0]) if found["edges"] else ["case"]
    _write_csv(work_dir / DRIVER_EDGES, edge_columns, [[edge[c] for c in edge_columns] for edge in found["edges"]])
    agreement = [probe.edge_agrees(edge) for edge in found["edges"]]
    return DriverStep(status="ok", kernels=len(found["kernels"]), configurations=found["summary"]["configurations"],
                      equal=found["summary"]["equal"], edge_cases=len(agreement),
                      edge_cases_agreeing=agreement.count(True), edge_cases_not_modelled=agreement.count(None),
                      device_mismatches=probe.device_mismatches(device, arch), errors=found["errors"],
                      seconds=time.perf_counter() - started)


# ----- the whole lab ---------------------------------------------------------------------------------------
class Lab03Program(Program[Sizes, Lab03Results]):
    def check(self, sizes: Sizes) -> list[Check]:
        return check_against_numpy(sizes)

    def measure(self, bench: Bench, sizes: Sizes) -> Lab03Results:
        from labkit.labs.lab03 import LAB

        facts = bench.facts
        started = time.perf_counter()
        bench.progress("checks against NumPy")
        checks = check_against_numpy(LAB.simulator_sizes.model_copy(update={
            "stream_loads": sizes.stream_loads, "fma_chains": sizes.fma_chains, "register_caps": sizes.register_caps}))
        bench.progress("step 1: latency by pointer chase")
        latency = latency_step(sizes, facts.l2_bytes)
        bench.progress("step 2: copy bandwidth against warps per SM and loads in flight")
        source = cuda.to_device(np.ones(sizes.stream_bytes // 4, dtype=np.float32))
        target = cuda.device_array_like(source)
        memory = memory_step(sizes, bench, source, target)
        bench.progress("step 3: FMA throughput against warps per SM and chains")
        arithmetic = arithmetic_step(sizes, bench)
        bench.progress("step 4: register pressure")
        registers = register_step(sizes, bench, source)
        bench.progress("step 5: waves")
        waves = waves_step(sizes, bench)
        no_gpu = Unavailable(status="unavailable", reason="kernels ran in the Numba CUDA simulator")
        bench.progress("step 6: Nsight Compute, achieved occupancy")
        ncu_step = (no_gpu if bench.simulated
                    else nsight_compute(bench.work_dir, occupancy.architecture(facts.compute_capability)))
        bench.progress("step 7: the occupancy calculator against the driver")
        driver = no_gpu if bench.simulated else driver_step(bench.work_dir, facts.compute_capability)
        bench.progress("the FMA kernels' SASS")
        sass = no_gpu if bench.simulated else sass_step(bench.work_dir)
        device = Device(name=facts.name, compute_capability=facts.compute_capability, sm_count=facts.sm_count,
                        max_sm_clock_mhz=facts.max_sm_clock_mhz, hbm_peak_gbps=facts.hbm_peak_gbps,
                        l2_bytes=facts.l2_bytes, fp32_lanes_per_sm=fp32_lanes_per_sm(facts.compute_capability))
        return Lab03Results(sizes=sizes, checks=checks, device=device, latency=latency, memory=memory,
                            arithmetic=arithmetic, registers=registers, waves=waves, ncu=ncu_step, driver=driver,
                            seconds=time.perf_counter() - started, sass=sass)


def main(argv: list[str]) -> int:
    """Entry point of ncu's child process."""
    from labkit.labs.lab03 import LAB

    from labkit.gpu.device import read_device_facts

    if argv != ["profile-target"]:
        raise SystemExit("usage: python -m labkit.labs.lab03.program profile-target")
    profile_target(LAB.sizes_for(read_device_facts()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
