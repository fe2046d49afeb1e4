"""What lab 06 records, typed once: each step of chapter 6's matrix multiply timed beside cuBLAS of
its precision in the same run, the registers each kernel was compiled to, and Nsight Compute's
profile of each step (diagnosed on reading).

A file that validates holds every step at the lab's side and cuBLAS in each precision at that side
(or the reason one could not run there: a step its GPU lacks the instructions for, the simulator,
which runs the Numba steps only, a failure), every timed kernel checked against NumPy and right,
runs at the sizes it records, and no rate above the peak of the units its precision runs on at the
SM clock read while it ran (FP32 FMA lanes for the SIMT steps, the tensor cores' dense rate for the
others), computed from the recorded GPU's SMs, lanes and clock, which labkit.records.plausibility holds to
its datasheet.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import Field, model_validator

from labkit.gpu.device import fma_peak_gflops
from labkit.gpu.timing import Timing
from labkit.labs.base import Check, CheckedResults
from labkit.labs.lab04.results import NcuProfiles, Unavailable
from labkit.models.tensor_cores import dense_flops_per_clock_per_sm, tensor_peak_gflops
from labkit.records import Positive, PositiveInt, Record, ReferenceRate


@dataclass(frozen=True)
class Step:
    """One step of chapter 6: its key, the kernel it runs, how it is written, its precision and the
    idea it adds (a label key: ``step.lab06.<key>``)."""

    key: str
    kernel: str
    language: Literal["numba", "numba_linked", "cuda"]   # numba_linked: Numba calling linked CUDA C
    precision: Literal["fp32", "fp16", "bf16"]


#: The chapter's steps, in its order.
STEPS: tuple[Step, ...] = (
    Step("naive", "gemm_naive", "numba", "fp32"),
    Step("shared", "gemm_shared", "numba", "fp32"),
    Step("padded", "gemm_shared_padded", "numba", "fp32"),
    Step("regtile", "gemm_regtile", "numba", "fp32"),
    Step("ctile", "sgemm_regtile", "cuda", "fp32"),
    Step("pipelined", "sgemm_pipelined", "cuda", "fp32"),
    # issue 33: step 4 in Numba, with what Numba can close (16-byte accesses, the unrolled slice)
    Step("numba_pipelined", "gemm_pipelined", "numba", "fp32"),
    Step("wmma", "hgemm_wmma", "cuda", "fp16"),
    Step("mma", "hgemm_mma_128x128", "cuda", "fp16"),
    # issue 33: the same instructions reached from a Numba kernel, through a linked CUDA C function
    Step("numba_mma", "gemm_numba_mma", "numba_linked", "fp16"),
    Step("bf16", "bgemm_mma_128x128", "cuda", "bf16"),
    Step("wgmma", "hgemm_wgmma_128x256", "cuda", "fp16"),
    # issue 33, one idea a step, 256 x 128 tiles: the TMA copies with warp specialisation (one CTA per
    # tile), then a persistent grid, then the TMA store of C
    Step("tma_ws", "hgemm_tma_ws_256x128", "cuda", "fp16"),
    Step("tma_persistent", "hgemm_tma_ws_256x128_persistent", "cuda", "fp16"),
    Step("tma", "hgemm_tma_ws_256x128_store", "cuda", "fp16"),
    Step("tma_bf16", "bgemm_tma_ws_256x128_store", "cuda", "bf16"),
)
STEP_KEYS: tuple[str, ...] = tuple(s.key for s in STEPS)
#: cuBLAS's precisions measured beside the steps (TF32: FP32 data on the tensor cores).
CUBLAS: tuple[str, ...] = ("fp32", "tf32", "fp16", "bf16")
#: The peer timed beside the steps where it is installed (not a dependency of the course): Triton's
#: standard blocked GEMM (labkit.kernels.gemm_triton), what a Python user would write instead, in
#: each 16-bit precision.
PEERS: tuple[str, ...] = ("triton_fp16", "triton_bf16")
#: The items the lab runs: each step's key, then cuBLAS in each precision, then the peers.
ITEMS: tuple[str, ...] = STEP_KEYS + tuple(f"cublas_{p}" for p in CUBLAS) + PEERS
#: Items added after records were made, and by what: a record from before one addition holds no
#: trace of any of its items (no run, check, reason, registers or profile) and reads as recorded
#: without them (:meth:`Lab06Results.absent_items`); the lab records them from then on. A record
#: that holds some items of one addition must hold them all, as any other item.
ADDED_ITEMS: dict[str, str] = {"tma": "issue 33", "tma_bf16": "issue 33",
                               "tma_ws": "issue 33, one idea a step", "tma_persistent": "issue 33, one idea a step",
                               "triton_fp16": "issue 33, the Triton peer", "triton_bf16": "issue 33, the Triton peer",
                               "numba_mma": "issue 33, tensor cores from Numba",
                               "numba_pipelined": "issue 33, step 4 in Numba"}
#: Steps slow enough that they are timed at the lab's side only, never at the large one.
SLOW_STEPS = frozenset({"naive", "shared", "padded"})
#: The issues' bars: the best FP32 SIMT step against cuBLAS SGEMM (issue 23), the best tensor-core
#: step in FP16 and in BF16 against cuBLAS in that precision (FP32 accumulation; issue 33), at the
#: same size in the same run.
SIMT_BAR = 0.80
TENSOR_BAR = 0.90
#: The most registers a thread may have on any GPU the course runs on (Programming Guide,
#: technical specifications: 255 per thread from compute capability 7.0 on).
MAX_REGISTERS_PER_THREAD = 255


#: What ``labkit diagnose`` puts first on each profiled step's profile, as chapter 6 says it: the
#: checklist item, or None where no item fires (the padded tile: what bounds it, the shared-memory
#: roof, is no waste a report shows; the wgmma step: a tensor-core kernel built for one block per SM,
#: whose limit is its pipeline, which no item covers: labkit.profiling.checklist.unlisted). Where an
#: item fires it names the lever the next step pulls: instructions (naive -> tiles that serve each
#: load many times; the Numba register tile -> the same in CUDA C), occupancy on the CUDA C register
#: tiles, Not Selected first yet no eligible warp in 31.5 % (3c) and 17.4 % (4) of the schedulers'
#: cycles (Scheduler Statistics: the item's first lever, more bytes in flight per thread, is what
#: step 4's 16-byte double-buffered loads do, and what is left of the gap to cuBLAS), bank conflicts
#: (the k-major tile -> its padding; WMMA's tiles), coalescing (mma.sync's and its BF16 twin's
#: cp.async copies of A's slice, rows of 64 bytes, half an L2 line, while L2 is their busiest unit ->
#: the wgmma step's slices of 128-byte rows), local memory on the Numba step on the tensor cores (48
#: bytes a thread that ptxas spills in its epilogue at 128 registers; the same on step 4 in Numba, 8
#: bytes at the same bound, occupancy and instructions next at gains within 5 points; the build without the bound has
#: none and runs slower: tests/gpu/recorded/nvidia-h200/numba_mma.json), coalescing on the TMA steps
#: that store C from registers (5e, 5f: 16 bytes of each 32-byte sector -> the TMA store of 5g). Seen
#: in the H200 profiles of probe run 1 (labkit.calibration.gemm_probe) and of the recorded lab (twice).
DIAGNOSED_FIRST: dict[str, str | None] = {
    "naive": "instructions", "shared": "bank-conflicts", "padded": None, "regtile": "instructions",
    "ctile": "occupancy", "pipelined": "occupancy", "numba_pipelined": "local-memory", "wmma": "bank-conflicts", "mma": "coalescing",
    "numba_mma": "local-memory", "bf16": "coalescing", "wgmma": None, "tma_ws": "coalescing",
    "tma_persistent": "coalescing", "tma": None,
    "tma_bf16": None,
}


#: Steps whose first item has a twin its rules estimate at the same gain (within TIE_PCT points), so
#: either leads from one recording to the next: WMMA's bank conflicts and coalescing (34.9 % and
#: 34.8 % in the first H200 recording of issue 29, 34.9 % both in the second).
TIED_WITH_FIRST: dict[str, str] = {"wmma": "coalescing"}
TIE_PCT = 0.5


def is_peer(item: str) -> bool:
    return item in PEERS


def precision_of(item: str) -> str:
    """The precision an item runs in: a step's, ``cublas_<precision>``'s or a peer's (its suffix)."""
    if item.startswith("cublas_") or is_peer(item):
        return item.rsplit("_", 1)[1]
    return step(item).precision


def cublas_reference(item: str) -> str | None:
    """What a step or a peer is compared with: cuBLAS in its precision; None for cuBLAS itself."""
    return None if item.startswith("cublas_") else f"cublas_{precision_of(item)}"


def step(key: str) -> Step:
    for candidate in STEPS:
        if candidate.key == key:
            return candidate
    raise KeyError(f"no step {key!r} in lab 06: the steps are {', '.join(STEP_KEYS)}")


def gemm_flops(side: int, depth: int) -> float:
    """2 M N K with M = N = side, K = depth: a multiply and an add per term of each element of C."""
    return 2.0 * side * side * depth


class Sizes(Record):
    side: PositiveInt                 # every step and cuBLAS: C is side x side...
    depth: PositiveInt                # ...and K = depth (= side on a GPU; smaller in the simulator)
    large_side: PositiveInt | None    # the fast steps and cuBLAS again, at large_side^3 (None: skipped)
    check_side: PositiveInt           # the checks against NumPy: M = N = check_side...
    check_depth: PositiveInt          # ...K = check_depth
    repeats: PositiveInt = 20
    # the register-only mma.sync loop (labkit.kernels.mma_roof): warps per SM, trips per launch
    mma_roof_warps: tuple[PositiveInt, ...] = (4, 8, 16, 32)
    mma_roof_iterations: PositiveInt = 8192

    @model_validator(mode="after")
    def _tiles(self) -> Sizes:
        for name in ("side", "large_side", "check_side"):
            value = getattr(self, name)
            if value is not None and value % 32:
                raise ValueError(f"{name} {value} is not a multiple of 32 (the shared-tile steps' tile of C; a "
                                 "step with a larger tile runs at the smallest multiple of it above the size)")
        for name in ("depth", "check_depth"):
            if getattr(self, name) % 32:
                raise ValueError(f"{name} {getattr(self, name)} is not a multiple of 32 (the slices of K)")
        return self


class Run(Record):
    """One kernel (a step's key or ``cublas_<precision>``) timed at one size: C side x side, K = depth.
    ``large``: at the lab's large size (else at its main size, or the smallest multiple of the
    kernel's tile above it where its tile does not divide that size: the simulator's).
    ``reference``: cuBLAS in the kernel's precision, timed call for call with it at the same size
    (labkit.gpu.timing.time_interleaved), so that the two are compared in the same power state; None
    for cuBLAS itself, where cuBLAS could not run, and in records from before stop 39."""

    kernel: str
    large: bool
    side: PositiveInt
    depth: PositiveInt
    timing: Timing
    reference: Timing | None = None

    @property
    def tflops(self) -> float:
        return self.timing.gflops(gemm_flops(self.side, self.depth)) / 1e3

    @property
    def precision(self) -> str:
        return precision_of(self.kernel)


class Resources(Record):
    """Registers per thread and local (spill) bytes per thread of a compiled step kernel."""

    kernel: str
    registers: Annotated[int, Field(ge=1, le=MAX_REGISTERS_PER_THREAD)] | None
    local_bytes: Annotated[int, Field(ge=0)] | None


class PeerConfig(Record):
    """What a peer ran as at one size: its library and version, and the configuration its autotuner
    kept (Triton: the block tile of C, the slice of K, the tile rows per group, warps and pipeline
    stages per program), which may differ from run to run."""

    kernel: str
    side: PositiveInt
    version: str
    block_m: PositiveInt
    block_n: PositiveInt
    block_k: PositiveInt
    group_m: PositiveInt
    warps: PositiveInt
    stages: PositiveInt

    @property
    def summary(self) -> str:
        """'128 × 256 × 64, 8, 3': the tile M × N × K, warps, stages (numbers only: one cell for every language)."""
        return f"{self.block_m} × {self.block_n} × {self.block_k}, {self.warps}, {self.stages}"


class Device(Record):
    """The recorded GPU's figures its peaks are computed from (labkit.records.plausibility holds them to its
    datasheet, or to what its compute capability allows)."""

    name: str
    compute_capability: tuple[int, int]
    sm_count: PositiveInt
    max_sm_clock_mhz: Positive
    fp32_lanes_per_sm: PositiveInt

    def peak_gflops(self, precision: str, sm_clock_mhz: float | None = None) -> float | None:
        """The peak of the units a precision runs on at ``sm_clock_mhz`` (the maximum clock when
        None): SMs x FP32 lanes x 2 x clock for FP32, the tensor cores' dense rate
        (labkit.models.tensor_cores) for the others; None where labkit knows no rate for this GPU."""
        clock = sm_clock_mhz or self.max_sm_clock_mhz
        if precision == "fp32":
            return fma_peak_gflops(self.sm_count, self.fp32_lanes_per_sm, clock)
        return tensor_peak_gflops(self.sm_count, self.compute_capability, precision, clock)


class MmaRoofPoint(Record):
    """The register-only mma.sync loop at one residency: blocks = SMs x warps per SM / 4."""

    warps_per_sm: PositiveInt
    blocks: PositiveInt
    flops: Positive
    timing: Timing


class MmaRoof(Record):
    """mma.sync's own ceiling (labkit.kernels.mma_roof): no shared memory, operands in registers,
    ``accumulators`` independent MMAs in flight per warp; its launch checked against NumPy first."""

    status: Literal["ok"]
    accumulators: PositiveInt
    iterations: PositiveInt
    check: Check
    points: Annotated[list[MmaRoofPoint], Field(min_length=1)]


class Lab06Results(CheckedResults):
    sizes: Sizes
    device: Device
    runs: list[Run]
    unavailable: dict[str, str] = {}            # what could not run at the side (a step's key or cublas_<p>), and why
    unavailable_large: dict[str, str] = {}      # what could not run at the large side, and why
    resources: list[Resources]
    peer_configs: list[PeerConfig] = []       # what each peer ran as, at each size it ran at (issue 33)
    ncu: Annotated[NcuProfiles | Unavailable, Field(discriminator="status")]
    mma_roof: Annotated[MmaRoof | Unavailable, Field(discriminator="status")] | None = None   # issue 29

    # ----- what is derived ---------------------------------------------------------------------
    def flops_per_clock_per_sm(self, flops: float, timing: Timing) -> float | None:
        """FLOP per SM per clock: flops / (median seconds x the SM clock it ran at x SMs); None
        where no clock was measured nor read."""
        clock = timing.peak_clock_mhz
        if not clock:
            return None
        return flops / timing.median_seconds / (clock * 1e6) / self.device.sm_count

    def dense_flops_per_clock_per_sm(self, precision: str = "fp16") -> int | None:
        """The tensor cores' dense FLOP per clock per SM (labkit.models.tensor_cores: 4 096 for FP16 on Hopper)."""
        return dense_flops_per_clock_per_sm(self.device.compute_capability, precision)

    def dram_intensity(self, key: str) -> float | None:
        """A step's FLOP per byte of DRAM traffic at the main size: 2 side^2 depth / (dram__bytes_read.sum
        + dram__bytes_write.sum) of its profile, made at that size; None without one."""
        stored, run = self.profile(key), self.run(key)
        if stored is None or run is None:
            return None
        kernel = stored.profile()
        moved = kernel.bytes_("dram__bytes_read.sum") + kernel.bytes_("dram__bytes_write.sum")
        return gemm_flops(run.side, run.depth) / moved if moved else None

    def mma_roof_point_flops_per_clock(self, point: MmaRoofPoint) -> float | None:
        return self.flops_per_clock_per_sm(point.flops, point.timing)

    def mma_roof_flops_per_clock(self) -> float | None:
        """mma.sync's ceiling: the best FLOP per clock per SM of the register-only loop."""
        if not isinstance(self.mma_roof, MmaRoof):
            return None
        rates = [r for p in self.mma_roof.points if (r := self.mma_roof_point_flops_per_clock(p)) is not None]
        return max(rates, default=None)

    def mma_roof_share(self) -> float | None:
        """mma.sync's ceiling / the tensor cores' dense FP16 rate per clock."""
        roof, dense = self.mma_roof_flops_per_clock(), self.dense_flops_per_clock_per_sm()
        return None if roof is None or not dense else roof / dense

    def step_flops_per_clock(self, key: str, large: bool = False) -> float | None:
        run = self.run(key, large)
        return None if run is None else self.flops_per_clock_per_sm(gemm_flops(run.side, run.depth), run.timing)

    def of_mma_roof(self, key: str) -> float | None:
        """A step's FLOP per clock per SM / mma.sync's ceiling, each at the clock it ran at."""
        mine, roof = self.step_flops_per_clock(key), self.mma_roof_flops_per_clock()
        return None if mine is None or not roof else mine / roof

    def run(self, kernel: str, large: bool = False) -> Run | None:
        return next((r for r in self.runs if r.kernel == kernel and r.large == large), None)

    def absent_items(self) -> frozenset[str]:
        """The items of ADDED_ITEMS this record was made before: those of each addition none of whose
        items leaves a trace in it (a run, a check, a reason, registers or a profile)."""
        names = ({r.kernel for r in self.runs} | {c.name for c in self.checks} | set(self.unavailable)
                 | set(self.unavailable_large) | {r.kernel for r in self.resources})
        if isinstance(self.ncu, NcuProfiles):
            kernels = {k.name for k in self.ncu.kernels}
            names |= {key for key in ADDED_ITEMS if not is_peer(key) and step(key).kernel in kernels}
        absent: set[str] = set()
        for addition in set(ADDED_ITEMS.values()):
            items = {key for key, by in ADDED_ITEMS.items() if by == addition}
            if not items & names:
                absent |= items
        return frozenset(absent)

    def why_not_run(self, key: str) -> str | None:
        """Why an item has no run at the main size: the reason recorded, or that the record predates it."""
        if key in self.unavailable:
            return self.unavailable[key]
        if key in self.absent_items():
            return f"recorded before this item existed (added by {ADDED_ITEMS[key]})"
        return None

    def cublas(self, precision: str, large: bool = False) -> Run | None:
        return self.run(f"cublas_{precision}", large)

    def versus_cublas(self, key: str, large: bool = False) -> float | None:
        """A step's (or a peer's) FLOP rate / cuBLAS's in its precision, at the same size, same run:
        t(cuBLAS) / t(key), cuBLAS timed call for call with it (:attr:`Run.reference`), or timed alone
        in a record from before stop 39. Call for call, both run in the same power state: under the
        H200's power cap at 8192^3, timed one after the other, the clock each was left depended on
        what ran before it and for how long (two such records disagreed by up to 15 %)."""
        pair = self._same_size(key, f"cublas_{precision_of(key)}", large)
        if pair is None:
            return None
        mine, theirs = pair
        return (mine.reference or theirs.timing).median_seconds / mine.timing.median_seconds

    def speedup_over_previous(self, key: str, large: bool = False) -> float | None:
        """How many times faster ``key`` runs than the step before it in the chapter's order, same
        size, same run. Two steps are not timed call for call with each other, but each is with
        cuBLAS: where both are, in one precision, the ratio of their ratios to it (each taken in the
        power state it shared with its cuBLAS); else t(the step before) / t(``key``)."""
        position = STEP_KEYS.index(key)
        if position == 0:
            return None
        before = STEP_KEYS[position - 1]
        pair = self._same_size(key, before, large)
        if pair is None:
            return None
        mine, theirs = pair
        if mine.reference and theirs.reference and precision_of(key) == precision_of(before):
            return self.versus_cublas(key, large) / self.versus_cublas(before, large)
        return theirs.timing.median_seconds / mine.timing.median_seconds

    def _same_size(self, key: str, other: str, large: bool) -> tuple[Run, Run] | None:
        """The runs of ``key`` and ``other`` in this record, where both ran at the same size."""
        mine, theirs = self.run(key, large), self.run(other, large)
        if mine is None or theirs is None or (mine.side, mine.depth) != (theirs.side, theirs.depth):
            return None
        return mine, theirs

    def best(self, precision: str, large: bool = False) -> str | None:
        """The fastest step of a precision (FP32: the SIMT steps)."""
        timed = [s.key for s in STEPS if s.precision == precision and self.run(s.key, large)]
        return max(timed, key=lambda k: self.run(k, large).tflops, default=None)

    def _of_peak(self, run: Run | None) -> float | None:
        if run is None:
            return None
        peak = self.device.peak_gflops(run.precision, run.timing.peak_clock_mhz)
        return None if peak is None else run.tflops * 1e3 / peak

    def of_peak(self, key: str, large: bool = False) -> float | None:
        """A step's rate / the peak of its units at the SM clock it ran at (measured on the GPU; NVML's
        reading in a record from before issue 29): under dense tensor-core load the H200's clock
        falls well under NVML's reading, and a peak at NVML's clock understates the share."""
        return self._of_peak(self.run(key, large))

    def cublas_of_peak(self, precision: str, large: bool = False) -> float | None:
        return self._of_peak(self.cublas(precision, large))

    def profile(self, key: str):
        """The stored profile of a step's kernel; None without ncu."""
        if not isinstance(self.ncu, NcuProfiles):
            return None
        name = step(key).kernel
        return next((k for k in self.ncu.kernels if k.name == name), None)

    # ----- what cannot be ------------------------------------------------------------------------
    @model_validator(mode="after")
    def _complete(self) -> Lab06Results:
        known = set(ITEMS)
        unknown = sorted(({r.kernel for r in self.runs} | set(self.unavailable) | set(self.unavailable_large)
                          | {c.name for c in self.checks}) - known)
        if unknown:
            raise ValueError(f"runs: unknown kernels {', '.join(unknown)}")
        absent = self.absent_items()
        missing = [k for k in ITEMS if self.run(k) is None and k not in self.unavailable and k not in absent]
        if missing:
            raise ValueError(f"runs: nothing at the main size for {', '.join(missing)}, and no reason given")
        both = sorted(k for k in self.unavailable if self.run(k) is not None)
        if both:
            raise ValueError(f"unavailable: {', '.join(both)} also timed at the main size")
        checked = {c.name for c in self.checks}
        unchecked = sorted({r.kernel for r in self.runs} - checked)
        if unchecked:
            raise ValueError(f"runs: {', '.join(unchecked)} timed but never checked against NumPy")
        return self

    @model_validator(mode="after")
    def _at_the_recorded_sizes(self) -> Lab06Results:
        """Each run at its size: K the recorded depth (the large side's), C at least as large as
        asked (a step whose tile does not divide the side runs at the next multiple of its tile)."""
        sizes = self.sizes
        for r in self.runs:
            side, depth = (sizes.large_side, sizes.large_side) if r.large else (sizes.side, sizes.depth)
            if side is None:
                raise ValueError(f"runs/{r.kernel}: timed at the large side, but the sizes have none")
            if r.depth != depth or r.side < side:
                raise ValueError(f"runs/{r.kernel}: {r.side} x {r.side} x {r.depth}, but the sizes ask for "
                                 f"{side} x {side} x {depth}")
        return self

    def reference_rates(self) -> list[ReferenceRate]:
        """The record's reference measurements beside their peaks (labkit.records.MIN_REFERENCE_SHARE):
        cuBLAS in each precision, against its peak at the clock it ran at."""
        rates = []
        for r in self.runs:
            peak = self.device.peak_gflops(r.precision, r.timing.peak_clock_mhz)
            if peak is not None and r.kernel.startswith("cublas_"):
                rates.append(ReferenceRate(f"runs/{r.kernel} at {r.side}", r.tflops * 1e3, peak, "GFLOP/s",
                                           f"{r.precision} peak"))
        return rates

    @model_validator(mode="after")
    def _mma_roof_possible(self) -> Lab06Results:
        """The register-only mma.sync loop checked right, and no point above the dense FP16 rate."""
        if not isinstance(self.mma_roof, MmaRoof):
            return self
        if not self.mma_roof.check.passed:
            raise ValueError("mma_roof: its launch disagreed with NumPy")
        dense = self.dense_flops_per_clock_per_sm()
        for point in self.mma_roof.points:
            rate = self.mma_roof_point_flops_per_clock(point)
            if dense and rate is not None and rate > dense:
                raise ValueError(f"mma_roof at {point.warps_per_sm} warps per SM: {rate:.0f} FLOP per clock per SM "
                                 f"is above the tensor cores' dense {dense}")
        return self

    @model_validator(mode="after")
    def _physically_possible(self) -> Lab06Results:
        """No run above the peak of the units it runs on at the SM clock it ran at (at the maximum
        clock where none was measured nor read; labkit.records.plausibility holds the clocks read to the part)."""
        for r in self.runs:
            clock = r.timing.peak_clock_mhz
            peak = self.device.peak_gflops(r.precision, clock)
            if peak is not None and r.tflops * 1e3 > peak:
                at = (f"the {clock:g} MHz {'it ran at' if r.timing.clock_source == 'measured' else 'read'}" if clock
                      else "its maximum clock")
                raise ValueError(f"runs/{r.kernel} at {r.side}: {r.tflops:.1f} TFLOP/s is above the GPU's {r.precision} "
                                 f"peak at {at}, {peak / 1e3:.1f} TFLOP/s")
        return self
