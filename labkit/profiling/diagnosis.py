"""Chapter 4's reading of an Nsight Compute report, as pure functions.

Speed of Light places the kernel in a quadrant (compute vs memory throughput); since both of its
figures are maxima, the breakdown (labkit.profiling.units) says which unit is busiest. Launch
Statistics says whether the grid can fill the GPU at all. The decision tree's finding comes from
these, in that order (:func:`finding`). Memory Workload Analysis says what crossed each level
(bytes, sectors per request, hit rates, local memory); Warp State Statistics says why warps
waited, each stall reason with its remedy; the rules are read by decreasing Est. Speedup, those
that do not concern the kernel last.

Units are in the names: ``_pct`` (0-100), ``_bytes``, ``_seconds``, ``cycles_per_issue``.
"""

from __future__ import annotations

import math
import re
from enum import Enum
from typing import Annotated, ClassVar

from pydantic import Field, field_validator

from labkit.models.access import SECTOR_BYTES
from labkit.models.roofline import Traffic
from labkit.profiling.ncu import KernelProfile, Metric, NcuError, Rule
from labkit.profiling.units import MEMORY_SIDE_UNITS, UNIT_METRICS, UnitLoad, unit_loads
from labkit.records import NonNegative, Percent, Record, Seconds

#: ncu's own threshold: its SOLBottleneck rule calls a throughput below 60 % of peak low.
HIGH_PCT = 60.0

#: How many stall reasons a diagnosis reports.
TOP_STALLS = 3


_COMPUTE = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
_MEMORY = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
#: DRAM throughput: dram__throughput in older ncu; gpu__dram_throughput in the reports of ncu 2025.3.1 (H200),
#: which still lists dram__throughput in --query-metrics.
_DRAM = ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
         "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
#: The report's "L1/TEX Cache Throughput" is the active-cycles figure, its L2 line the elapsed one.
_L1 = "l1tex__throughput.avg.pct_of_peak_sustained_active"
_L2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
#: A launch's GPU time, in the raw page (also what `labkit diagnose --top` ranks kernels by).
DURATION_METRIC = "gpu__time_duration.sum"
_STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio")
_CYCLES_PER_ISSUE = "smsp__average_warp_latency_per_inst_issued.ratio"


class Quadrant(str, Enum):
    MEMORY_BOUND = "memory-bound"
    COMPUTE_BOUND = "compute-bound"          # Compute (SM) high, and an arithmetic pipe sets it
    INSTRUCTION_BOUND = "instruction-bound"  # Compute (SM) high from issue, integer or load/store instructions
    LATENCY_BOUND = "latency-bound"
    BALANCED = "balanced"


#: A percentage of a peak over a unit's *active* cycles, as ncu prints it: above 100 when the unit
#: was active for a few cycles only (on the H200, L1/TEX at 194 % and 269 % in short CUB kernels of
#: the validation set, tests/fixtures/diagnose_validation).
ActivePercent = NonNegative


class SpeedOfLight(Record):
    """Speed of Light: each unit's throughput in % of its sustained peak, and the duration."""

    compute_pct: Percent
    memory_pct: Percent
    dram_pct: Percent
    l1_pct: ActivePercent
    l2_pct: Percent
    duration_seconds: Seconds

    @classmethod
    def from_profile(cls, profile: KernelProfile) -> SpeedOfLight:
        """From raw metrics; Memory Throughput is the busiest memory level, as in the report."""
        return cls(
            compute_pct=profile.value(_COMPUTE),
            memory_pct=profile.value(_MEMORY),
            dram_pct=profile.value(_first_present(profile, _DRAM)),
            l1_pct=profile.value(_L1),
            l2_pct=profile.value(_L2),
            duration_seconds=profile.seconds(DURATION_METRIC),
        )


def quadrant(sol: SpeedOfLight, units: list[UnitLoad] | None = None) -> Quadrant:
    """The chapter's table, a throughput being high at HIGH_PCT % of peak or more.

    compute low, memory high: memory-bound; compute high, memory low: compute-bound; both low:
    latency-bound; both high: balanced. "Compute (SM)" is the maximum of the SM's units, so with
    the breakdown (``units``) a high compute side is compute-bound only when an arithmetic pipe
    sets it: when instruction issue, an integer pipe or the load/store pipe does, the kernel is
    instruction-bound (a transpose's index arithmetic and memory instructions are not compute).
    """
    compute_high = sol.compute_pct >= HIGH_PCT
    memory_high = sol.memory_pct >= HIGH_PCT
    if memory_high and not compute_high:
        return Quadrant.MEMORY_BOUND
    if compute_high and not memory_high:
        setter = compute_setter(units or [])
        if setter is not None and setter.kind != "arithmetic":
            return Quadrant.INSTRUCTION_BOUND
        return Quadrant.COMPUTE_BOUND
    if compute_high and memory_high:
        return Quadrant.BALANCED
    return Quadrant.LATENCY_BOUND


def compute_setter(units: list[UnitLoad]) -> UnitLoad | None:
    """The unit that sets "Compute (SM)": the busiest of the SM's issue and pipes (L1's data stage,
    ``lsu_wavefronts``, is a memory-side unit that "Compute (SM)" does not include)."""
    return next((unit for unit in units if unit.unit not in MEMORY_SIDE_UNITS), None)


class MemoryWorkload(Record):
    """What crossed the memory hierarchy.

    ``sectors_per_request`` is the coalescing figure: a warp loading 4 bytes per thread needs
    4 sectors of 32 bytes per request when coalesced, 32 when every thread hits its own sector.
    Local-memory traffic (``local_memory_bytes``) is the chapter's spilling signal: registers
    spilled, or a per-thread array the compiler placed in local memory.
    """

    dram_read_bytes: NonNegative
    dram_write_bytes: NonNegative
    global_load_sectors: NonNegative
    global_load_requests: NonNegative
    global_store_sectors: NonNegative
    global_store_requests: NonNegative
    l1_hit_pct: Percent
    l2_hit_pct: Percent
    local_load_bytes: NonNegative
    local_store_bytes: NonNegative
    shared_bank_conflicts: NonNegative
    # Read where the report has them (ncu 2023.2 and later), None otherwise:
    global_excessive_sectors: NonNegative | None = None   # sectors beyond what the bytes used need
    global_load_bytes_per_sector: Annotated[float, Field(ge=0, le=32)] | None = None   # of the 32
    global_store_bytes_per_sector: Annotated[float, Field(ge=0, le=32)] | None = None
    shared_wavefronts: NonNegative | None = None          # shared-memory wavefronts, as served
    shared_wavefronts_ideal: NonNegative | None = None    # the same accesses without bank conflicts
    l1_cycles_active: NonNegative | None = None           # cycles L1TEX had work, summed over its units
    l1_cycles_elapsed: NonNegative | None = None
    l2_cycles_active: NonNegative | None = None           # the same for the L2 slices
    l2_cycles_elapsed: NonNegative | None = None

    #: The raw metrics it is read from (those of OPTIONAL_METRICS only where present).
    METRICS: ClassVar[frozenset[str]] = frozenset({
        "dram__bytes_read.sum", "dram__bytes_write.sum",
        *(f"l1tex__t_{what}_pipe_lsu_mem_global_op_{op}.sum" for what in ("sectors", "requests") for op in ("ld", "st")),
        "l1tex__t_sector_hit_rate.pct", "lts__t_sector_hit_rate.pct",
        "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"})
    OPTIONAL_METRICS: ClassVar[dict[str, str]] = {
        "global_excessive_sectors": "derived__memory_l2_theoretical_sectors_global_excessive",
        "global_load_bytes_per_sector": "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.ratio",
        "global_store_bytes_per_sector": "smsp__sass_average_data_bytes_per_sector_mem_global_op_st.ratio",
        "shared_wavefronts": "memory_l1_wavefronts_shared",
        "shared_wavefronts_ideal": "memory_l1_wavefronts_shared_ideal",
        "l1_cycles_active": "l1tex__cycles_active.sum",
        "l1_cycles_elapsed": "l1tex__cycles_elapsed.sum",
        "l2_cycles_active": "lts__cycles_active.sum",
        "l2_cycles_elapsed": "lts__cycles_elapsed.sum",
    }

    @classmethod
    def from_profile(cls, profile: KernelProfile) -> MemoryWorkload:
        """From raw metrics: dram__bytes_{read,write}.sum,
        l1tex__t_{sectors,requests}_pipe_lsu_mem_global_op_{ld,st}.sum, l1tex__t_sector_hit_rate.pct,
        lts__t_sector_hit_rate.pct, local ld/st sectors x 32 bytes,
        l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum."""
        local = "l1tex__t_sectors_pipe_lsu_mem_local_op_{}.sum"
        return cls(
            dram_read_bytes=profile.bytes_("dram__bytes_read.sum"),
            dram_write_bytes=profile.bytes_("dram__bytes_write.sum"),
            global_load_sectors=profile.value("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"),
            global_load_requests=profile.value("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"),
            global_store_sectors=profile.value("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"),
            global_store_requests=profile.value("l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"),
            l1_hit_pct=profile.value("l1tex__t_sector_hit_rate.pct"),
            l2_hit_pct=profile.value("lts__t_sector_hit_rate.pct"),
            local_load_bytes=SECTOR_BYTES * profile.value(local.format("ld")),
            local_store_bytes=SECTOR_BYTES * profile.value(local.format("st")),
            shared_bank_conflicts=profile.value(
                "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"),
            **{field: optional_value(profile, metric) for field, metric in cls.OPTIONAL_METRICS.items()},
        )

    @property
    def dram_bytes(self) -> float:
        """dram__bytes.sum = read + write bytes."""
        return self.dram_read_bytes + self.dram_write_bytes

    @property
    def sectors_per_request(self) -> float | None:
        """Global-load sectors / requests; None when the kernel loads nothing from global memory."""
        if self.global_load_requests == 0:
            return None
        return self.global_load_sectors / self.global_load_requests

    @property
    def store_sectors_per_request(self) -> float | None:
        """Global-store sectors / requests (the same coalescing figure for writes); None without stores."""
        if self.global_store_requests == 0:
            return None
        return self.global_store_sectors / self.global_store_requests

    @property
    def local_memory_bytes(self) -> float:
        return self.local_load_bytes + self.local_store_bytes

    @property
    def spills(self) -> bool:
        """Non-zero local-memory traffic."""
        return self.local_memory_bytes > 0

    @property
    def global_sectors(self) -> float:
        return self.global_load_sectors + self.global_store_sectors

    @property
    def global_excess_share(self) -> float | None:
        """Share of the global sectors in excess of the ideal: excessive sectors / (load + store
        sectors), ncu's UncoalescedGlobalAccess figure, where an excessive sector is one beyond the
        count the requested bytes need (it may still carry requested bytes: in lab 05's kernel_a
        every sector carries 4 of its 32); else from the bytes used per sector, sum of sectors x
        (1 - used / 32) over loads and stores, the same share in sector-sized units. None without
        either."""
        if self.global_sectors == 0:
            return None
        if self.global_excessive_sectors is not None:
            return min(1.0, self.global_excessive_sectors / self.global_sectors)
        used = ((self.global_load_sectors, self.global_load_bytes_per_sector),
                (self.global_store_sectors, self.global_store_bytes_per_sector))
        if any(bps is None for sectors, bps in used if sectors > 0):
            return None
        wasted = sum(sectors * (1 - bps / SECTOR_BYTES) for sectors, bps in used if sectors > 0)
        return wasted / self.global_sectors

    @property
    def shared_excess_share(self) -> float | None:
        """Share of shared-memory wavefronts that bank conflicts add: (wavefronts - ideal) /
        wavefronts, as ncu's UncoalescedSharedAccess rule computes it. None without shared
        accesses or without those metrics. (l1tex__data_bank_conflicts_pipe_lsu_mem_shared is not
        used: on the H200 it counts 159,741 "conflicts" in a padded transpose whose wavefronts
        equal the ideal.)"""
        if not self.shared_wavefronts or self.shared_wavefronts_ideal is None:
            return None
        return max(0.0, self.shared_wavefronts - self.shared_wavefronts_ideal) / self.shared_wavefronts

    @property
    def l1_active_share(self) -> float | None:
        """Share of the elapsed cycles L1TEX had work: l1tex__cycles_active.sum /
        l1tex__cycles_elapsed.sum (the weight of ncu's UncoalescedSharedAccess estimate). None
        without those metrics."""
        return _share(self.l1_cycles_active, self.l1_cycles_elapsed)

    @property
    def l2_active_share(self) -> float | None:
        """Share of the elapsed cycles the L2 slices had work: lts__cycles_active.sum /
        lts__cycles_elapsed.sum (the weight of ncu's UncoalescedGlobalAccess estimate). None
        without those metrics."""
        return _share(self.l2_cycles_active, self.l2_cycles_elapsed)

    @property
    def local_share(self) -> float:
        """Local-memory sectors / (local + global sectors) at L1: how much of the traffic a
        per-thread array or spilled registers make."""
        local = self.local_memory_bytes / SECTOR_BYTES
        total = local + self.global_sectors
        return local / total if total else 0.0


def _share(part: float | None, whole: float | None) -> float | None:
    """part / whole, at most 1; None when either is missing or the whole is 0."""
    if part is None or not whole:
        return None
    return min(1.0, part / whole)


class LaunchStats(Record):
    """Launch Statistics: the grid against the GPU."""

    grid_blocks: Annotated[int, Field(ge=1)]
    threads_per_block: Annotated[int, Field(ge=1)]
    sm_count: Annotated[int, Field(ge=1)]
    waves_per_sm: NonNegative | None = None     # launch__waves_per_multiprocessor

    @property
    def blocks_per_sm(self) -> float:
        return self.grid_blocks / self.sm_count


#: Occupancy's block limits, as ncu names them (launch__occupancy_limit_<name>).
BLOCK_LIMITS = ("registers", "shared_mem", "warps", "blocks")


class Occupancy(Record):
    """Occupancy: warps the resources allow per SM (theoretical) and warps seen (achieved), in % of
    the SM's maximum, with the block limit of each resource; the smallest limit is the limiter."""

    theoretical_pct: Percent          # sm__maximum_warps_per_active_cycle_pct
    achieved_pct: Percent             # sm__warps_active.avg.pct_of_peak_sustained_active
    registers_per_thread: Annotated[int, Field(ge=0)]
    block_limits: dict[str, NonNegative]

    METRICS: ClassVar[frozenset[str]] = frozenset({
        "sm__maximum_warps_per_active_cycle_pct", "sm__warps_active.avg.pct_of_peak_sustained_active",
        "launch__registers_per_thread", *(f"launch__occupancy_limit_{name}" for name in BLOCK_LIMITS)})

    @classmethod
    def from_profile(cls, profile: KernelProfile) -> Occupancy | None:
        """None when the report has no Occupancy section."""
        if any(optional_value(profile, name) is None for name in cls.METRICS):
            return None
        return cls(theoretical_pct=profile.value("sm__maximum_warps_per_active_cycle_pct"),
                   achieved_pct=profile.value("sm__warps_active.avg.pct_of_peak_sustained_active"),
                   registers_per_thread=int(profile.value("launch__registers_per_thread")),
                   block_limits={name: profile.value(f"launch__occupancy_limit_{name}") for name in BLOCK_LIMITS})

    @property
    def limiters(self) -> list[str]:
        """The resources whose block limit is the smallest (ties all named), in BLOCK_LIMITS order."""
        smallest = min(self.block_limits.values())
        return [name for name in BLOCK_LIMITS if self.block_limits.get(name) == smallest]


class InstructionMix(Record):
    """What the warps executed: threads active per warp instruction, and the FP64 pipe."""

    threads_per_instruction: Annotated[float, Field(ge=0, le=32)]   # smsp__thread_inst_executed_per_inst_executed
    predicated_threads_per_instruction: Annotated[float, Field(ge=0, le=32)]   # ..._pred_on_...
    fp64_pipe_pct: Percent | None = None       # sm__pipe_fp64_cycles_active, % of peak over the elapsed time
    fp64_to_fp32_rate: Annotated[float, Field(gt=0)] | None = None   # DFMA / FFMA per SM per cycle at peak

    METRICS: ClassVar[frozenset[str]] = frozenset({
        "smsp__thread_inst_executed_per_inst_executed.ratio",
        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"})
    FP64_PIPE: ClassVar[tuple[str, ...]] = ("sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_elapsed",
                 "sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed")
    FP_PEAKS: ClassVar[tuple[str, ...]] = ("sm__sass_thread_inst_executed_op_dfma_pred_on.avg.peak_sustained",
                "sm__sass_thread_inst_executed_op_ffma_pred_on.avg.peak_sustained")

    @classmethod
    def from_profile(cls, profile: KernelProfile) -> InstructionMix | None:
        """None when the report has no thread-instruction counts (Warp State / Instruction Statistics)."""
        if any(optional_value(profile, name) is None for name in cls.METRICS):
            return None
        dfma, ffma = (optional_value(profile, name) for name in cls.FP_PEAKS)
        return cls(
            threads_per_instruction=profile.value("smsp__thread_inst_executed_per_inst_executed.ratio"),
            predicated_threads_per_instruction=profile.value(
                "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio"),
            fp64_pipe_pct=next((v for v in map(lambda n: optional_value(profile, n), cls.FP64_PIPE) if v is not None),
                               None),
            fp64_to_fp32_rate=dfma / ffma if dfma and ffma else None,
        )

    @property
    def active_threads(self) -> float:
        """Threads doing work per warp instruction: the smaller of the two counts (a predicated-off
        thread issues but does nothing), as ncu's ThreadDivergence rule takes it."""
        return min(self.threads_per_instruction, self.predicated_threads_per_instruction)


class SchedulerStats(Record):
    """Scheduler Statistics: per scheduler, the share of cycles it issued an instruction, the share it
    had no eligible warp to issue (ncu's "No Eligible"), and the warps eligible per cycle. These,
    not the stall reasons' ranking, say whether more warps could fill the issue slots: a cycle
    with no eligible warp is the only one a further warp can use (Nsight Compute's Kernel Profiling
    Guide, Scheduler Statistics; its IssueSlotUtilization rule)."""

    issue_active_pct: Percent          # smsp__issue_active.avg.pct_of_peak_sustained_active
    no_eligible_pct: Percent           # smsp__issue_inst0.avg.pct_of_peak_sustained_active
    eligible_warps: NonNegative        # smsp__warps_eligible.avg.per_cycle_active

    METRICS: ClassVar[dict[str, str]] = {
        "issue_active_pct": "smsp__issue_active.avg.pct_of_peak_sustained_active",
        "no_eligible_pct": "smsp__issue_inst0.avg.pct_of_peak_sustained_active",
        "eligible_warps": "smsp__warps_eligible.avg.per_cycle_active"}

    @classmethod
    def from_profile(cls, profile: KernelProfile) -> SchedulerStats | None:
        """None when the report lacks the section (records stored before the course kept it)."""
        values = {field: optional_value(profile, metric) for field, metric in cls.METRICS.items()}
        return None if None in values.values() else cls(**values)


class L2Atomics(Record):
    """Global atomics as the L2 slices served them: each slice's atomic unit busy, in % of its peak
    over the elapsed time (``lts__d_atomic_input_cycles_active``), in the busiest slice and on
    average. Atomics on a few addresses land in one slice and serialise there: the busiest slice
    far above the average is that contention (the validation set's skewed histogram: 81 % in one
    slice, 1 % on average; one atomic per element on one address: 33 % and 0.4 %)."""

    hottest_slice_pct: NonNegative
    average_slice_pct: NonNegative

    METRICS: ClassVar[dict[str, str]] = {
        "hottest_slice_pct": "lts__d_atomic_input_cycles_active.max.pct_of_peak_sustained_elapsed",
        "average_slice_pct": "lts__d_atomic_input_cycles_active.avg.pct_of_peak_sustained_elapsed"}

    @classmethod
    def from_profile(cls, profile: KernelProfile) -> L2Atomics | None:
        """None when the report lacks the metrics (ncu's full set has them)."""
        values = {field: optional_value(profile, metric) for field, metric in cls.METRICS.items()}
        return None if None in values.values() else cls(**values)


def optional_value(profile: KernelProfile, metric: str) -> float | None:
    """A raw metric's number, or None when the report lacks it or holds no number there."""
    found = profile.metrics.get(metric)
    return found.value if found is not None and not isinstance(found.value, str) else None


def efficiency(useful_bytes: float, dram_bytes: float) -> Traffic:
    """eta = useful bytes / dram__bytes.sum; ``.excess_factor`` is dram__bytes / useful = 1 / eta.

    Caveat: writes still dirty in L2 when the kernel ends are not in dram__bytes_write, so a
    short kernel whose output fits in L2 can show eta above 1.
    """
    if dram_bytes <= 0:
        raise ValueError(f"dram_bytes must be positive, got {dram_bytes}")
    return Traffic(moved_bytes=dram_bytes, useful_bytes=useful_bytes)


#: The chapter's stall tree as data: stall reason -> remedy id (the words, in each language, are
#: labkit/report/labels/diagnosis.py's ``value.<id>``). Chapter 4's tables define every reason a
#: recorded profile holds; those without a remedy here have no lever of their own.
REMEDIES = {
    # waiting on an L1TEX result (global, local, texture memory)
    "long_scoreboard": "hide-memory-latency",
    # waiting on an MIO result: shared memory, special functions (MUFU), shuffles
    "short_scoreboard": "mio-results",
    # the MIO instruction queue is full: shared memory, special functions, other MIO instructions
    "mio_throttle": "mio-queue",
    # the local/global (LG) memory instruction queue is full
    "lg_throttle": "lg-queue",
    "barrier": "fewer-syncs-balance-work",
    # one execution pipe is saturated: which one, and by whose instructions, decides
    "math_pipe_throttle": "busiest-pipe",
    # eligible but another warp was picked: enough warps, possibly more than needed
    "not_selected": "enough-warps",
    "wait": "more-ilp",
    "drain": "coalesce-stores",
}

#: ncu's labels for the stall reasons; a reason not listed gets its id in title case.
STALL_NAMES = {
    "long_scoreboard": "Long Scoreboard",
    "short_scoreboard": "Short Scoreboard",
    "mio_throttle": "MIO Throttle",
    "lg_throttle": "LG Throttle",
    "tex_throttle": "Tex Throttle",
    "math_pipe_throttle": "Math Pipe Throttle",
    "not_selected": "Not Selected",
    "imc_miss": "IMC Miss",
    "gmma": "GMMA",
    "membar": "Membar",
    "no_instruction": "No Instruction",
}


class Stall(Record):
    """A stall reason: warp cycles per issued instruction spent on it, and its share of them all."""

    reason: str
    name: str
    cycles_per_issue: NonNegative
    pct: NonNegative       # of the total; ncu's per-reason averages can add up to more on a short kernel (129 % seen)
    remedy: str | None     # an id of REMEDIES


def stall_reasons(profile: KernelProfile) -> list[Stall]:
    """The stall reasons of Warp State Statistics, most costly first.

    Read from ``smsp__average_warps_issue_stalled_<reason>_per_issue_active.ratio``: warp cycles
    per issued instruction, the numbers the Warp State Statistics section charts and its CPIStall
    rule quotes. Their share is taken of ``smsp__average_warp_latency_per_inst_issued.ratio``,
    as the rule does ("51.1 % of the total average of 265.0 cycles"). The other family in the
    raw page, ``smsp__pcsamp_warps_issue_stalled_*``, counts PC samples: it is for locating the
    stall in the source, not for weighing reasons. "Selected" (the warp issued) is not a stall.
    """
    total = profile.value(_CYCLES_PER_ISSUE)
    stalls = []
    for metric in profile.metrics:
        match = _STALL.fullmatch(metric)
        if match is None or match.group(1) == "selected":
            continue
        reason = match.group(1)
        cycles = profile.value(metric)
        stalls.append(Stall(
            reason=reason,
            name=STALL_NAMES.get(reason, reason.replace("_", " ").title()),
            cycles_per_issue=cycles,
            pct=100.0 * cycles / total if total > 0 else 0.0,
            remedy=REMEDIES.get(reason),
        ))
    if not stalls:
        raise NcuError(
            f"kernel {profile.name}: no warp-state metrics in the report (profile with --set full)")
    return sorted(stalls, key=lambda stall: stall.cycles_per_issue, reverse=True)


#: Rules whose Est. Speedup does not concern the kernel's code: L2 compression applies to memory
#: allocated as compressible (cuMemCreate with a compression flag), which ordinary allocations
#: (cudaMalloc, Numba, CuPy) are not. They are listed, but never lead.
ADVISORY_RULES = frozenset({"MemoryL2Compression"})


def rules_by_speedup(profile: KernelProfile) -> list[Rule]:
    """The rules with an Est. Speedup, largest first, then the others in ncu's order, the advisory
    rules (ADVISORY_RULES) last.

    A "global" speedup estimates the whole kernel's gain, a "local" one the gain of one unit's
    work; so the global estimates rank first, each group by decreasing speedup.
    """
    own = [rule for rule in profile.rules if rule.name not in ADVISORY_RULES]
    advisory = [rule for rule in profile.rules if rule.name in ADVISORY_RULES]
    with_speedup = [rule for rule in own if rule.speedup_pct is not None]
    others = [rule for rule in own if rule.speedup_pct is None]
    return sorted(with_speedup, key=lambda rule: (rule.speedup_type != "global", -rule.speedup_pct)) + others + advisory


class Finding(str, Enum):
    """The decision tree's verdict, in the order it is tried."""

    GRID_TOO_SMALL = "grid-too-small"          # fewer blocks than SMs: part of the GPU has nothing to do
    LAUNCH_BOUND = "launch-bound"              # a few microseconds: launching costs as much as running
    DRAM_BOUND = "dram-bound"                  # Memory Throughput high, and it is DRAM's: the memory roof
    ONCHIP_BOUND = "onchip-bound"              # Memory Throughput high from L1/L2, or the load/store path busiest
    ISSUE_BOUND = "issue-bound"                # instruction issue or integer/control pipes busiest
    ARITHMETIC_BOUND = "arithmetic-bound"      # an arithmetic pipe busiest
    LATENCY_BOUND = "latency-bound"            # neither side high: warps wait (see the stall reasons)


#: Below this duration a kernel costs about what its launch costs (a few microseconds on Hopper).
LAUNCH_BOUND_SECONDS = 10e-6
#: Memory Throughput is DRAM's when DRAM Throughput is within this many points of it.
DRAM_SETS_MEMORY_PCT = 1.0
_BY_KIND = {"onchip": Finding.ONCHIP_BOUND, "issue": Finding.ISSUE_BOUND, "arithmetic": Finding.ARITHMETIC_BOUND}
_SM_COUNT = "device__attribute_multiprocessor_count"
_WAVES = "launch__waves_per_multiprocessor"


def finding(sol: SpeedOfLight, units: list[UnitLoad], grid_blocks: int, sm_count: int) -> Finding:
    """The decision tree, in order: a grid smaller than the SM count; a duration under
    LAUNCH_BOUND_SECONDS; neither Speed of Light figure at HIGH_PCT % (latency-bound); else the
    higher side: memory is DRAM-bound when DRAM sets Memory Throughput, on-chip otherwise; compute
    is what its busiest unit (Compute Workload Analysis) is."""
    if grid_blocks < sm_count:
        return Finding.GRID_TOO_SMALL
    if sol.duration_seconds < LAUNCH_BOUND_SECONDS:
        return Finding.LAUNCH_BOUND
    if max(sol.compute_pct, sol.memory_pct) < HIGH_PCT:
        return Finding.LATENCY_BOUND
    if sol.memory_pct >= sol.compute_pct:
        return Finding.DRAM_BOUND if sol.dram_pct >= sol.memory_pct - DRAM_SETS_MEMORY_PCT else Finding.ONCHIP_BOUND
    return _BY_KIND[units[0].kind] if units else Finding.ISSUE_BOUND


class Diagnosis(Record):
    """Chapter 4's reading of a kernel: where it sits, what binds it, what it moved, why it waited,
    what to fix. Stalls are reported for every finding: they also say why a bound kernel is not
    at its roof."""

    kernel: str
    speed_of_light: SpeedOfLight
    quadrant: Quadrant
    units: list[UnitLoad]
    launch: LaunchStats
    finding: Finding
    memory: MemoryWorkload
    occupancy: Occupancy | None
    instructions: InstructionMix | None
    top_stalls: list[Stall]
    rules: list[Rule]
    atomics: L2Atomics | None = None
    scheduler: SchedulerStats | None = None

    @property
    def grid_blocks(self) -> int:
        return self.launch.grid_blocks

    @property
    def sm_count(self) -> int:
        return self.launch.sm_count

    @property
    def busiest(self) -> UnitLoad | None:
        """The unit to look at: on the memory side (Memory Throughput the higher of Speed of
        Light's figures) DRAM, L2 or L1 as Speed of Light reads them; otherwise the SM's busiest
        unit (Compute Workload Analysis)."""
        sol = self.speed_of_light
        if sol.memory_pct >= sol.compute_pct:
            side = {"dram": sol.dram_pct, "l2": sol.l2_pct, "l1": sol.l1_pct}
            unit = "dram" if sol.dram_pct >= sol.memory_pct - DRAM_SETS_MEMORY_PCT else max(
                ("l2", "l1"), key=side.get)
            return UnitLoad(unit=unit, kind="onchip" if unit != "dram" else "dram", pct=side[unit])
        return self.units[0] if self.units else None

    def busiest_loads(self, count: int, memory: bool = True) -> list[tuple[str, float]]:
        """The ``count`` busiest of DRAM, L2 and L1 as Speed of Light reads them (not with
        ``memory=False``) and of the SM's units (the breakdown), as (unit id, %), busiest first.
        L1's data-stage wavefronts (``lsu_wavefronts``) count only where they read above Speed of
        Light's L1, which otherwise stands for them."""
        sol = self.speed_of_light
        loads = [("dram", sol.dram_pct), ("l2", sol.l2_pct), ("l1", sol.l1_pct)] if memory else []
        loads += [(u.unit, u.pct) for u in self.units if u.unit != "lsu_wavefronts" or u.pct > sol.l1_pct]
        loads.sort(key=lambda pair: pair[1], reverse=True)
        return loads[:count]

    @property
    def remedy(self) -> str:
        """The lever to read first: the finding's, or for a latency-bound kernel its first stall's."""
        if self.finding is Finding.LATENCY_BOUND and self.top_stalls and self.top_stalls[0].remedy:
            return self.top_stalls[0].remedy
        return self.finding.value

    @property
    def leading_rule(self) -> Rule | None:
        """The first rule with an Est. Speedup that concerns the kernel."""
        return next((r for r in self.rules if r.speedup_pct is not None and r.name not in ADVISORY_RULES), None)


def diagnose(profile: KernelProfile, top_n: int = TOP_STALLS) -> Diagnosis:
    """Speed of Light and its quadrant, the busiest units, the finding, memory workload, ``top_n``
    stalls, rules by Est. Speedup."""
    sol = SpeedOfLight.from_profile(profile)
    units = unit_loads(profile)
    launch = LaunchStats(grid_blocks=math.prod(profile.grid_size), threads_per_block=math.prod(profile.block_size),
                         sm_count=int(profile.value(_SM_COUNT)), waves_per_sm=optional_value(profile, _WAVES))
    return Diagnosis(
        kernel=profile.name,
        speed_of_light=sol,
        quadrant=quadrant(sol, units),
        units=units,
        launch=launch,
        finding=finding(sol, units, launch.grid_blocks, launch.sm_count),
        memory=MemoryWorkload.from_profile(profile),
        occupancy=Occupancy.from_profile(profile),
        instructions=InstructionMix.from_profile(profile),
        top_stalls=stall_reasons(profile)[:top_n],
        rules=rules_by_speedup(profile),
        atomics=L2Atomics.from_profile(profile),
        scheduler=SchedulerStats.from_profile(profile),
    )


#: The raw metrics :func:`diagnose` reads by name (besides the stall reasons, read by pattern).
DIAGNOSIS_METRICS = frozenset({
    _COMPUTE, _MEMORY, *_DRAM, _L1, _L2, DURATION_METRIC, _CYCLES_PER_ISSUE, _SM_COUNT, _WAVES, *UNIT_METRICS,
    *MemoryWorkload.METRICS, *MemoryWorkload.OPTIONAL_METRICS.values(), *Occupancy.METRICS,
    *InstructionMix.METRICS, *InstructionMix.FP64_PIPE, *InstructionMix.FP_PEAKS, *L2Atomics.METRICS.values(),
    *SchedulerStats.METRICS.values()})


def needed_metric(name: str) -> bool:
    """Whether :func:`diagnose` reads the raw metric ``name``: a report read with only these (and its
    rules) gives the same diagnosis, in a few % of the memory (labkit diagnose on huge exports)."""
    return name in DIAGNOSIS_METRICS or _STALL.fullmatch(name) is not None


def diagnosis_metrics(profile: KernelProfile) -> set[str]:
    """The raw metrics :func:`diagnose` reads in ``profile``: a profile kept with only these (and its
    rules) gives the same diagnosis, so a results file stores the measurement, not the verdict."""
    return {name for name in profile.metrics if needed_metric(name)}


def _first_present(profile: KernelProfile, names: tuple[str, ...]) -> str:
    for name in names:
        if name in profile.metrics:
            return name
    raise NcuError(f"kernel {profile.name}: none of {', '.join(names)} is in the ncu report")


class StoredProfile(Record):
    """What a results file keeps of a profiled launch: the raw metrics the diagnosis reads, and
    ncu's rules. The diagnosis is derived on reading, so a better diagnosis needs no new run."""

    name: str
    block_size: tuple[int, ...]
    grid_size: tuple[int, ...]
    metrics: dict[str, Metric]
    rules: list[Rule]

    #: A stored percentage may exceed 100 by rounding, no more (as achieved occupancy's bound).
    PERCENT_MAX: ClassVar[float] = 101.0

    @field_validator("metrics")
    @classmethod
    def _held_to_their_units(cls, metrics: dict[str, Metric]) -> dict[str, Metric]:
        """Every value a finite number (ncu's text such as "n/a" is not stored), none negative (counts,
        bytes, times, rates and percentages all start at 0), a percentage at most PERCENT_MAX."""
        for name, metric in metrics.items():
            value = metric.value
            if isinstance(value, str) or not math.isfinite(value):
                raise ValueError(f"{name}: {value!r} is not a number")
            if value < 0:
                raise ValueError(f"{name}: {value:g} {metric.unit} is negative, which no ncu metric is")
            if metric.unit == "%" and value > cls.PERCENT_MAX:
                raise ValueError(f"{name}: {value:g} % is above 100 %")
        return metrics

    @classmethod
    def of(cls, profile: KernelProfile) -> StoredProfile:
        keep = diagnosis_metrics(profile)
        return cls(name=profile.name, block_size=profile.block_size, grid_size=profile.grid_size,
                   metrics={name: metric for name, metric in profile.metrics.items() if name in keep},
                   rules=profile.rules)

    def profile(self) -> KernelProfile:
        return KernelProfile(id=0, name=self.name, full_name=self.name, block_size=self.block_size,
                             grid_size=self.grid_size, metrics=dict(self.metrics), rules=list(self.rules))

    def diagnosis(self) -> Diagnosis:
        return diagnose(self.profile())
