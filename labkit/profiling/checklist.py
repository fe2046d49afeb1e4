"""Chapter 5's optimisation checklist, defined once: the chapter renders it, ``labkit diagnose``
applies it to a profiled kernel.

The items are in the chapter's order, by decreasing yield: the paper estimate first, then whether
the GPU is busy at all, then the bytes moved, then what happens on the chip (shared memory, then
the latency: more bytes in flight per thread before more warps, chapter 3's rule), then the
instruction level. Each item names its symptom (the metric and its
threshold, the constants below), its lever, the sections of chapters 1-4 that explain it, and the
Nsight Compute rules whose Est. Speedup speaks for it.

Applied to one kernel (:func:`assess`), an item *fires* when its symptom is in the report, with an
expected gain: the share of the kernel's time the lever could remove, in %. Where a rule of ncu
that speaks for the item fired with a whole-kernel ("global") Est. Speedup, that estimate is the
gain; otherwise labkit's own estimate, whose formula each evaluator gives. Where labkit measures an
item's symptom itself and finds it absent (no excess sector, no local traffic...), a rule does not
fire the item: ncu's MemoryCacheAccessPattern estimated 70 % for the one float a CUB reduction's
block stores, beside 8 million perfect load sectors.

The fired items are ranked by expected gain, so that the order never contradicts ncu's estimates
without saying why. Three things can change a gain or a place, and each is kept in the result and
shown:

- *a roof the lever cannot lift* (``Fired.cap``): a kernel cannot run faster than its busiest roof
  allows (DRAM, L2, instruction issue, an arithmetic pipe: :func:`roofs`) unless the lever removes
  work from that very unit (:data:`UNLOADS`), so an item's gain is at most 100 - that roof's %.
  ncu's TheoreticalOccupancy estimate, for one, is bounded by the idle issue slots, not by DRAM: a
  kernel at 90 % of DRAM's peak gains at most 10 % from more warps, whatever it says; cuBLAS's
  FP16 GEMM, its tensor pipe at 90 %, gains at most 10 % from the shared-store conflicts ncu
  prices at 15 %;
- *waste first* (``Fired.discount``): the memory waits the latency item would hide are partly for
  sectors that carry no requested byte (or local-memory traffic), and the instructions a divergent
  kernel issues are partly for idle lanes; those items' estimates count that waste, so they are
  scaled by the share that is not waste (an uncoalesced kernel's latency goes after its
  coalescing; a stencil's 8 % of misaligned sectors barely matter);
- *launch-bound first* (``Fired.first_because_short``): a kernel shorter than
  :data:`~labkit.profiling.diagnosis.LAUNCH_BOUND_SECONDS` costs about as much to launch as to
  run, so the launch item (fusing or batching launches, gain read on the timeline) comes first.

A kernel whose busiest roof is at :data:`ROOF_PCT` or more gets the verdict "at the roof, stop"
when no item promises more than the headroom the roof leaves, with the one lever still left at
that roof (``Assessment.lever``, :func:`roof_lever`); its items are listed as below the stop band. Where what limits a kernel is something no item covers (:func:`unlisted`: the
special-function pipe at its roof, atomics serialised in one L2 slice), the assessment says so
(``Assessment.unlisted``) rather than name an item that would not help.

An ncu rule speaks for an item only through the finding that is the item's symptom. Nsight
Compute's LaunchConfiguration rule holds three findings (its Python script in ncu's ``sections/``
folder): Small Grid (fewer blocks than SMs), Block Size (threads per block not a
multiple of 32) and Tail Effect (a partial last wave). Only Small Grid is the launch item's
symptom. Tail Effect's estimate is 100 / (1 + full waves) whatever the last wave holds (one block
or all but one), an upper bound of that wave's share of the time rather than the gain of a fix, and
its waves are counted at the kernel's theoretical occupancy, so that they change when the occupancy
does: lab 05's kernel_g runs 1,056 blocks as 2.67 waves at 3 blocks per SM (37.5 % occupancy, set
by its registers), the same grid as exactly one wave at its twin's 8 blocks per SM. The waves are
shown in the launch statistics (chapter 3 counts the slots a partial wave leaves empty); no item
takes Tail Effect's estimate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum

from pydantic import model_validator

from labkit.chapters import page
from labkit.models.access import WARP_LANES
from labkit.profiling.diagnosis import (BLOCK_LIMITS, HIGH_PCT, LAUNCH_BOUND_SECONDS, Diagnosis, Quadrant,
                                        compute_setter)
from labkit.models.roofline import STOP_BELOW
from labkit.profiling.ncu import Rule
from labkit.records import Record

#: A unit at this share of its peak or more is at its roof: t_real / t_min under the stop band of
#: chapter 1 (1.2) against ncu's peak, which is the theoretical one (stricter than a measured ceiling).
ROOF_PCT = 100.0 / STOP_BELOW
#: An item whose expected gain is below this is not listed: a lever worth less is noise.
MIN_GAIN_PCT = 5.0
#: Fewer active threads per warp instruction than this is divergence (ncu's ThreadDivergence rule).
DIVERGENCE_THREADS = 24.0
#: A theoretical occupancy below this is low (ncu's TheoreticalOccupancy rule).
LOW_OCCUPANCY_PCT = 80.0
#: Achieved occupancy this many points under the theoretical one is a loss of warps at run time:
#: imbalance between blocks, a partial last wave (ncu's AchievedOccupancy rule, same threshold).
ACHIEVED_GAP_PCT = 10.0
#: The FP64:FP32 rate assumed when the report does not give the GPU's (H100, H200: 1/2). A consumer
#: GPU's 1/64 would make the gain larger: the assumption can only understate it.
DEFAULT_FP64_RATE = 0.5

#: Stall reasons that are a wait on memory (the latency the occupancy and ILP items hide).
MEMORY_WAITS = frozenset({"long_scoreboard"})
#: Stall reasons of a warp that was ready to issue: Not Selected, an eligible warp passed over for
#: another eligible one (the remedy "enough-warps" of labkit.profiling.diagnosis.REMEDIES). First
#: among the stalls, they say the warps present cover the latencies (the occupancy item's rule).
READY_WAITS = frozenset({"not_selected"})


class Level(int, Enum):
    """The chapter's five steps, in order of yield."""

    PAPER = 1
    BUSY = 2
    BYTES = 3
    ON_CHIP = 4
    INSTRUCTIONS = 5


@dataclass(frozen=True)
class Reading:
    """A section of the course: a page under docs/<lang>/ and an anchor in it (None: the page)."""

    page: str
    anchor: str | None = None

    @property
    def key(self) -> str:
        """Its label key: read.<page stem>[.<anchor>]."""
        stem = self.page.rsplit("/", 1)[-1].removesuffix(".md")
        return f"read.{stem}" + (f".{self.anchor}" if self.anchor else "")


CH1 = page(1)
CH2 = page(2)
CH3 = page(3)
CH4 = page(4)
CH5 = page(5)


@dataclass(frozen=True)
class Item:
    """One line of the checklist. Its words (title, symptom, lever) are labels
    ``checklist.<id>.title|symptom|lever`` in labkit.report.labels.checklist; the symptom's
    placeholders are filled from :data:`THRESHOLDS`."""

    id: str
    level: Level
    readings: tuple[Reading, ...]
    #: ncu rules whose Est. Speedup speaks for the item; a rule listed as "Name:word" counts only
    #: when its description holds that word (MemoryCacheAccessPattern says "global" or "local").
    rules: tuple[str, ...] = ()
    #: It removes wasted work or idle hardware (see the module docstring); False: it hides latency
    #: or trims instructions, and fires only once no waste is found.
    removes_waste: bool = False
    #: False: a step the chapter teaches that an Nsight Compute report cannot show (the paper
    #: estimate, the timeline), a symptom that needs what the algorithm must move (L2 locality:
    #: the DRAM bytes against the footprint counted on paper, which no counter holds), or a lever
    #: for a kernel already at its roof.
    in_reports: bool = True

    @property
    def section(self) -> Reading:
        """Its own section in chapter 5."""
        return Reading(CH5, self.id)


#: LaunchConfiguration's Small Grid finding ("...only 16 blocks, which is less than the GPU's 132
#: multiprocessors", or "fewer blocks than the GPU's 132 multiprocessors" for a range): the launch
#: item's rule. Its Tail Effect and Block Size findings are not that symptom (module docstring).
SMALL_GRID_RULE = "LaunchConfiguration:than the GPU's"


ITEMS: tuple[Item, ...] = (
    Item("roofline", Level.PAPER, (Reading(CH1, "t-min"), Reading(CH1, "verdict")), in_reports=False),
    Item("idle-gpu", Level.BUSY, (Reading(CH4, "tool-order"), Reading(CH4, "four-questions")), in_reports=False),
    Item("launch", Level.BUSY, (Reading(CH4, "speed-of-light"), Reading(CH3)), rules=(SMALL_GRID_RULE,),
         removes_waste=True),
    Item("coalescing", Level.BYTES, (Reading(CH2, "stride"), Reading(CH4, "memory-workload")),
         rules=("UncoalescedGlobalAccess", "MemoryCacheAccessPattern:global"), removes_waste=True),
    Item("local-memory", Level.BYTES, (Reading(CH4, "memory-workload"), Reading(CH4, "sass"), Reading(CH3)),
         rules=("MemoryCacheAccessPattern:local",), removes_waste=True),
    Item("l2-locality", Level.BYTES, (Reading(CH1, "hierarchy"), Reading(CH4, "memory-workload")), in_reports=False),
    Item("fewer-bytes", Level.BYTES, (Reading(CH1, "intensity"), Reading(CH1, "ex-stencil")), in_reports=False),
    Item("bank-conflicts", Level.ON_CHIP, (Reading(CH2, "conflicts"), Reading(CH2, "padding-swizzle")),
         rules=("UncoalescedSharedAccess", "SharedMemoryConflicts"), removes_waste=True),
    Item("latency", Level.ON_CHIP, (Reading(CH3, "volkov"), Reading(CH4, "warp-states")), rules=("CPIStall:L1TEX",)),
    Item("occupancy", Level.ON_CHIP, (Reading(CH3, "occupancy"), Reading(CH4, "occupancy")),
         rules=("TheoreticalOccupancy", "AchievedOccupancy")),
    Item("fp64", Level.INSTRUCTIONS, (Reading(CH1, "ridge"), Reading(CH4, "sass")),
         rules=("HighPipeUtilization:FP64",), removes_waste=True),
    Item("divergence", Level.INSTRUCTIONS, (Reading(CH4, "warp-states"), Reading(CH4, "source-counters")),
         rules=("ThreadDivergence",), removes_waste=True),
    Item("instructions", Level.INSTRUCTIONS, (Reading(CH4, "sass"), Reading(CH2, "vector"))),
    Item("tensor-cores", Level.INSTRUCTIONS, (Reading(CH1, "ex-gemm"), Reading(CH4, "sass")), in_reports=False),
)
ITEM_IDS = tuple(item.id for item in ITEMS)


def item(item_id: str) -> Item:
    for candidate in ITEMS:
        if candidate.id == item_id:
            return candidate
    raise KeyError(f"no checklist item {item_id!r}: the items are {', '.join(ITEM_IDS)}")


#: The thresholds the symptoms quote, by placeholder name (labels write {launch_us}, {roof_pct}...).
THRESHOLDS: dict[str, float] = {
    "stop_below": STOP_BELOW,
    "roof_pct": ROOF_PCT,
    "high_pct": HIGH_PCT,
    "launch_us": LAUNCH_BOUND_SECONDS * 1e6,
    "divergence_threads": DIVERGENCE_THREADS,
    "low_occupancy_pct": LOW_OCCUPANCY_PCT,
    "achieved_gap_pct": ACHIEVED_GAP_PCT,
    "min_gain_pct": MIN_GAIN_PCT,
}


# ----- applying it to one kernel ---------------------------------------------------------------
class Evidence(Record):
    """What the report shows, as a label key (``evidence.<id>``) and the numbers it quotes. A number
    whose name ends in ``_pct`` is a percentage, ``_us`` microseconds, ``_x`` a ratio; others are
    counts or plain numbers (labkit.report.diagnosis_text formats them per language)."""

    key: str
    values: dict[str, float]


class Cap(Record):
    """Why an item's gain is lower than its estimate: the roof its lever cannot lift (``unit``, at
    ``pct`` of its peak), and the estimate before the cap (ncu's or labkit's)."""

    unit: str
    pct: float
    estimate_pct: float


class Discount(Record):
    """Why an item's gain is lower than its estimate: ``waste_pct`` of what it counts is the waste of
    ``item`` (the memory traffic of coalescing or local memory for the latency item, the idle lanes
    of divergence for the instructions item)."""

    item: str
    waste_pct: float
    estimate_pct: float


class Fired(Record):
    """An item whose symptom the report shows, with its expected gain (% of the kernel's time; None
    when no estimate exists), where the estimate comes from, and what changed its gain or place
    (module docstring)."""

    item: str
    gain_pct: float | None
    rule: str | None          # the ncu rule whose global Est. Speedup is the gain; None: labkit's estimate
    evidence: Evidence
    cap: Cap | None = None
    discount: Discount | None = None
    first_because_short: bool = False


class Unlisted(Record):
    """What limits a kernel when no checklist item covers it: ``limit`` (``pipe_xu``: at its roof;
    ``l2_atomics``: atomics serialised in one L2 slice) at ``pct`` of its peak, with an expected
    gain where one can be said (``gain_pct``: the time the kernel does not keep any unit busy)."""

    limit: str
    pct: float
    gain_pct: float | None = None


class Assessment(Record):
    """A kernel against the checklist: the roof it is at (None: none) and the lever left there, what
    limits it where no item covers it, and the items that fired, ranked (see the module docstring)."""

    kernel: str
    roof: str | None          # a unit of roofs() when at that roof, with no item promising more than its headroom
    roof_pct: float | None
    items: list[Fired]
    unlisted: Unlisted | None = None
    lever: str | None = None  # at the roof: the item whose lever is left (roof_lever); None otherwise

    @model_validator(mode="after")
    def _lever_at_the_roof_only(self) -> Assessment:
        """A lever exactly when at a roof, and it is an item of the checklist."""
        if (self.lever is None) != (self.roof is None):
            raise ValueError(f"lever {self.lever!r} with roof {self.roof!r}: a lever is named at the roof, and only there")
        if self.lever is not None and self.lever not in ITEM_IDS:
            raise ValueError(f"lever {self.lever!r} is not a checklist item")
        return self

    @property
    def at_roof(self) -> bool:
        return self.roof is not None

    @property
    def first(self) -> Fired | None:
        """The item to act on first; None at the roof, when what limits the kernel is unlisted, or
        when nothing fired."""
        return None if self.at_roof or self.unlisted or not self.items else self.items[0]

    @property
    def verdict(self) -> str:
        """"at-roof", "unlisted" (what limits it has no item), the first item's id, or "none"."""
        if self.at_roof:
            return "at-roof"
        if self.unlisted:
            return "unlisted"
        return self.first.item if self.first else "none"


def rule_gain(rules: list[Rule], spec: tuple[str, ...]) -> tuple[float, str] | None:
    """The largest global Est. Speedup among the fired rules that ``spec`` names ("Name" or
    "Name:word", the word in the rule's description), with the rule's name; None if none fired."""
    best = None
    for rule in rules:
        if rule.speedup_pct is None or rule.speedup_type != "global":
            continue
        for wanted in spec:
            name, _, word = wanted.partition(":")
            if rule.name == name and (not word or word in rule.description):
                if best is None or rule.speedup_pct > best[0]:
                    best = (rule.speedup_pct, rule.name)
    return best


#: An evaluator's answer when labkit measured the item's symptom and found it absent (None: the
#: report does not say): then no rule fires the item (module docstring).
ABSENT = "absent"


def _launch(d: Diagnosis) -> tuple[Evidence, float | None] | str | None:
    """Grid smaller than the SM count: gain 100 x (1 - blocks / SMs), the SMs left idle (ncu's
    LaunchConfiguration estimate). A duration under LAUNCH_BOUND_SECONDS: the launch costs as much
    as the work, gain unknown from one kernel (the timeline shows it)."""
    launch = d.launch
    if launch.grid_blocks < launch.sm_count:
        return (Evidence(key="evidence.launch.grid", values={"blocks": launch.grid_blocks, "sms": launch.sm_count}),
                100.0 * (1 - launch.grid_blocks / launch.sm_count))
    seconds = d.speed_of_light.duration_seconds
    if seconds < LAUNCH_BOUND_SECONDS:
        return (Evidence(key="evidence.launch.short", values={"duration_us": seconds * 1e6,
                                                             "limit_us": LAUNCH_BOUND_SECONDS * 1e6}), None)
    return ABSENT


def _coalescing(d: Diagnosis):
    """Gain 100 x excess x L2's active share: the share of global sectors in excess of the ideal
    count for the bytes requested (ncu's excessive sectors; an excess sector may still carry
    requested bytes), weighted by the share of the time L2 had work (lts__cycles_active /
    lts__cycles_elapsed), the formula of ncu's UncoalescedGlobalAccess estimate. Without those
    cycles (a report that did not collect them), by Memory Throughput / 100 instead, which is never
    above it: a unit cannot run at more of its peak than the share of time it is active."""
    excess = d.memory.global_excess_share
    if excess is None:
        return None
    if 100 * excess < MIN_GAIN_PCT:
        return ABSENT
    values = {"excess_pct": 100 * excess}
    for name, bps in (("load_bytes", d.memory.global_load_bytes_per_sector),
                      ("store_bytes", d.memory.global_store_bytes_per_sector)):
        if bps is not None:
            values[name] = bps
    active = d.memory.l2_active_share
    weight_pct = 100 * active if active is not None else d.speed_of_light.memory_pct
    return Evidence(key="evidence.coalescing", values=values), excess * weight_pct


def _local_memory(d: Diagnosis):
    """Gain 100 x local share x Memory Throughput / 100: local sectors' share of L1's global and
    local sectors, weighted by how busy the memory system is. Fires on any local traffic."""
    if not d.memory.spills:
        return ABSENT
    share = d.memory.local_share
    return (Evidence(key="evidence.local-memory", values={"local_mb": d.memory.local_memory_bytes / 1e6,
                                                         "share_pct": 100 * share}),
            share * d.speed_of_light.memory_pct)


def _bank_conflicts(d: Diagnosis):
    """Gain 100 x excess x L1's active share: the wavefronts conflicts add, weighted by the share of
    the time L1TEX had work (l1tex__cycles_active / l1tex__cycles_elapsed), the formula of ncu's
    UncoalescedSharedAccess estimate; by L1's throughput / 100 without those cycles."""
    excess = d.memory.shared_excess_share
    if excess is None:
        return None
    if not excess:
        return ABSENT
    ways = d.memory.shared_wavefronts / d.memory.shared_wavefronts_ideal if d.memory.shared_wavefronts_ideal else 0.0
    active = d.memory.l1_active_share
    weight_pct = 100 * active if active is not None else d.speed_of_light.l1_pct
    return (Evidence(key="evidence.bank-conflicts", values={"excess_pct": 100 * excess, "ways_x": ways}),
            excess * weight_pct)


def _fp64(d: Diagnosis):
    """Gain = FP64 pipe % x (1 - FP64:FP32 rate): the FP64 pipe's busy time that FP32 would do at
    its higher rate (the rate from the report's DFMA and FFMA peaks, else DEFAULT_FP64_RATE)."""
    mix = d.instructions
    if mix is None or mix.fp64_pipe_pct is None:
        return None
    if not mix.fp64_pipe_pct:
        return ABSENT
    rate = mix.fp64_to_fp32_rate or DEFAULT_FP64_RATE
    if _conversions_at_the_xu_roof(d):
        loads = roofs(d)
        rest = max((pct for unit, pct in loads.items() if unit not in ("pipe_xu", "pipe_fp64")), default=0.0)
        return (Evidence(key="evidence.fp64.conversions", values={"xu_pct": loads["pipe_xu"],
                                                                 "fp64_pipe_pct": mix.fp64_pipe_pct}),
                100 - rest)
    return (Evidence(key="evidence.fp64", values={"fp64_pipe_pct": mix.fp64_pipe_pct, "rate_x": 1 / rate}),
            mix.fp64_pipe_pct * max(0.0, 1 - rate))


#: FP64 pipe load (% of its peak) from which an XU pipe at its roof is taken for FP32-FP64 conversions.
FP64_BESIDE_XU_PCT = 1.0


def _conversions_at_the_xu_roof(d: Diagnosis) -> bool:
    """The XU pipe at its roof while FP64 work runs: FP32 data computed with double constants
    converts each value to FP64 and back (F2F.F64.F32, F2F.F32.F64), which run on the XU pipe, not
    the FP64 one (a Numba loop of ``np.float32(v * 0.9999 + 0.0001)``: XU at 92 %, FP64 at 11 %).
    Removing the FP64 removes those conversions: the FP64 item is the lever, with the XU's load.
    Gain = 100 - the busiest other roof."""
    mix = d.instructions
    at = roof(d)
    return (at is not None and at[0] == "pipe_xu" and mix is not None and mix.fp64_pipe_pct is not None
            and mix.fp64_pipe_pct >= FP64_BESIDE_XU_PCT)


def _divergence(d: Diagnosis):
    """Fewer than DIVERGENCE_THREADS active threads per warp instruction. Gain = 100 x (1 - active /
    32) x Compute (SM) / 100: the idle lanes of each instruction, weighted by how busy the SM is."""
    mix = d.instructions
    if mix is None:
        return None
    if mix.active_threads >= DIVERGENCE_THREADS:
        return ABSENT
    return (Evidence(key="evidence.divergence", values={"threads": mix.active_threads}),
            (1 - mix.active_threads / WARP_LANES) * d.speed_of_light.compute_pct)


def _busiest_pct(d: Diagnosis) -> float:
    return max(d.speed_of_light.compute_pct, d.speed_of_light.memory_pct)


def _issue_headroom_pct(d: Diagnosis) -> float:
    """What hiding latency can add at most: 100 - busiest side, and no more than Scheduler
    Statistics' No Eligible share where the report has it (only an issue slot no warp could take
    can be filled)."""
    headroom = 100 - _busiest_pct(d)
    if d.scheduler is not None:
        headroom = min(headroom, d.scheduler.no_eligible_pct)
    return headroom


def _waits_on_memory(d: Diagnosis) -> bool:
    """Warps wait on memory first (Long Scoreboard: an L1TEX result, global or local)."""
    return bool(d.top_stalls) and d.top_stalls[0].reason in MEMORY_WAITS


def _warps_ready(d: Diagnosis) -> bool:
    """The warps present already fill the issue slots more warps could use: the schedulers had no
    eligible warp in under MIN_GAIN_PCT of their cycles (Scheduler Statistics' No Eligible). Where
    the report lacks that section (a record stored before the course kept it), Not Selected first
    among the stalls, which NVIDIA says *typically* means enough warps."""
    if d.scheduler is not None:
        return d.scheduler.no_eligible_pct < MIN_GAIN_PCT
    return bool(d.top_stalls) and d.top_stalls[0].reason in READY_WAITS


#: The arithmetic pipes: at ROOF_PCT of one of them, the kernel is at the roof of its own work.
ARITHMETIC_ROOFS = ("pipe_fma", "pipe_fp64", "pipe_tensor")


def _tensor_core_kernel(d: Diagnosis) -> bool:
    """The tensor pipe is the busiest of the SM's pipes: a matrix-multiply kernel on the tensor cores."""
    pipes = {u.unit: u.pct for u in d.units if u.unit.startswith("pipe_")}
    return bool(pipes) and max(pipes, key=pipes.get) == "pipe_tensor" and pipes["pipe_tensor"] > 0


def _occupancy(d: Diagnosis):
    """What Nsight Compute's Occupancy section shows, whichever memory or pipe the warps wait on:

    - a theoretical occupancy under LOW_OCCUPANCY_PCT, with its limiter (registers, shared memory,
      warps or blocks per SM; ncu's TheoreticalOccupancy rule). Gain = min(100 - theoretical,
      100 - busiest side): more warps help until a unit saturates, and cannot add more than the
      missing warps (ncu's own estimate, min(idle issue slots, missing warps), replaces it when the
      details page has it);
    - else an achieved occupancy more than ACHIEVED_GAP_PCT points under the theoretical one (ncu's
      AchievedOccupancy rule), unless the grid leaves SMs idle (the launch item says that): a grid
      under one wave at that occupancy (ncu's Waves Per SM below 1) leaves warp slots empty on
      every SM; otherwise warps are lost at run time (short-lived blocks, imbalance, a partial last
      wave). Gain = min(100 x (theoretical - achieved) / theoretical, 100 - busiest side), the
      rule's formula with the same bound.

    More warps only fill the issue slots for which no warp is eligible, so the gain is at most
    Scheduler Statistics' No Eligible share, and the item is measured absent when that share is
    under MIN_GAIN_PCT (:func:`_warps_ready`; without the section, when Not Selected is the top
    stall). Step 3c of chapter 6 shows why the stall ranking alone is not enough: Not Selected
    leads, yet its schedulers find no eligible warp in 31.5 % of cycles. Not for a tensor-core
    kernel (:func:`_tensor_core_kernel`) either: built for one or two blocks per SM, it hides
    latency with asynchronous copies and a pipeline, and what limits it is that pipeline
    (:func:`unlisted`), not the warps (cuDNN's attention at 1 block per SM, cuBLAS's nvjet GEMMs). The low occupancy of a register-tiled kernel is the price of its tile, not its
    limit: chapter 6's 8 x 8 SGEMM tile at 25 % theoretical occupancy, Not Selected first, gains
    32 % from the next step at the same occupancy (fewer instructions, loads in flight). ncu agrees
    on every H200 profile the course holds: its occupancy estimates are whole-kernel ("global")
    only where its IssueSlotUtilization rule finds the schedulers short of eligible warps, never
    where Not Selected leads."""
    occupancy = d.occupancy
    if occupancy is None:
        return None
    if _warps_ready(d) or _tensor_core_kernel(d):
        return ABSENT
    headroom = _issue_headroom_pct(d)
    values = {"theoretical_pct": occupancy.theoretical_pct, "achieved_pct": occupancy.achieved_pct,
              "registers": occupancy.registers_per_thread}
    if occupancy.theoretical_pct < LOW_OCCUPANCY_PCT:
        return (Evidence(key=f"evidence.occupancy.{occupancy.limiters[0]}", values=values),
                min(100 - occupancy.theoretical_pct, headroom))
    gap = occupancy.theoretical_pct - occupancy.achieved_pct
    launch = _launch(d)
    if gap <= ACHIEVED_GAP_PCT or (launch not in (None, ABSENT) and (launch[1] or 0) >= MIN_GAIN_PCT):
        return ABSENT
    waves = d.launch.waves_per_sm
    if waves is not None and waves < 1:
        key, values = "evidence.occupancy.achieved_grid", {**values, "waves": waves}
    else:
        key = "evidence.occupancy.achieved"
    return Evidence(key=key, values=values), min(100 * gap / occupancy.theoretical_pct, headroom)


def _latency(d: Diagnosis):
    """Warps wait on memory first (Long Scoreboard), with enough warps (theoretical occupancy at
    LOW_OCCUPANCY_PCT or more; under it the occupancy item speaks), whatever Speed of Light's
    quadrant: a streaming kernel at 70 % of DRAM's peak waits on memory too, and more bytes in
    flight per thread close part of the gap (ncu's CPIStall estimate, where it gave one). labkit's
    gain = min(the memory wait's share of the stalls, No Eligible, 100 - busiest side): hiding the
    wait removes at most the cycles it holds, fills only issue slots no warp could take, and stops
    where a unit saturates. It is the formula of ncu's CPIStall estimate (on the validation set's
    H200 profiles within 1.1 points of it on every launch whose rule fired), so that a raw page alone
    ranks as the raw and details pages do."""
    occupancy = d.occupancy
    if not _waits_on_memory(d) or (occupancy is not None and occupancy.theoretical_pct < LOW_OCCUPANCY_PCT):
        return ABSENT
    stall = d.top_stalls[0]
    busiest = _busiest_pct(d)
    return (Evidence(key="evidence.latency", values={"stall_pct": stall.pct, "busiest_pct": busiest}),
            min(stall.pct, 100.0, _issue_headroom_pct(d)))


def _instructions(d: Diagnosis):
    """Compute (SM) high from instruction issue or an integer or load/store pipe, not arithmetic (the
    instruction-bound quadrant). Gain = 100 x min(1 - Memory / Compute (SM), 1 - FMA pipe / issue):
    fewer instructions help until the memory side sets the pace, and only the instructions that
    are not the arithmetic itself can go (cuBLAS's SGEMM issues at 87 % of its peak, 77 points of
    them FFMA). FP64 arithmetic counts too, at its pipe's load times the FP64:FP32 rate (a DFMA
    holds its half-width pipe for two cycles of one issue slot)."""
    sol = d.speed_of_light
    if d.quadrant is not Quadrant.INSTRUCTION_BOUND:
        return ABSENT
    setter = compute_setter(d.units)
    loads = {u.unit: u.pct for u in d.units}
    issue = loads.get("issue", sol.compute_pct)
    mix = d.instructions
    fp64_issue = (loads.get("pipe_fp64", 0.0) * (mix.fp64_to_fp32_rate or DEFAULT_FP64_RATE)
                  if mix is not None and mix.fp64_to_fp32_rate is not None else 0.0)
    arithmetic_share = min(1.0, (loads.get("pipe_fma", 0.0) + fp64_issue) / issue) if issue else 0.0
    return (Evidence(key="evidence.instructions", values={"compute_pct": sol.compute_pct, "memory_pct": sol.memory_pct,
                                                         "unit_pct": setter.pct if setter else sol.compute_pct}),
            100 * max(0.0, min(1 - sol.memory_pct / sol.compute_pct, 1 - arithmetic_share)))


EVALUATORS: dict[str, Callable[[Diagnosis], tuple[Evidence, float | None] | None]] = {
    "launch": _launch, "coalescing": _coalescing, "local-memory": _local_memory, "bank-conflicts": _bank_conflicts,
    "fp64": _fp64, "divergence": _divergence, "occupancy": _occupancy, "latency": _latency,
    "instructions": _instructions,
}


#: The units a kernel can be bound by, each a roof no lever lifts unless it removes work there:
#: DRAM and L2 (Speed of Light), instruction issue and the arithmetic pipes (the breakdown).
ROOF_UNITS = ("dram", "l2", "issue", "pipe_fma", "pipe_fp64", "pipe_tensor", "pipe_xu")
#: The roof units each item removes work from (its gain is not capped by them): fewer sectors
#: relieve DRAM and L2, fewer wavefronts L1, fewer instructions the issue and the pipes; a bigger
#: grid puts idle SMs to work, which lifts every roof.
UNLOADS: dict[str, frozenset[str]] = {
    "launch": frozenset(ROOF_UNITS),
    "coalescing": frozenset({"dram", "l2"}),
    "local-memory": frozenset({"dram", "l2"}),
    "bank-conflicts": frozenset(),
    "occupancy": frozenset(),
    "latency": frozenset(),
    "fp64": frozenset({"pipe_fp64", "pipe_xu"}),
    "divergence": frozenset({"issue", "pipe_fma", "pipe_fp64", "pipe_xu"}),
    "instructions": frozenset({"issue"}),
}
#: An estimate within this many points above its cap is bounded without saying so (a cap shown for a
#: fraction of a point would only add words).
CAP_TOLERANCE_PCT = 1.0


def roofs(d: Diagnosis) -> dict[str, float]:
    """Each roof unit's load in % of its peak (those the report has)."""
    sol = d.speed_of_light
    found = {"dram": sol.dram_pct, "l2": sol.l2_pct}
    found.update((u.unit, u.pct) for u in d.units if u.unit in ROOF_UNITS)
    return found


def roof(d: Diagnosis) -> tuple[str, float] | None:
    """The busiest roof when at ROOF_PCT of its peak or more (DRAM first when it is there: the L2
    throughput of a streaming kernel includes the DRAM traffic it passes on; then an arithmetic
    pipe, whose instructions are what the issue slots carry); None otherwise."""
    loads = roofs(d)
    if loads["dram"] >= ROOF_PCT:
        return "dram", loads["dram"]
    arithmetic = [(unit, loads[unit]) for unit in ARITHMETIC_ROOFS if loads.get(unit, 0.0) >= ROOF_PCT]
    if arithmetic:   # the work's own roof before the issue slots that carry it
        return max(arithmetic, key=lambda pair: pair[1])
    unit, pct = max(loads.items(), key=lambda pair: pair[1])
    return (unit, pct) if pct >= ROOF_PCT else None


#: Roofs past which no item of the checklist goes (module docstring: unlisted).
UNLISTED_ROOFS = frozenset({"pipe_xu"})
#: Atomics serialise in one L2 slice: the busiest slice's atomic unit at least this busy...
ATOMIC_HOT_PCT = 25.0
#: ...and at least this many times the average slice's.
ATOMIC_CONCENTRATION = 10.0


def unlisted(d: Diagnosis) -> Unlisted | None:
    """What limits the kernel where no item covers it:

    - the XU pipe (special functions, conversions) at ROOF_PCT of its peak or more, unless FP64
      work beside it says the conversions are FP64's (the FP64 item removes them);
    - a tensor-core kernel below its roof, built for few warps (theoretical occupancy under
      LOW_OCCUPANCY_PCT): its pipeline, which no item covers (:func:`_occupancy`). Gain = 100 -
      its busiest roof; wasted bytes or wavefronts (a fired waste item) are removed first;
    - atomics on a few addresses, serialised in one L2 slice: its atomic unit at ATOMIC_HOT_PCT or
      more and ATOMIC_CONCENTRATION times the average slice, while neither side of Speed of Light is
      at HIGH_PCT (the contention, not the bandwidth, sets the time). Gain = 100 - busiest side: the
      time no unit is kept busy, which spreading the atomics (privatised counters, a reduction
      first) gives back."""
    at = roof(d)
    if at is not None and at[0] in UNLISTED_ROOFS and not _conversions_at_the_xu_roof(d):
        return Unlisted(limit=at[0], pct=at[1])
    occupancy = d.occupancy
    if (at is None and _tensor_core_kernel(d) and occupancy is not None
            and occupancy.theoretical_pct < LOW_OCCUPANCY_PCT):
        tensor = next(u.pct for u in d.units if u.unit == "pipe_tensor")
        return Unlisted(limit="tensor_pipeline", pct=tensor, gain_pct=100 - max(roofs(d).values()))
    atomics = d.atomics
    if (atomics is not None and atomics.hottest_slice_pct >= ATOMIC_HOT_PCT
            and atomics.hottest_slice_pct >= ATOMIC_CONCENTRATION * atomics.average_slice_pct
            and _busiest_pct(d) < HIGH_PCT):
        return Unlisted(limit="l2_atomics", pct=atomics.hottest_slice_pct, gain_pct=100 - _busiest_pct(d))
    return None


#: At the issue roof, the FMA pipe at this share of the issue rate or more makes the kernel's roof
#: its FMAs (tensor cores are the lever left); below it, its instruction count.
ISSUE_SHARE_FOR_FMA = 0.75


def roof_lever(unit: str, pct: float, d: Diagnosis) -> str:
    """The item whose lever is left at the roof ``unit`` (at ``pct`` % of its peak): fewer bytes at
    DRAM or L2; the FP64 item at the FP64 pipe; at instruction issue, tensor cores when the FMA pipe
    is at ISSUE_SHARE_FOR_FMA x pct or more, else fewer instructions; tensor cores at any other
    pipe (FMA, tensor)."""
    if unit in ("dram", "l2"):
        return "fewer-bytes"
    if unit == "pipe_fp64":
        return "fp64"
    if unit == "issue":
        return "tensor-cores" if roofs(d).get("pipe_fma", 0.0) >= ISSUE_SHARE_FOR_FMA * pct else "instructions"
    return "tensor-cores"


def assess(d: Diagnosis) -> Assessment:
    """The checklist applied to one kernel (see the module docstring for the ranking)."""
    fired = [found for entry in ITEMS if (evaluator := EVALUATORS.get(entry.id)) is not None
             and (found := _fire(entry, evaluator, d)) is not None]
    fired = _ranked([_capped(_discounted(f, d), d) for f in fired])
    limit = unlisted(d)
    at = roof(d)
    if limit is not None:
        best = max((f.gain_pct for f in fired if f.gain_pct is not None), default=0.0)
        waste = limit.limit == "tensor_pipeline" and any(item(f.item).removes_waste for f in fired)
        if not waste and (limit.gain_pct is None or limit.gain_pct >= best):
            return Assessment(kernel=d.kernel, roof=None, roof_pct=None, items=fired, unlisted=limit)
    elif at is not None and all(f.gain_pct is None or f.gain_pct <= 100 - at[1] + CAP_TOLERANCE_PCT
                                or (at[0] in ARITHMETIC_ROOFS and at[0] not in UNLOADS[f.item]) for f in fired):
        return Assessment(kernel=d.kernel, roof=at[0], roof_pct=at[1], items=fired, lever=roof_lever(*at, d))
    return Assessment(kernel=d.kernel, roof=None, roof_pct=None, items=fired)


def capped_gain_pct(estimate_pct: float, roof_pct: float) -> float:
    """What a lever that removes no work from a unit at ``roof_pct`` % of its peak can give, in % of
    the kernel's time: its estimate, at most the 100 - roof_pct the unit leaves (at its full rate,
    the unit still needs roof_pct % of today's time for the same work). Chapter 5's quiz q05-roof
    applies it to a kernel whose FMA pipe bounds what coalescing its loads can give."""
    return max(0.0, min(estimate_pct, 100.0 - roof_pct))


def _capped(fired: Fired, d: Diagnosis) -> Fired:
    """An item's gain is at most 100 - the busiest roof it removes no work from (module docstring);
    where that cap binds, it is the reason shown (a discount applied before it is dropped)."""
    if fired.gain_pct is None:
        return fired
    untouched = {unit: pct for unit, pct in roofs(d).items() if unit not in UNLOADS[fired.item]}
    if not untouched:
        return fired
    unit, pct = max(untouched.items(), key=lambda pair: pair[1])
    if fired.gain_pct <= 100 - pct:
        return fired
    if fired.gain_pct <= 100 - pct + CAP_TOLERANCE_PCT:   # bounded, without words for a fraction of a point
        return fired.model_copy(update={"gain_pct": capped_gain_pct(fired.gain_pct, pct)})
    estimate = fired.discount.estimate_pct if fired.discount is not None else fired.gain_pct
    return fired.model_copy(update={"gain_pct": capped_gain_pct(fired.gain_pct, pct), "discount": None,
                                    "cap": Cap(unit=unit, pct=pct, estimate_pct=estimate)})


def _discounted(fired: Fired, d: Diagnosis) -> Fired:
    """What an item's estimate counts of another item's waste, taken out (module docstring): the
    latency item's gain scaled by the share of memory traffic that is not the waste of coalescing
    or local memory; the instructions item's by the share of lanes active (divergent paths issue
    instructions for idle lanes, which the divergence item removes)."""
    if fired.gain_pct is None or fired.item not in ("latency", "instructions"):
        return fired
    if fired.item == "latency":
        shares = [("coalescing", d.memory.global_excess_share or 0.0), ("local-memory", d.memory.local_share)]
    else:
        mix = d.instructions
        idle = 1 - mix.active_threads / WARP_LANES if mix is not None and mix.active_threads < DIVERGENCE_THREADS else 0.0
        shares = [("divergence", idle)]
    item_id, waste = max(shares, key=lambda pair: pair[1])
    if 100 * waste < MIN_GAIN_PCT:
        return fired
    return fired.model_copy(update={"gain_pct": fired.gain_pct * (1 - waste),
                                    "discount": Discount(item=item_id, waste_pct=100 * waste,
                                                         estimate_pct=fired.gain_pct)})


def _estimate(fired: Fired) -> float:
    """The estimate before a cap or a discount (what an item promised before its roof bounded it)."""
    if fired.cap is not None:
        return fired.cap.estimate_pct
    if fired.discount is not None:
        return fired.discount.estimate_pct
    return fired.gain_pct or 0.0


def _ranked(fired: list[Fired]) -> list[Fired]:
    """By expected gain (unknown gains last); items capped to the same gain by the same roof by
    their estimates before the cap, then in the chapter's order; a launch-bound kernel's launch
    item first (module docstring)."""
    order = {item_id: position for position, item_id in enumerate(ITEM_IDS)}
    ranked = sorted(fired, key=lambda f: (f.gain_pct is None, -round(f.gain_pct or 0.0, 6), -_estimate(f),
                                          order[f.item]))
    short = next((i for i, f in enumerate(ranked) if f.evidence.key == "evidence.launch.short"), None)
    if short:
        ranked.insert(0, ranked.pop(short).model_copy(update={"first_because_short": True}))
    return ranked


#: Evidence whose rule is one of its item's rules only: ncu's AchievedOccupancy speaks for the
#: achieved gap, TheoreticalOccupancy for a theoretical limit (a rule speaks only through its finding).
RULES_BY_EVIDENCE = {"evidence.occupancy.achieved": ("AchievedOccupancy",),
                     "evidence.occupancy.achieved_grid": ("AchievedOccupancy",),
                     **{f"evidence.occupancy.{limiter}": ("TheoreticalOccupancy",) for limiter in BLOCK_LIMITS}}


def _fire(entry: Item, evaluator, d: Diagnosis) -> Fired | None:
    """The item fired, or None: its symptom absent (measured absent: whatever a rule says), or its
    gain under MIN_GAIN_PCT (a gain of None, unknown, still fires). ncu's global Est. Speedup for
    the item, where a rule gave one, is the gain; a rule alone fires a waste item whose symptom the
    report does not let labkit measure (an older ncu without the excessive-sectors metric)."""
    found = evaluator(d)
    if found == ABSENT:
        return None
    from_rule = rule_gain(d.rules, RULES_BY_EVIDENCE.get(found[0].key, entry.rules) if found else entry.rules)
    if found is None:
        if from_rule is None or from_rule[0] < MIN_GAIN_PCT or not entry.removes_waste:
            return None
        evidence, own = Evidence(key="evidence.rule", values={}), None
    else:
        evidence, own = found
    gain, rule = (from_rule[0], from_rule[1]) if from_rule is not None else (own, None)
    if gain is not None and gain < MIN_GAIN_PCT:
        return None
    return Fired(item=entry.id, gain_pct=gain, rule=rule, evidence=evidence)
