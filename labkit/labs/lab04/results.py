"""What lab 04 records, typed once: the file's shape, its validation and its reading.

Stored are the measurements (timings with their spread, spans on the GPU clock, Nsight Compute's
diagnosis of each kernel, the SASS facts); speed-ups, savings, bandwidths and idle time are
derived here. A file that validates is complete (every phase, fault and profiled kernel exactly
once) and physically possible (no bandwidth above the GPU's theoretical HBM peak where HBM is
what the measurement reads).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from labkit.lab import Check
from labkit.profiling import timeline as tl
from labkit.profiling.diagnosis import StoredProfile
from labkit.profiling.nsys import KernelSum
from labkit.profiling.sass import SassFacts
from labkit.records import Positive, PositiveInt, Record, Seconds, Spread
from labkit.timing import Timing

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
#: Two faults whose savings differ by less than this share of the faulty time rank equal: host-clock
#: medians of whole runs move by a few percent from run to run.
RANK_TIE_SHARE = 0.05
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
    chronometer_rounds: PositiveInt = 15   # rounds of whole-program runs, every configuration once per round
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


class AblationRow(Record):
    """The faulty program with only this fault repaired, per iteration (host clock), timed in the
    same interleaved rounds as the totals."""

    fault: Fault
    with_only_this_repaired: Spread

    @property
    def phase(self) -> str:
        return FAULT_PHASE[self.fault]


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


class Lab04Results(Record):
    sizes: Sizes
    checks: list[Check]
    hbm_peak_gbps: Positive            # the recorded GPU's theoretical HBM bandwidth
    timer: TimerChecks
    totals: Totals
    phases: list[PhaseTimings]
    ablation: list[AblationRow]
    timeline: Annotated[Timeline | Unavailable, Field(discriminator="status")]
    ncu: Annotated[NcuProfiles | Unavailable, Field(discriminator="status")]
    sass: Annotated[SassListing | Unavailable, Field(discriminator="status")]

    # ----- what is derived ---------------------------------------------------------------
    def saved_seconds(self, row: AblationRow) -> float:
        """What repairing this fault alone saves per iteration (medians)."""
        return self.totals.faulty.median_seconds - row.with_only_this_repaired.median_seconds

    def ranks(self) -> dict[str, int]:
        """Each fault's rank by saving, 1 the largest; a fault within RANK_TIE_SHARE of the faulty
        time of the one ranked before it shares its rank (competition ranking: 1, 1, 3, 4)."""
        ordered = sorted(self.ablation, key=self.saved_seconds, reverse=True)
        tie = RANK_TIE_SHARE * self.totals.faulty.median_seconds
        ranks: dict[str, int] = {}
        for position, row in enumerate(ordered):
            previous = ordered[position - 1] if position else None
            tied = previous is not None and self.saved_seconds(previous) - self.saved_seconds(row) < tie
            ranks[row.fault] = ranks[previous.fault] if tied else position + 1
        return ranks

    def saved_range_seconds(self, row: AblationRow) -> tuple[float, float]:
        """The saving's spread: (faulty fastest - repaired-alone slowest, faulty slowest - repaired-alone
        fastest), the least and the most the two spreads allow."""
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
        failed = [check.name for check in self.checks if not check.passed]
        if failed:
            raise ValueError(f"checks against NumPy failed: {', '.join(failed)}")
        for what, found, expected in (
                ("timer/l2", [row.measurement for row in self.timer.l2], L2_MEASUREMENTS),
                ("phases", [row.phase for row in self.phases], PHASES),
                ("ablation", [row.fault for row in self.ablation], FAULTS)):
            if tuple(found) != expected:
                raise ValueError(f"{what}: holds {found}, expected each of {list(expected)} once, in that order")
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
