"""What lab 03 records, typed once: the file's shape, its validation and its reading.

Stored are the measurements (clock counts, timings, compiled kernels' registers and local memory,
the launches' shapes, Nsight Compute's counters, the driver's occupancy answers' summary); every
latency plateau, bandwidth, knee, Little's-law prediction and occupancy is derived here, from
them and from labkit's pure functions (labkit.models.occupancy, labkit.models.latency, labkit.models.knee). A file
that validates is complete and physically possible on its GPU: every sweep point holds exactly
the resident blocks its launch asked for, no bandwidth is above the theoretical HBM peak, no FMA
rate above the FP32 peak, no clock ticks faster than the SM's maximum.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, model_validator

from labkit.gpu.device import fma_peak_gflops
from labkit.gpu.timing import Timing
from labkit.labs.base import CheckedResults
from labkit.models import latency, occupancy
from labkit.models.access import WARP_LANES
from labkit.models.knee import Knee, fit_knee
from labkit.records import Count, NonNegative, Percent, Positive, PositiveInt, Record, ReferenceRate


#: Working sets whose latency is the L1 plateau: at most this many bytes (an H200 SM's L1 holds
#: up to 256 KiB less its shared memory; 64 KiB fits whatever the carve-out).
L1_MAX_BYTES = 64 << 10
#: L2 plateau: from 1 MiB (four times any L1) to an eighth of L2 (far from its capacity).
L2_MIN_BYTES = 1 << 20
L2_MAX_SHARE = 1 / 8
#: HBM plateau: working sets of at least 8x L2, where at most an eighth of a random chase's
#: steps can find their line in L2.
HBM_MIN_L2_MULTIPLE = 8
#: A chase point answers at a level's latency when its cycles per step are within this share of
#: the level's plateau (the L1 and L2 plateaus are flat to 1 %; the steps between levels are x2 or more).
PLATEAU_WITHIN = 0.10
#: Bytes per load of the copy kernels (one load4) and threads per warp.
LOAD_BYTES = 16
#: A point whose theoretical occupancy is at most this is a "low occupancy" point (Volkov's bar).
LOW_OCCUPANCY = 0.25
#: The most a clock read in a kernel may exceed the SM's maximum (the timers' granularity).
CLOCK_SLACK = 1.05
LEVELS = ("l1", "l2", "hbm")
#: What C, the lab's copy bandwidth, is: the course's copy ceiling (labkit.labs.ceilings); records made
#: before the course had one ceiling hold cupy.copyto (or labkit's copy without CuPy) on the lab's buffers.
ReferenceIs = Literal["course_copy", "cupy_copyto", "labkit_copy"]


class Sizes(Record):
    chase_working_sets: tuple[PositiveInt, ...]   # bytes, increasing
    chase_steps: PositiveInt                      # timed steps per working set
    chase_warm_steps: PositiveInt                 # at most this many untimed steps first
    stream_bytes: PositiveInt                     # per buffer (source and target)
    stream_loads: tuple[PositiveInt, ...]         # 16-byte loads in flight per thread, one curve each
    stream_warps: tuple[PositiveInt, ...]         # resident warps per SM, the sweep's x
    fma_chains: tuple[PositiveInt, ...]
    fma_warps: tuple[PositiveInt, ...]            # multiples of the FMA block's warps
    fma_trips: PositiveInt
    fma_latency_trips: PositiveInt
    register_caps: tuple[PositiveInt | None, ...]  # None: no limit
    register_threads: PositiveInt                 # per block
    register_blocks_per_sm: PositiveInt           # grid = SMs x this: whole waves at every residency
    register_rounds: PositiveInt
    wave_threads: PositiveInt
    wave_blocks_per_sm: PositiveInt               # residency the waves' launch sets
    wave_trips: PositiveInt
    wave_grids: tuple[tuple[PositiveInt, int], ...]  # (whole waves numerator in quarters, extra blocks)
    repeats: PositiveInt


class Device(Record):
    """The recorded GPU's figures that the lab's arithmetic uses."""

    name: str
    compute_capability: tuple[int, int]
    sm_count: PositiveInt
    max_sm_clock_mhz: Positive
    hbm_peak_gbps: Positive
    l2_bytes: PositiveInt
    fp32_lanes_per_sm: PositiveInt

    @property
    def arch(self) -> occupancy.Architecture:
        return occupancy.architecture(self.compute_capability)

    @property
    def schedulers_per_sm(self) -> int:
        return self.arch.sm_sub_partitions

    @property
    def fma_issue_per_cycle(self) -> float:
        """Warp FMA instructions one scheduler can issue per cycle: its FP32 lanes / 32."""
        return self.fp32_lanes_per_sm / self.schedulers_per_sm / WARP_LANES


# ----- step 1: latency ---------------------------------------------------------------------------
class ChasePoint(Record):
    """One working set chased: the timed steps' SM cycles (clock64) and nanoseconds (globaltimer)."""

    working_set_bytes: PositiveInt
    steps: PositiveInt
    cycles: PositiveInt
    nanoseconds: PositiveInt

    @property
    def cycles_per_step(self) -> float:
        return self.cycles / self.steps

    @property
    def ns_per_step(self) -> float:
        return self.nanoseconds / self.steps

    @property
    def clock_mhz(self) -> float:
        """The SM clock the two counters imply: cycles / nanoseconds."""
        return self.cycles / self.nanoseconds * 1e3


class Plateau(Record):
    """A level of the memory hierarchy: the median latency over the working sets of its window."""

    level: Literal["l1", "l2", "hbm"]
    points: PositiveInt
    cycles: Positive
    ns: Positive


class LatencyStep(Record):
    stride_bytes: PositiveInt
    points: Annotated[list[ChasePoint], Field(min_length=1)]
    sm_clock_mhz: Positive | None     # NVML, during the step

    def window(self, level: str, l2_bytes: int) -> tuple[float, float]:
        """The working sets (bytes, bounds included) whose median is the ``level`` plateau."""
        return {"l1": (0, L1_MAX_BYTES), "l2": (L2_MIN_BYTES, l2_bytes * L2_MAX_SHARE),
                "hbm": (HBM_MIN_L2_MULTIPLE * l2_bytes, math.inf)}[level]

    def plateau(self, level: str, l2_bytes: int) -> Plateau | None:
        low, high = self.window(level, l2_bytes)
        inside = [p for p in self.points if low <= p.working_set_bytes <= high]
        if not inside:
            return None
        return Plateau(level=level, points=len(inside), cycles=statistics.median(p.cycles_per_step for p in inside),
                       ns=statistics.median(p.ns_per_step for p in inside))

    def _at_level(self, level: str, l2_bytes: int) -> list[ChasePoint]:
        """The points, by working set, whose latency is the ``level`` plateau's (PLATEAU_WITHIN)."""
        plateau = self.plateau(level, l2_bytes)
        if plateau is None:
            return []
        return [p for p in sorted(self.points, key=lambda p: p.working_set_bytes)
                if abs(p.cycles_per_step / plateau.cycles - 1) <= PLATEAU_WITHIN]

    def plateau_end_bytes(self, level: str, l2_bytes: int) -> int | None:
        """Where ``level`` stops answering: the largest working set of the unbroken run of points at
        its latency that starts in its window (L1: 192 KiB; L2: 24 MiB of a 60 MiB L2, on the H200)."""
        low, _ = self.window(level, l2_bytes)
        at_level = {p.working_set_bytes for p in self._at_level(level, l2_bytes)}
        end = None
        for point in sorted(self.points, key=lambda p: p.working_set_bytes):
            if point.working_set_bytes < low:
                continue
            if point.working_set_bytes not in at_level:
                break
            end = point.working_set_bytes
        return end

    def level_reached_bytes(self, level: str, l2_bytes: int) -> int | None:
        """The smallest working set chased at ``level``'s latency (HBM: 48 MiB on the H200)."""
        at_level = self._at_level(level, l2_bytes)
        return at_level[0].working_set_bytes if at_level else None


# ----- step 2: Little's law for memory ------------------------------------------------------------
class StreamKernel(Record):
    """One compiled copy kernel: loads in flight per thread, and its registers (None: simulator)."""

    loads: PositiveInt
    registers_per_thread: PositiveInt | None


class Launch(Record):
    """A launch of a persistent sweep kernel: blocks per SM x SMs blocks, residency capped by its
    dynamic shared memory."""

    threads_per_block: PositiveInt
    blocks_per_sm: PositiveInt
    dynamic_shared_bytes: Count

    @property
    def warps_per_sm(self) -> int:
        return self.blocks_per_sm * math.ceil(self.threads_per_block / WARP_LANES)

    def calculated(self, registers: int | None, arch: occupancy.Architecture) -> occupancy.Occupancy:
        """labkit.models.occupancy's answer for this launch (registers None: as if none)."""
        return occupancy.calculate(occupancy.KernelLaunch(self.threads_per_block, registers or 0, 0,
                                                          self.dynamic_shared_bytes), arch)


class StreamPoint(Record):
    loads: PositiveInt
    launch: Launch
    moved_bytes: PositiveInt      # read + written
    timing: Timing

    @property
    def gbps(self) -> float:
        return self.timing.gbps(self.moved_bytes)

    def round_trip_seconds(self, sm_count: int) -> float:
        """The time one trip of a warp took, on average, by Little's law on the measurement: each
        trip moves the warp's loads (loads x 16 bytes x 32 threads) and as many stores, so
        trip = 2 x read bytes per warp x warps per SM x SMs / bandwidth."""
        moved_per_warp = 2 * latency.bytes_in_flight_per_warp(self.loads, LOAD_BYTES, WARP_LANES)
        return moved_per_warp * self.launch.warps_per_sm * sm_count / (self.gbps * 1e9)


class MemoryStep(Record):
    copy_bytes: PositiveInt       # read + written per call of the reference copy
    reference: Timing
    reference_is: ReferenceIs
    kernels: Annotated[list[StreamKernel], Field(min_length=1)]
    points: Annotated[list[StreamPoint], Field(min_length=1)]

    @property
    def copy_gbps(self) -> float:
        """C, the lab's copy bandwidth: the reference copy's bytes read + written over its median time."""
        return self.reference.gbps(self.copy_bytes)

    def kernel(self, loads: int) -> StreamKernel:
        return next(k for k in self.kernels if k.loads == loads)

    def curve(self, loads: int) -> list[StreamPoint]:
        return sorted((p for p in self.points if p.loads == loads), key=lambda p: p.launch.warps_per_sm)


@dataclass(frozen=True)
class MemoryCurve:
    """One curve of step 2, read (derived, never stored): its measured knee and Little's law's (with
    the latency alone, and with each warp's whole round trip), a warp's round trip as the model has
    it and as measured at the curve's first point."""

    loads: int
    registers_per_thread: int | None
    max_warps_per_sm: int
    knee: Knee
    latency_warps: float | None      # Little's law with the latency alone; None: no HBM plateau measured
    predicted_knee: float | None     # with the round trip: latency_warps + 1
    round_trip_model_seconds: float | None   # latency + the warp's bytes at its SM's share of C
    first_warps_per_sm: int
    first_round_trip_seconds: float  # measured at first_warps_per_sm, by Little's law

    @property
    def knee_ratio(self) -> float | None:
        """Predicted / measured knee, where the curve's knee lies within its points."""
        if self.predicted_knee is None or not self.knee.within:
            return None
        return self.predicted_knee / self.knee.x


# ----- step 3: Little's law for arithmetic --------------------------------------------------------
class FmaKernel(Record):
    chains: PositiveInt
    registers_per_thread: PositiveInt | None


class FmaPoint(Record):
    chains: PositiveInt
    launch: Launch
    flops: Positive
    timing: Timing

    @property
    def gflops(self) -> float:
        return self.timing.gflops(self.flops)


class ArithmeticStep(Record):
    latency_fmas: PositiveInt        # dependent FMAs timed by clock64
    latency_cycles: PositiveInt
    kernels: Annotated[list[FmaKernel], Field(min_length=1)]
    points: Annotated[list[FmaPoint], Field(min_length=1)]
    sm_clock_mhz: Positive | None    # NVML, median over the sweep's timings (provenance)
    sm_clock_ran_mhz: Positive | None = None   # measured on the GPU (labkit.gpu.timing), median over the sweep
    # the one-chain kernel with ``a`` an immediate operand (labkit.kernels.ilp.fma_chains(1, a)): each FFMA
    # reads two registers instead of three, same chain, instructions and loop (issue 29; absent before)
    immediate_kernel: FmaKernel | None = None
    immediate_points: list[FmaPoint] = []

    @property
    def fma_latency_cycles(self) -> float:
        return self.latency_cycles / self.latency_fmas

    def kernel(self, chains: int) -> FmaKernel:
        return next(k for k in self.kernels if k.chains == chains)

    def curve(self, chains: int) -> list[FmaPoint]:
        return sorted((p for p in self.points if p.chains == chains), key=lambda p: p.launch.warps_per_sm)

    def immediate_curve(self) -> list[FmaPoint]:
        return sorted(self.immediate_points, key=lambda p: p.launch.warps_per_sm)


# ----- step 4: register pressure -------------------------------------------------------------------
class RegisterVariant(Record):
    max_registers: PositiveInt | None
    registers_per_thread: PositiveInt | None     # compiled (None: simulator)
    local_bytes_per_thread: Count | None         # local memory: the spills
    flops: Positive
    timing: Timing


class RegisterStep(Record):
    threads_per_block: PositiveInt
    variants: Annotated[list[RegisterVariant], Field(min_length=1)]


# ----- step 5: waves -------------------------------------------------------------------------------
class WavePoint(Record):
    grid_blocks: PositiveInt
    timing: Timing


class WaveStep(Record):
    launch: Launch                 # threads per block, resident blocks per SM, dynamic shared memory
    registers_per_thread: PositiveInt | None
    points: Annotated[list[WavePoint], Field(min_length=1)]


# ----- step 6: Nsight Compute ----------------------------------------------------------------------
#: How far ncu's occupancy percentages may stray from the calculator's, and achieved from theoretical:
#: its counters print two decimals (recorded on the H200: 6.249939 % achieved at 6.25 % theoretical).
NCU_OCCUPANCY_SLACK_PCT = 0.5


class NcuLaunch(Record):
    """One profiled launch: the lab's name for it and what Nsight Compute measured."""

    label: str
    kernel: str
    threads_per_block: PositiveInt
    grid_blocks: PositiveInt
    registers_per_thread: PositiveInt
    dynamic_shared_bytes: Count
    theoretical_pct: Percent          # sm__maximum_warps_per_active_cycle_pct
    achieved_pct: Percent             # sm__warps_active.avg.pct_of_peak_sustained_active
    block_limits: dict[str, NonNegative]  # launch__occupancy_limit_{blocks,registers,shared_mem,warps}
    waves_per_sm: NonNegative
    stall_long_scoreboard: NonNegative   # smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
    stall_not_selected: NonNegative
    stall_math_pipe_throttle: NonNegative
    stall_wait: NonNegative              # a fixed-latency dependency (a dependent FMA)
    issue_active_pct: Percent
    # the other stall reasons, the instructions and the FMA pipe (issue 29; None in earlier records)
    stall_dispatch: NonNegative | None = None        # ..._dispatch_stall_per_issue_active.ratio
    stall_selected: NonNegative | None = None        # ..._selected_...: 1 cycle per issued instruction
    stall_no_instruction: NonNegative | None = None
    stall_branch_resolving: NonNegative | None = None
    warp_cycles_per_issue: NonNegative | None = None  # smsp__average_warp_latency_per_inst_issued.ratio
    eligible_warps: NonNegative | None = None         # smsp__warps_eligible.avg.per_cycle_active
    instructions: NonNegative | None = None           # smsp__inst_executed.sum (warp instructions)
    ffma_thread_instructions: NonNegative | None = None   # smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
    fma_pipe_pct: Percent | None = None               # sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active
    local_sectors: NonNegative        # l1tex local load + store sectors: spills' traffic
    sm_active_cycles: NonNegative     # sm__cycles_active.avg: cycles an SM had at least one warp
    sm_elapsed_cycles: Positive       # sm__cycles_elapsed.avg
    duration_seconds: Positive

    @property
    def ffma_share(self) -> float | None:
        """FFMA warp instructions / all warp instructions executed (None before issue 29)."""
        if self.instructions is None or self.ffma_thread_instructions is None or not self.instructions:
            return None
        return self.ffma_thread_instructions / WARP_LANES / self.instructions

    @property
    def sm_active_share(self) -> float:
        """How much of the kernel's time an average SM had work: a tail leaves SMs idle, which
        achieved occupancy (counted over active cycles only) does not show."""
        return self.sm_active_cycles / self.sm_elapsed_cycles

    def calculated(self, arch: occupancy.Architecture) -> occupancy.Occupancy:
        return occupancy.calculate(occupancy.KernelLaunch(self.threads_per_block, self.registers_per_thread, 0,
                                                          self.dynamic_shared_bytes), arch)


class NcuStep(Record):
    status: Literal["ok"]
    launches: Annotated[list[NcuLaunch], Field(min_length=1)]


class Unavailable(Record):
    status: Literal["unavailable"]
    reason: str


class FmaSass(Record):
    """The FFMAs of one FMA kernel's SASS (labkit.profiling.sass.read_ffma_operands), recorded beside
    the record as ``sass_<kernel>.txt``."""

    kernel: str
    ffma: Count
    three_register: Count    # FFMAs whose three sources are all registers (x, a, b)
    reused: Count            # FFMAs with at least one source marked .reuse (the operand reuse cache)


class SassStep(Record):
    status: Literal["ok"]
    kernels: Annotated[list[FmaSass], Field(min_length=1)]

    def kernel(self, name: str) -> FmaSass | None:
        return next((k for k in self.kernels if k.kernel == name), None)


# ----- step 7: the calculator against the driver ---------------------------------------------------
class DriverStep(Record):
    """labkit.models.occupancy against cuOccupancyMaxActiveBlocksPerMultiprocessor on the probe's compiled
    kernels; the rows are the raw file occupancy_driver.csv beside the record."""

    status: Literal["ok"]
    kernels: PositiveInt
    configurations: PositiveInt
    equal: Count
    edge_cases: Count
    edge_cases_agreeing: Count
    edge_cases_not_modelled: Count
    device_mismatches: list[str]
    errors: list[str]
    seconds: Positive


# ----- the whole record -----------------------------------------------------------------------------
class Lab03Results(CheckedResults):
    sizes: Sizes
    device: Device
    latency: LatencyStep
    memory: MemoryStep
    arithmetic: ArithmeticStep
    registers: RegisterStep
    waves: WaveStep
    ncu: Annotated[NcuStep | Unavailable, Field(discriminator="status")]
    driver: Annotated[DriverStep | Unavailable, Field(discriminator="status")]
    seconds: Positive    # the measurement's wall time, checks to step 7
    sass: Annotated[SassStep | Unavailable, Field(discriminator="status")] | None = None   # issue 29

    # ----- what is derived ---------------------------------------------------------------------
    def plateau(self, level: str) -> Plateau | None:
        return self.latency.plateau(level, self.device.l2_bytes)

    def plateau_end_bytes(self, level: str) -> int | None:
        return self.latency.plateau_end_bytes(level, self.device.l2_bytes)

    def level_reached_bytes(self, level: str) -> int | None:
        return self.latency.level_reached_bytes(level, self.device.l2_bytes)

    @property
    def hbm_latency_seconds(self) -> float | None:
        hbm = self.plateau("hbm")
        return None if hbm is None else hbm.ns * 1e-9

    def theoretical_occupancy(self, launch: Launch, registers: int | None) -> float:
        return launch.calculated(registers, self.device.arch).occupancy

    def _read_bytes_per_warp(self, loads: int) -> int:
        return latency.bytes_in_flight_per_warp(loads, LOAD_BYTES, WARP_LANES)

    def latency_copy_warps(self, loads: int) -> float | None:
        """Little's law with the measured HBM latency alone: the warps per SM whose reads in flight
        cover (C / 2) x latency (the prediction that ignores a warp's own transfer)."""
        if self.hbm_latency_seconds is None:
            return None
        return latency.copy_latency_warps_per_sm(self.memory.copy_gbps, self._read_bytes_per_warp(loads),
                                                 self.hbm_latency_seconds, self.device.sm_count)

    def predicted_round_trip_seconds(self, loads: int) -> float | None:
        """A warp's round trip at best: the measured HBM latency + the bytes it moves (reads and
        writes) at its SM's share of C."""
        if self.hbm_latency_seconds is None:
            return None
        return latency.copy_round_trip_seconds(self._read_bytes_per_warp(loads), self.hbm_latency_seconds,
                                               self.memory.copy_gbps, self.device.sm_count)

    def predicted_copy_knee(self, loads: int) -> float | None:
        """Little's law with the round trip: the warps per SM that sustain C when each waits the
        measured HBM latency and moves its bytes at its SM's share of C (latency warps + 1)."""
        if self.hbm_latency_seconds is None:
            return None
        return latency.copy_knee_warps_per_sm(self.memory.copy_gbps, self._read_bytes_per_warp(loads),
                                              self.hbm_latency_seconds, self.device.sm_count)

    def predicted_copy_gbps(self, loads: int, warps_per_sm: float) -> float | None:
        """The bound's bandwidth: min(C, 2 x warps x read bytes per warp x SMs / round trip)."""
        if self.hbm_latency_seconds is None:
            return None
        return latency.copy_gbps(warps_per_sm, self._read_bytes_per_warp(loads), self.hbm_latency_seconds,
                                 self.memory.copy_gbps, self.device.sm_count)

    def memory_knee(self, loads: int) -> Knee:
        curve = self.memory.curve(loads)
        return fit_knee([p.launch.warps_per_sm for p in curve], [p.gbps for p in curve])

    def low_occupancy_points(self, loads: int) -> list[StreamPoint]:
        registers = self.memory.kernel(loads).registers_per_thread
        return [p for p in self.memory.curve(loads)
                if self.theoretical_occupancy(p.launch, registers) <= LOW_OCCUPANCY]

    def memory_curves(self) -> list[MemoryCurve]:
        out = []
        for loads in self.sizes.stream_loads:
            curve = self.memory.curve(loads)
            out.append(MemoryCurve(
                loads=loads, registers_per_thread=self.memory.kernel(loads).registers_per_thread,
                max_warps_per_sm=curve[-1].launch.warps_per_sm, knee=self.memory_knee(loads),
                latency_warps=self.latency_copy_warps(loads), predicted_knee=self.predicted_copy_knee(loads),
                round_trip_model_seconds=self.predicted_round_trip_seconds(loads),
                first_warps_per_sm=curve[0].launch.warps_per_sm,
                first_round_trip_seconds=curve[0].round_trip_seconds(self.device.sm_count)))
        return out

    def fp32_peak_gflops(self) -> float:
        """At the SM clock the FMA sweep ran at (measured on the GPU; NVML's reading in a record
        from before issue 29; the maximum clock when neither exists)."""
        clock = self.arithmetic.sm_clock_ran_mhz or self.arithmetic.sm_clock_mhz or self.device.max_sm_clock_mhz
        return fma_peak_gflops(self.device.sm_count, self.device.fp32_lanes_per_sm, clock)

    def predicted_fma_knee(self, chains: int) -> float:
        return latency.issue_knee_warps_per_sm(chains, self.arithmetic.fma_latency_cycles,
                                               self.device.fma_issue_per_cycle, self.device.schedulers_per_sm)

    def predicted_fma_gflops(self, chains: int, warps_per_sm: float) -> float:
        return self.fp32_peak_gflops() * latency.issue_share(
            warps_per_sm, chains, self.arithmetic.fma_latency_cycles, self.device.fma_issue_per_cycle,
            self.device.schedulers_per_sm)

    def fma_knee(self, chains: int) -> Knee:
        curve = self.arithmetic.curve(chains)
        return fit_knee([p.launch.warps_per_sm for p in curve], [p.gflops for p in curve])

    def register_occupancy(self, variant: RegisterVariant) -> occupancy.Occupancy | None:
        if variant.registers_per_thread is None:
            return None
        return occupancy.calculate(occupancy.KernelLaunch(self.registers.threads_per_block,
                                                          variant.registers_per_thread), self.device.arch)

    def fastest_register_variant(self) -> RegisterVariant:
        return min(self.registers.variants, key=lambda v: v.timing.median_seconds)

    def wave_slots(self) -> int:
        """Blocks the GPU holds at once in the waves' launch: SMs x resident blocks per SM."""
        return self.device.sm_count * self.waves.launch.blocks_per_sm

    def one_wave_seconds(self) -> float:
        full = [p for p in self.waves.points if p.grid_blocks == self.wave_slots()]
        return full[0].timing.median_seconds if full else min(p.timing.median_seconds for p in self.waves.points)

    def predicted_wave_seconds(self, grid_blocks: int) -> float:
        """Blocks of equal duration: ceil(waves) x the time of one full wave."""
        return math.ceil(occupancy.waves(grid_blocks, self.device.sm_count, self.waves.launch.blocks_per_sm)) \
            * self.one_wave_seconds()

    # ----- what cannot be ------------------------------------------------------------------------
    @model_validator(mode="after")
    def _complete(self) -> Lab03Results:
        sets = [p.working_set_bytes for p in self.latency.points]
        if sets != sorted(set(sets)):
            raise ValueError("latency/points: working sets must increase, each once")
        for what, found, expected in (
                ("memory/kernels", [k.loads for k in self.memory.kernels], self.sizes.stream_loads),
                ("arithmetic/kernels", [k.chains for k in self.arithmetic.kernels], self.sizes.fma_chains),
                ("registers/variants", [v.max_registers for v in self.registers.variants], self.sizes.register_caps)):
            if tuple(found) != tuple(expected):
                raise ValueError(f"{what}: holds {found}, expected {list(expected)}")
        for loads in self.sizes.stream_loads:
            if len(self.memory.curve(loads)) < 2:
                raise ValueError(f"memory/points: the curve of {loads} loads per thread has fewer than two points")
        for chains in self.sizes.fma_chains:
            if len(self.arithmetic.curve(chains)) < 2:
                raise ValueError(f"arithmetic/points: the curve of {chains} chains has fewer than two points")
        return self

    @model_validator(mode="after")
    def _residency_as_launched(self) -> Lab03Results:
        """Every sweep point holds, per labkit.models.occupancy, exactly the blocks per SM it claims."""
        arch = self.device.arch
        launches = [(f"memory point of {p.loads} loads", p.launch, self.memory.kernel(p.loads).registers_per_thread)
                    for p in self.memory.points]
        launches += [(f"arithmetic point of {p.chains} chains", p.launch,
                      self.arithmetic.kernel(p.chains).registers_per_thread) for p in self.arithmetic.points]
        if self.arithmetic.immediate_kernel is not None:
            launches += [("arithmetic point of the immediate operand", p.launch,
                          self.arithmetic.immediate_kernel.registers_per_thread)
                         for p in self.arithmetic.immediate_points]
        launches.append(("waves", self.waves.launch, self.waves.registers_per_thread))
        for what, launch, registers in launches:
            resident = launch.calculated(registers, arch).blocks_per_sm
            if resident != launch.blocks_per_sm:
                raise ValueError(f"{what} at {launch.warps_per_sm} warps per SM: its launch holds {resident} blocks per "
                                 f"SM, not the {launch.blocks_per_sm} recorded")
        return self

    @model_validator(mode="after")
    def _ncu_as_calculated(self) -> Lab03Results:
        """What ncu measured on each profiled launch can be: its theoretical occupancy is the
        calculator's for the launch ncu reports (labkit.models.occupancy equals the driver's answer), and
        its achieved occupancy, an average of warps resident per active cycle, is not above the
        theoretical one (NCU_OCCUPANCY_SLACK_PCT for the counters' rounding)."""
        if not isinstance(self.ncu, NcuStep):
            return self
        arch = self.device.arch
        for launch in self.ncu.launches:
            calculated = 100 * launch.calculated(arch).occupancy
            if abs(launch.theoretical_pct - calculated) > NCU_OCCUPANCY_SLACK_PCT:
                raise ValueError(f"ncu/{launch.label}: theoretical occupancy {launch.theoretical_pct:g} %, but "
                                 f"{launch.threads_per_block} threads, {launch.registers_per_thread} registers and "
                                 f"{launch.dynamic_shared_bytes} bytes of shared memory give {calculated:g} % on "
                                 f"compute capability {arch.label}")
            if launch.achieved_pct > launch.theoretical_pct + NCU_OCCUPANCY_SLACK_PCT:
                raise ValueError(f"ncu/{launch.label}: achieved occupancy {launch.achieved_pct:g} % is above the "
                                 f"theoretical {launch.theoretical_pct:g} %: no more warps can be resident than fit")
        return self

    def reference_rates(self) -> list[ReferenceRate]:
        """The record's reference measurements beside their peaks (labkit.records.MIN_REFERENCE_SHARE):
        the memory sweep's reference copy."""
        return [ReferenceRate("memory/reference copy", self.memory.copy_gbps, self.device.hbm_peak_gbps, "GB/s",
                              "theoretical HBM peak")]

    @model_validator(mode="after")
    def _physically_possible(self) -> Lab03Results:
        device = self.device
        top = device.max_sm_clock_mhz * CLOCK_SLACK
        for point in self.latency.points:
            if point.clock_mhz > top:
                raise ValueError(f"latency at {point.working_set_bytes} bytes: clock64 and globaltimer imply an SM "
                                 f"clock of {point.clock_mhz:.0f} MHz, above the maximum {device.max_sm_clock_mhz:g} MHz")
        rates = [("memory reference copy", self.memory.copy_gbps)]
        rates += [(f"memory point of {p.loads} loads at {p.launch.warps_per_sm} warps", p.gbps) for p in self.memory.points]
        for what, gbps in rates:
            if gbps > device.hbm_peak_gbps:
                raise ValueError(f"{what}: {gbps:.0f} GB/s is above the GPU's theoretical HBM peak "
                                 f"{device.hbm_peak_gbps:.0f} GB/s")
        peak = fma_peak_gflops(device.sm_count, device.fp32_lanes_per_sm, device.max_sm_clock_mhz)
        flops = [(f"arithmetic point of {p.chains} chains at {p.launch.warps_per_sm} warps", p.gflops)
                 for p in self.arithmetic.points + self.arithmetic.immediate_points]
        flops += [(f"register variant {v.max_registers}", v.flops / v.timing.median_seconds / 1e9)
                  for v in self.registers.variants]
        for what, gflops in flops:
            if gflops > peak:
                raise ValueError(f"{what}: {gflops:.0f} GFLOP/s is above the FP32 peak {peak:.0f} GFLOP/s")
        if self.arithmetic.fma_latency_cycles < 1:
            raise ValueError(f"arithmetic: {self.arithmetic.fma_latency_cycles:.2f} cycles per dependent FMA: "
                             "a dependent instruction cannot issue more than once per cycle")
        return self
