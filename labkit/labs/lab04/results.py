"""What lab 04 records, typed once: the file's shape, its validation and its reading.

Stored are the measurements (timings with their spread, spans on the GPU clock, Nsight Compute's
diagnosis of each kernel, the SASS facts); speed-ups, savings, bandwidths and idle time are
derived here. A file that validates is complete (every phase, fault and profiled kernel exactly
once) and physically possible (no bandwidth above the GPU's theoretical HBM peak where HBM is
what the measurement reads).
"""

from __future__ import annotations

import statistics
from typing import Annotated, Literal

from pydantic import Field, model_validator

from labkit.gpu.timing import Timing
from labkit.labs.base import CheckedResults
from labkit.profiling import timeline as tl
from labkit.profiling.diagnosis import StoredProfile
from labkit.profiling.nsys import KernelSum
from labkit.profiling.sass import SassFacts
from labkit.records import Positive, PositiveInt, Record, Seconds, Spread, ReferenceRate

FAULTS = ("pageable_transfer", "tiny_kernels", "uncoalesced", "host_sync")
PHASES = ("transfer", "normalise", "layer", "loss")
#: Which phase each fault lives in.
FAULT_PHASE = {"pageable_transfer": "transfer", "tiny_kernels": "normalise", "uncoalesced": "layer",
               "host_sync": "loss"}
#: The kernels Nsight Compute and the SASS step look at.
#: cupyx's timer and labkit's time one copy of this many bytes (source and target: twice that held).
CUPYX_COPY_BYTES = 1 << 30
PROFILED_KERNELS = ("transpose_naive", "transpose_tiled", "scale_add", "fused_chain", "sum_squares")
#: The timer's L2 measurements, in the order they run; the last two read what HBM delivers.
L2_MEASUREMENTS = ("l2_once_warm", "l2_once_flushed", "l2_passes_warm", "hbm_passes")
HBM_MEASUREMENTS = ("l2_once_flushed", "hbm_passes")
#: Of them, the one that streams HBM as a copy does (a reference: Lab04Results.reference_rates).
HBM_REFERENCE = "hbm_passes"
#: Records from before issue 29 only (no paired runs): two faults whose savings differ by less than
#: this share of the faulty time rank equal. Paired records tie by their intervals (Lab04Results.ranks).
RANK_TIE_SHARE = 0.05
#: The paired saving's interval: a percentile bootstrap of the median of the paired differences,
#: this confidence, this many resamples, this seed (deterministic: the same record, the same interval).
CONFIDENCE = 0.95
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 29
#: The phase whose working set (the transposed matrix) is far bigger than L2, timed with L2 flushed.
HBM_PHASE = "layer"
STREAMS = ("compute", "copy")

Phase = Literal["transfer", "normalise", "layer", "loss"]
Fault = Literal["pageable_transfer", "tiny_kernels", "uncoalesced", "host_sync"]
ProfiledKernel = Literal["transpose_naive", "transpose_tiled", "scale_add", "fused_chain", "sum_squares"]


class Sizes(Record):
    batch_rows: PositiveInt
    batch_cols: PositiveInt
    state_side: PositiveInt          # the resident square matrix the layer transposes
    chain_elements: PositiveInt
    chain_steps: PositiveInt
    iterations: PositiveInt
    threads_per_block: PositiveInt = 256   # of the normalise kernels (``labkit run lab-04 --threads N``)
    chronometer_rounds: PositiveInt = 30   # rounds of paired whole-program runs, every pair once per round
    l2_set_bytes: PositiveInt = 20_000_000    # the timer check's working set that fits in L2 (60 MiB on an H200)
    hbm_set_bytes: PositiveInt = 400_000_000  # and the one that does not

    @property
    def batch_bytes(self) -> int:
        return self.batch_rows * self.batch_cols * 4

    @property
    def layer_bytes(self) -> int:
        """Bytes a transpose must move: read the matrix once, write it once."""
        return 2 * self.state_side * self.state_side * 4


class L2Read(Record):
    """A read kernel over a working set, with or without L2 flushed between repetitions."""

    measurement: Literal["l2_once_warm", "l2_once_flushed", "l2_passes_warm", "hbm_passes"]
    read_bytes: PositiveInt            # passes x the working set
    passes: PositiveInt                # reads of the working set in one launch
    timing: Timing

    @property
    def gbps(self) -> float:
        return self.timing.gbps(self.read_bytes)


class TimerComparison(Record):
    """labkit's timer and cupyx.profiler.benchmark on the same kernel."""

    kernel: Literal["fma_chains", "copy_1gib"]
    labkit_median_seconds: Seconds
    cupyx_median_seconds: Seconds

    @property
    def ratio(self) -> float:
        """cupyx / labkit."""
        return self.cupyx_median_seconds / self.labkit_median_seconds


class TimerChecks(Record):
    l2: list[L2Read]
    cupyx: list[TimerComparison] | None     # None: CuPy was not installed


class Totals(Record):
    """The whole program, per iteration, host clock."""

    faulty: Spread
    repaired: Spread

    @property
    def speedup(self) -> float:
        return self.faulty.median_seconds / self.repaired.median_seconds


class PhaseTimings(Record):
    """One phase alone, both versions, with the chapter's timer."""

    phase: Phase
    moved_bytes: PositiveInt | None
    faulty: Timing
    repaired: Timing


def paired_interval_seconds(differences: list[float]) -> tuple[float, float]:
    """The CONFIDENCE interval of the median paired difference: a percentile bootstrap (resample
    the pairs with replacement BOOTSTRAP_RESAMPLES times, take each resample's median, keep the
    central CONFIDENCE of them). Why a bootstrap of the median rather than Student's t on the mean:
    whole-program host times have a heavy right tail (a page fault, a descheduled thread), which
    moves the mean and inflates a t interval, while the median of the differences ignores a few
    such pairs; the bootstrap assumes no distribution for it."""
    import numpy as np

    values = np.asarray(differences, dtype=float)
    rng = np.random.default_rng(BOOTSTRAP_SEED)
    medians = np.median(values[rng.integers(0, values.size, (BOOTSTRAP_RESAMPLES, values.size))], axis=1)
    tail = (1 - CONFIDENCE) / 2
    low, high = np.quantile(medians, [tail, 1 - tail])
    return float(low), float(high)


class AblationRow(Record):
    """The faulty program with only this fault repaired, per iteration (host clock).

    ``paired_saved_seconds`` (issue 29): each round ran the faulty program and this one back to back
    (which goes first alternates from round to round), and each holds one pair's difference,
    faulty - repaired-alone, per iteration: drift between rounds (clocks, page cache, other
    processes) weighs on both runs of a pair, and cancels out of the difference. Absent (None) from
    records made before it, whose saving is the difference of two medians."""

    fault: Fault
    with_only_this_repaired: Spread
    paired_saved_seconds: Annotated[list[float], Field(min_length=1)] | None = None

    @property
    def phase(self) -> str:
        return FAULT_PHASE[self.fault]

    @property
    def paired_interval_seconds(self) -> tuple[float, float] | None:
        return None if self.paired_saved_seconds is None else paired_interval_seconds(self.paired_saved_seconds)


class VersionTimeline(Record):
    """The first iterations of one version, as spans on the GPU clock."""

    iterations: PositiveInt
    spans: Annotated[list[tl.Span], Field(min_length=1)]

    def phase_seconds(self, phase: str) -> float:
        """The phase's span per iteration."""
        return sum(s.seconds for s in self.spans if s.phase == phase) / self.iterations

    @property
    def idle_seconds(self) -> float:
        return sum(gap.seconds for gap in tl.idle_gaps(self.spans))

    @property
    def busy_fraction(self) -> float:
        return tl.busy_fraction(self.spans)


class Timeline(Record):
    status: Literal["ok"] = "ok"
    source: Literal["labkit-events", "nsys"]
    faulty: VersionTimeline
    repaired: VersionTimeline
    nsys_kernels: list[KernelSum] | None = None   # nsys's cuda_gpu_kern_sum, where nsys ran


class Unavailable(Record):
    """A step that could not run on the measuring machine, and why."""

    status: Literal["unavailable"]
    reason: str


class NcuProfiles(Record):
    """Each profiled kernel's metrics that the diagnosis reads (diagnosed on reading)."""

    status: Literal["ok"]
    kernels: Annotated[list[StoredProfile], Field(min_length=1)]


class SassListing(Record):
    status: Literal["ok"]
    kernels: dict[ProfiledKernel, SassFacts]


class Lab04Results(CheckedResults):
    sizes: Sizes
    hbm_peak_gbps: Positive            # the recorded GPU's theoretical HBM bandwidth
    timer: TimerChecks
    totals: Totals
    phases: list[PhaseTimings]
    ablation: list[AblationRow]
    timeline: Annotated[Timeline | Unavailable, Field(discriminator="status")]
    ncu: Annotated[NcuProfiles | Unavailable, Field(discriminator="status")]
    sass: Annotated[SassListing | Unavailable, Field(discriminator="status")]

    # ----- what is derived ---------------------------------------------------------------
    @property
    def paired(self) -> bool:
        """Whether the ablation was measured in paired runs (issue 29; every row or none)."""
        return all(row.paired_saved_seconds is not None for row in self.ablation)

    def saved_seconds(self, row: AblationRow) -> float:
        """What repairing this fault alone saves per iteration: the median of the paired differences
        (a record from before issue 29: the difference of the two medians)."""
        if row.paired_saved_seconds is not None:
            return float(statistics.median(row.paired_saved_seconds))
        return self.totals.faulty.median_seconds - row.with_only_this_repaired.median_seconds

    def ranks(self) -> dict[str, int]:
        """Each fault's rank by saving, 1 the largest (competition ranking: 1, 1, 3, 4). Paired: a
        fault whose interval (saved_range_seconds) overlaps that of the one ranked just before it
        shares its rank, since the data cannot order them. Before issue 29: within RANK_TIE_SHARE of
        the faulty time of the one before."""
        ordered = sorted(self.ablation, key=self.saved_seconds, reverse=True)
        tie = RANK_TIE_SHARE * self.totals.faulty.median_seconds
        ranks: dict[str, int] = {}
        for position, row in enumerate(ordered):
            previous = ordered[position - 1] if position else None
            if previous is None:
                tied = False
            elif self.paired:
                tied = self.saved_range_seconds(row)[1] >= self.saved_range_seconds(previous)[0]
            else:
                tied = self.saved_seconds(previous) - self.saved_seconds(row) < tie
            ranks[row.fault] = ranks[previous.fault] if tied else position + 1
        return ranks

    def saved_range_seconds(self, row: AblationRow) -> tuple[float, float]:
        """The saving's interval: paired, the CONFIDENCE bootstrap interval of the median paired
        difference (paired_interval_seconds); before issue 29, the spread the two spreads allow
        (faulty fastest - repaired-alone slowest, faulty slowest - repaired-alone fastest)."""
        if row.paired_interval_seconds is not None:
            return row.paired_interval_seconds
        faulty, alone = self.totals.faulty, row.with_only_this_repaired
        return faulty.min_seconds - alone.max_seconds, faulty.max_seconds - alone.min_seconds

    def saving_bound_seconds(self, row: AblationRow) -> float | None:
        """The most a repair can save per iteration: its phase's span in the faulty timeline, plus the
        GPU's idle time there (what removing a wait can unblock), plus the run-to-run spread of the
        two medians compared. None without a timeline."""
        if not isinstance(self.timeline, Timeline):
            return None
        faulty = self.timeline.faulty
        spread = (self.totals.faulty.max_seconds - self.totals.faulty.min_seconds
                  + row.with_only_this_repaired.max_seconds - row.with_only_this_repaired.min_seconds)
        return faulty.phase_seconds(row.phase) + faulty.idle_seconds / faulty.iterations + spread

    def phase(self, name: str) -> PhaseTimings:
        return next(row for row in self.phases if row.phase == name)

    # ----- what cannot be -----------------------------------------------------------------
    @model_validator(mode="after")
    def _complete(self) -> Lab04Results:
        for what, found, expected in (
                ("timer/l2", [row.measurement for row in self.timer.l2], L2_MEASUREMENTS),
                ("phases", [row.phase for row in self.phases], PHASES),
                ("ablation", [row.fault for row in self.ablation], FAULTS)):
            if tuple(found) != expected:
                raise ValueError(f"{what}: holds {found}, expected each of {list(expected)} once, in that order")
        paired = [row.fault for row in self.ablation if row.paired_saved_seconds is not None]
        if paired and len(paired) != len(self.ablation):
            raise ValueError(f"ablation: paired differences for {paired} only: measure every fault in pairs, or none")
        for version in ("faulty", "repaired") if isinstance(self.timeline, Timeline) else ():
            for span in getattr(self.timeline, version).spans:
                if span.phase not in PHASES or span.stream not in STREAMS:
                    raise ValueError(f"timeline/{version}: span of phase {span.phase!r} on stream {span.stream!r}: "
                                     f"phases are {list(PHASES)}, streams {list(STREAMS)}")
        if isinstance(self.ncu, NcuProfiles):
            names = sorted(kernel.name for kernel in self.ncu.kernels)
            if names != sorted(PROFILED_KERNELS):
                raise ValueError(f"ncu/kernels: profiles {names}, expected {sorted(PROFILED_KERNELS)}")
        if isinstance(self.sass, SassListing) and sorted(self.sass.kernels) != sorted(PROFILED_KERNELS):
            raise ValueError(f"sass/kernels: holds {sorted(self.sass.kernels)}, expected {sorted(PROFILED_KERNELS)}")
        return self

    def reference_rates(self) -> list[ReferenceRate]:
        """The record's reference measurements beside their peaks (labkit.records.MIN_REFERENCE_SHARE):
        the timer check's passes over HBM, which stream it as a copy does."""
        return [ReferenceRate(f"timer/l2 {row.measurement}", row.gbps, self.hbm_peak_gbps, "GB/s", "theoretical HBM peak")
                for row in self.timer.l2 if row.measurement == HBM_REFERENCE]

    @model_validator(mode="after")
    def _physically_possible(self) -> Lab04Results:
        """Where HBM is what a measurement reads, its bandwidth is at most the theoretical peak."""
        for row in self.timer.l2:
            if row.measurement in HBM_MEASUREMENTS and row.gbps > self.hbm_peak_gbps:
                raise ValueError(f"timer/l2 {row.measurement}: {row.gbps:.0f} GB/s is above the GPU's theoretical "
                                 f"HBM peak {self.hbm_peak_gbps:.0f} GB/s")
        layer = self.phase(HBM_PHASE)
        for version in ("faulty", "repaired"):
            timing = getattr(layer, version)
            if layer.moved_bytes and timing.gbps(layer.moved_bytes) > self.hbm_peak_gbps:
                raise ValueError(f"phases/{HBM_PHASE}/{version}: {timing.gbps(layer.moved_bytes):.0f} GB/s is above "
                                 f"the GPU's theoretical HBM peak {self.hbm_peak_gbps:.0f} GB/s")
        return self
