"""Chapter 4's reading of an Nsight Compute report, as pure functions.

Speed of Light places the kernel in a quadrant (compute vs memory throughput); Memory Workload
Analysis says what crossed each level (bytes, sectors per request, hit rates, local memory);
Warp State Statistics says why warps waited, and the chapter's decision tree maps each stall
reason to a remedy; the rules are read by decreasing Est. Speedup.

Units are in the names: ``_pct`` (0-100), ``_bytes``, ``_seconds``, ``cycles_per_issue``.
"""

from __future__ import annotations

import re
from enum import Enum

from labkit.profiling.ncu import KernelProfile, NcuError, Rule
from labkit.records import NonNegative, Percent, Record, Seconds
from labkit.roofline import Traffic

#: ncu's own threshold: its SOLBottleneck rule calls a throughput below 60 % of peak low.
HIGH_PCT = 60.0

#: How many stall reasons a diagnosis reports.
TOP_STALLS = 3

#: ncu counts traffic in 32-byte sectors.
SECTOR_BYTES = 32

_COMPUTE = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
_MEMORY = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
#: DRAM throughput: dram__throughput in older ncu, gpu__dram_throughput in ncu 2025.3 (H200).
_DRAM = ("dram__throughput.avg.pct_of_peak_sustained_elapsed",
         "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed")
#: The report's "L1/TEX Cache Throughput" is the active-cycles figure, its L2 line the elapsed one.
_L1 = "l1tex__throughput.avg.pct_of_peak_sustained_active"
_L2 = "lts__throughput.avg.pct_of_peak_sustained_elapsed"
_DURATION = "gpu__time_duration.sum"
_STALL = re.compile(r"smsp__average_warps_issue_stalled_(\w+)_per_issue_active\.ratio")
_CYCLES_PER_ISSUE = "smsp__average_warp_latency_per_inst_issued.ratio"


class Quadrant(str, Enum):
    MEMORY_BOUND = "memory-bound"
    COMPUTE_BOUND = "compute-bound"
    LATENCY_BOUND = "latency-bound"
    BALANCED = "balanced"


#: The chapter's lever for each quadrant (the last column of its Speed of Light table).
LEVERS = {
    Quadrant.MEMORY_BOUND: "reduce the traffic, fuse kernels",
    Quadrant.COMPUTE_BOUND: "lower precision, tensor cores",
    Quadrant.LATENCY_BOUND: (
        "expose more parallelism: check the duration, the blocks per SM, then the stall reasons"),
    Quadrant.BALANCED: "the kernel is close to its optimum",
}


class SpeedOfLight(Record):
    """Speed of Light: each unit's throughput in % of its sustained peak, and the duration."""

    compute_pct: Percent
    memory_pct: Percent
    dram_pct: Percent
    l1_pct: Percent
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
            duration_seconds=profile.seconds(_DURATION),
        )


def quadrant(sol: SpeedOfLight) -> Quadrant:
    """The chapter's table, a throughput being high at HIGH_PCT % of peak or more.

    compute low, memory high: memory-bound; compute high, memory low: compute-bound;
    both low: latency-bound; both high: balanced.
    """
    compute_high = sol.compute_pct >= HIGH_PCT
    memory_high = sol.memory_pct >= HIGH_PCT
    if memory_high and not compute_high:
        return Quadrant.MEMORY_BOUND
    if compute_high and not memory_high:
        return Quadrant.COMPUTE_BOUND
    if compute_high and memory_high:
        return Quadrant.BALANCED
    return Quadrant.LATENCY_BOUND


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


def efficiency(useful_bytes: float, dram_bytes: float) -> Traffic:
    """eta = useful bytes / dram__bytes.sum; ``.excess_factor`` is dram__bytes / useful = 1 / eta.

    Caveat: writes still dirty in L2 when the kernel ends are not in dram__bytes_write, so a
    short kernel whose output fits in L2 can show eta above 1.
    """
    if dram_bytes <= 0:
        raise ValueError(f"dram_bytes must be positive, got {dram_bytes}")
    return Traffic(moved_bytes=dram_bytes, useful_bytes=useful_bytes)


class Remedy(Record):
    """The decision tree's answer to a stall reason: a stable id (for translations), a sentence."""

    id: str
    text: str


_QUEUES_FULL = Remedy(id="fewer-wider-accesses",
                      text="The memory instruction queues are full: issue fewer, wider accesses; "
                           "fix shared-memory bank conflicts.")

#: The chapter's stall tree as data: stall reason -> remedy. Drain is not in the chapter's
#: table; it is here because it is the strided copy's second stall on the H200.
REMEDIES = {
    "long_scoreboard": Remedy(id="hide-memory-latency",
                              text="Exposed global or local memory latency: raise occupancy, coalesce the "
                                   "accesses, make fewer of them."),
    "mio_throttle": _QUEUES_FULL,
    "lg_throttle": _QUEUES_FULL,
    "barrier": Remedy(id="fewer-syncs-balance-work",
                      text="Warps wait at __syncthreads(): synchronise less often or spread the work evenly "
                           "across the block."),
    "math_pipe_throttle": Remedy(id="compute-bound-good",
                                 text="An arithmetic pipe is saturated: the kernel is compute-bound, which is "
                                      "good news."),
    "not_selected": Remedy(id="enough-warps",
                           text="Warps were ready but another was picked: parallelism is plentiful, nothing to fix."),
    "short_scoreboard": Remedy(id="shared-mufu-latency",
                               text="Waiting on shared memory or special-function (MUFU) results: fix bank "
                                    "conflicts, call fewer transcendental functions."),
    "wait": Remedy(id="more-ilp",
                   text="Fixed-latency dependencies between consecutive instructions: give each thread "
                        "independent work (ILP)."),
    "drain": Remedy(id="coalesce-stores",
                    text="Warps wait after EXIT for their stores to drain: make the final stores coalesced, "
                         "or write less."),
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
    pct: Percent
    remedy: Remedy | None


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


def rules_by_speedup(profile: KernelProfile) -> list[Rule]:
    """The rules with an Est. Speedup, largest first, then the others in ncu's order.

    A "global" speedup estimates the whole kernel's gain, a "local" one the gain of one unit's
    work; so the global estimates rank first, each group by decreasing speedup.
    """
    with_speedup = [rule for rule in profile.rules if rule.speedup_pct is not None]
    others = [rule for rule in profile.rules if rule.speedup_pct is None]
    return sorted(with_speedup, key=lambda rule: (rule.speedup_type != "global", -rule.speedup_pct)) + others


class Diagnosis(Record):
    """Chapter 4's reading of a kernel: where it sits, what it moved, why it waited, what to fix.

    The tree sends a latency-bound kernel to the stall reasons; they are reported for every
    quadrant, since they also say why a memory-bound kernel is not at its roof.
    """

    kernel: str
    speed_of_light: SpeedOfLight
    quadrant: Quadrant
    memory: MemoryWorkload
    top_stalls: list[Stall]
    rules: list[Rule]

    @property
    def lever(self) -> str:
        return LEVERS[self.quadrant]


def diagnose(profile: KernelProfile, top_n: int = TOP_STALLS) -> Diagnosis:
    """Speed of Light and its quadrant, memory workload, ``top_n`` stalls, rules by Est. Speedup."""
    sol = SpeedOfLight.from_profile(profile)
    return Diagnosis(
        kernel=profile.name,
        speed_of_light=sol,
        quadrant=quadrant(sol),
        memory=MemoryWorkload.from_profile(profile),
        top_stalls=stall_reasons(profile)[:top_n],
        rules=rules_by_speedup(profile),
    )


def _first_present(profile: KernelProfile, names: tuple[str, ...]) -> str:
    for name in names:
        if name in profile.metrics:
            return name
    raise NcuError(f"kernel {profile.name}: none of {', '.join(names)} is in the ncu report")
