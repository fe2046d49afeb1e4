"""What lab 02 records, typed once: the file's shape, its validation and its reading.

Every kernel launch of the lab is a :class:`KernelRun`: its time (median with spread), the
counts the access analyzer predicts for it (traced in the simulator, scaled to the grid) and the
counts Nsight Compute measured (one ncu process, caches flushed per pass): its hardware L1TEX
counters and its instruction-level (SASS) shared-memory counters. Bandwidths, sectors per
request, cycles per warp access, ratios to the copy, the DRAM model's error and the comparison
of the analyzer with ncu are derived. A file that validates holds every launch its sizes ask
for, each once, checks that passed, and no bandwidth above the GPU's theoretical HBM peak where
HBM is what the kernel reads.

What the analyzer is held to (:func:`mismatches`, :func:`hardware_excess`)
    Exactly equal: the four global counters (requests and sectors, loads and stores), the
    executed shared-memory loads and stores, and ncu's instruction-level shared wavefronts and
    bank conflicts (``smsp__sass_l1tex_data_*``: counted per executed ``LDS``/``STS`` from its
    active lanes' addresses). ncu's hardware shared counters (``l1tex__data_*``, the ones its
    Memory Workload Analysis tables show) count, besides, wavefronts the addresses do not
    explain, which vary from run to run for one launch and are zero for an isolated warp (the
    one-warp calibration of labs/02-coalescing/calibration, 451 patterns, equal exactly): time the
    L1TEX data stage, whose SRAM serves L1 and shared memory alike, spends arbitrating with other
    traffic (labkit.models.access, module docstring). What they must show is that excess alone: their
    wavefronts minus their conflicts (the ideal wavefronts) exactly the analyzer's, the same
    excess ``E >= 0`` in both, and ``E`` at most :data:`HARDWARE_EXCESS_BAR` of the wavefronts
    the analyzer predicts (at commit 4cb7254 the excess grew with the wavefronts, conflicts
    included: about 0.5 to 4 % of them in the shared sweep, 12 % for the padded transpose).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from labkit.gpu.timing import Timing
from labkit.labs.base import CheckedResults
from labkit.labs.ceilings import CopyCeiling
from labkit.profiling.sass import MemoryWidths
from labkit.records import Count, NonNegative, Percent, Positive, PositiveInt, Record, ReferenceRate

#: (element bytes, stride in elements, offset in elements) of every point of the global sweep.
SWEEP_POINTS: tuple[tuple[int, int, int], ...] = (
    tuple((4, s, 0) for s in range(1, 33)) + ((4, 33, 0), (4, 48, 0), (4, 64, 0))
    + ((4, 1, 1), (4, 1, 8), (4, 1, 16), (4, 1, 31))
    + tuple((8, s, 0) for s in (1, 2, 3, 4, 8, 16, 32)) + ((8, 1, 1),)
    + tuple((16, s, 0) for s in (1, 2, 3, 4, 8, 16)) + ((16, 1, 1),)
)
SHARED_STRIDES = (1, 2, 3, 4, 5, 6, 7, 8, 12, 16, 17, 24, 31, 32, 33, 48, 63, 64)
SHARED_WIDTHS = (4, 8, 16)
PARTICLE_KERNELS = (("aos", "scalar"), ("soa", "scalar"), ("aos", "vector"), ("soa", "vector"))
TRANSPOSE_KERNELS = ("tile_copy", "transpose_naive", "transpose_tiled", "transpose_padded", "transpose_swizzled")
#: The bars the lab is held to (tests/labs/test_lab02_recorded.py).
TRANSPOSE_BAR = 0.90
COPY_BAR = 0.97
#: Stride 1 against the read roof of the same run, at every element width (issue 29).
READ_ROOF_BAR = 0.95
DRAM_TOLERANCE = 0.05
#: The most of a launch's predicted shared wavefronts (per direction) the hardware counters may add
#: for arbitration. Recorded at commit 4cb7254: up to 11.9 % (the padded transpose's loads, 64 x 4).
HARDWARE_EXCESS_BAR = 0.25
#: The two directions of a shared access, as the field names spell them.
SHARED_OPS = ("ld", "st")

Source = Literal["numba", "cuda_c"]


class Sizes(Record):
    sweep_elements: PositiveInt            # 4-byte elements of a sweep launch; wider ones read the same bytes
    sweep_span_bytes: PositiveInt = 2 << 30   # the most memory one sweep launch's reads may span (plan.py)
    sweep_points: tuple[tuple[int, int, int], ...] = SWEEP_POINTS
    particles: PositiveInt                 # a multiple of 4 x THREADS
    shared_strides: tuple[PositiveInt, ...] = SHARED_STRIDES
    shared_iterations: PositiveInt = 64    # loads of the loop, per thread
    shared_blocks_per_sm: PositiveInt = 32
    matrix_side: PositiveInt = 16384       # of the transposed float32 matrix (a multiple of TILE)
    repeats: PositiveInt = 20


class Counts(Record):
    """A launch's counts, predicted by the analyzer or measured by ncu's hardware counters:
    global requests and sectors, executed shared-memory instructions (warp level), shared
    wavefronts and bank conflicts (:data:`METRICS`), and the DRAM bytes it read.

    ``dram_read_bytes`` is None where the analyzer predicts none (2-D grids).
    """

    ld_requests: NonNegative
    ld_sectors: NonNegative
    st_requests: NonNegative
    st_sectors: NonNegative
    shared_ld_instructions: NonNegative
    shared_st_instructions: NonNegative
    shared_ld_wavefronts: NonNegative
    shared_ld_conflicts: NonNegative
    shared_st_wavefronts: NonNegative
    shared_st_conflicts: NonNegative
    dram_read_bytes: NonNegative | None
    # Issue 29, measured by ncu only (None in the analyzer's predictions and in records from before):
    # where the particles' time goes besides DRAM reads (PROFILE_METRICS).
    dram_write_bytes: NonNegative | None = None
    l1tex_throughput_pct: Percent | None = None
    lsu_pipe_pct: Percent | None = None

    def counters(self) -> dict[str, float]:
        return self.model_dump(exclude={"dram_read_bytes", *PROFILE_METRICS})

    def ideal_wavefronts(self, op: str) -> float:
        """Wavefronts minus bank conflicts, ``op`` 'ld' or 'st': the conflict-free wavefronts."""
        return getattr(self, f"shared_{op}_wavefronts") - getattr(self, f"shared_{op}_conflicts")

    @property
    def ld_sectors_per_request(self) -> float | None:
        return self.ld_sectors / self.ld_requests if self.ld_requests else None

    @property
    def st_sectors_per_request(self) -> float | None:
        return self.st_sectors / self.st_requests if self.st_requests else None


class SassShared(Record):
    """ncu's instruction-level shared-memory counts of a launch (SASS patching): the wavefronts
    of each executed ``LDS``/``STS``, from its active lanes' addresses (:data:`SASS_METRICS`).
    The Source page's "L1 Wavefronts Shared" reads the same. ncu 2025.3.1 has no instruction-level
    bank-conflict counter for LDS/STS on gh100 (``ncu --query-metrics`` lists
    ``smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_*`` for LDGSTS, LDSM and STSM
    only): the conflicts at instruction level are these wavefronts minus the ideal ones, which the
    hardware counters give exactly (:meth:`KernelRun.instruction_conflicts`)."""

    shared_ld_wavefronts: NonNegative
    shared_st_wavefronts: NonNegative


#: The ncu metric of each hardware counter of :class:`Counts` (labkit.models.access.NCU_METRICS spells
#: the global and l1tex__data names too).
METRICS = {
    "ld_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "ld_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "st_requests": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "st_sectors": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "shared_ld_instructions": "smsp__inst_executed_op_shared_ld.sum",
    "shared_st_instructions": "smsp__inst_executed_op_shared_st.sum",
    "shared_ld_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_ld_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "shared_st_conflicts": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "dram_read_bytes": "dram__bytes_read.sum",
}
#: ncu's metrics behind :class:`Counts`' issue-29 fields: DRAM bytes written; L1TEX's throughput
#: (its busiest sub-unit, % of peak over the elapsed time, as the Memory Workload Analysis shows it);
#: the LSU pipe's issue utilisation (% of its peak while the SMs were active).
PROFILE_METRICS = {
    "dram_write_bytes": "dram__bytes_write.sum",
    "l1tex_throughput_pct": "l1tex__throughput.avg.pct_of_peak_sustained_elapsed",
    "lsu_pipe_pct": "sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active",
}
#: The ncu metric of each field of :class:`SassShared`.
SASS_METRICS = {
    "shared_ld_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "shared_st_wavefronts": "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
}
#: The counters of :class:`Counts` that the analyzer must equal exactly, as ncu's hardware counts them.
EXACT_HARDWARE = ("ld_requests", "ld_sectors", "st_requests", "st_sectors", "shared_ld_instructions",
                  "shared_st_instructions")


def hardware_excess(predicted: Counts, measured: Counts, op: str) -> float:
    """ncu's hardware shared wavefronts minus the analyzer's, ``op`` 'ld' or 'st': what the
    L1TEX data stage spent on arbitration with other traffic (module docstring)."""
    field = f"shared_{op}_wavefronts"
    return getattr(measured, field) - getattr(predicted, field)


def mismatches(predicted: Counts, measured: Counts, sass: SassShared) -> list[str]:
    """What breaks the lab's claim for one launch (module docstring), one phrase each; empty
    when it holds: an exact counter that differs, hardware ideal wavefronts that differ, a
    hardware excess below zero or above :data:`HARDWARE_EXCESS_BAR` of the predicted wavefronts."""
    out = [f"{name}: ncu {getattr(measured, name):.0f}, analyzer {getattr(predicted, name):.0f}"
           for name in EXACT_HARDWARE if getattr(measured, name) != getattr(predicted, name)]
    out += [f"{name} (instruction level): ncu {value:.0f}, analyzer {getattr(predicted, name):.0f}"
            for name, value in sass.model_dump().items() if value != getattr(predicted, name)]
    for op in SHARED_OPS:
        ideal = predicted.ideal_wavefronts(op)
        if measured.ideal_wavefronts(op) != ideal:
            out.append(f"shared_{op} ideal wavefronts (hardware): ncu {measured.ideal_wavefronts(op):.0f}, "
                       f"analyzer {ideal:.0f}")
        excess, wavefronts = hardware_excess(predicted, measured, op), getattr(predicted, f"shared_{op}_wavefronts")
        if excess < 0 or excess > HARDWARE_EXCESS_BAR * wavefronts:
            out.append(f"shared_{op} hardware excess {excess:.0f} outside [0, {HARDWARE_EXCESS_BAR} x {wavefronts:.0f}]")
    return out


class KernelRun(Record):
    """One launch: its name in the lab, its kernel, its time, the analyzer's counts and ncu's."""

    launch: str
    kernel: str
    source: Source
    timing: Timing
    predicted: Counts
    measured: Counts | None        # None: ncu did not run (see Lab02Results.ncu)
    measured_sass: SassShared | None   # ncu's instruction-level shared counts; None without ncu

    def mismatches(self) -> list[str] | None:
        """What breaks the lab's claim for this launch (:func:`mismatches`); None without ncu."""
        if self.measured is None or self.measured_sass is None:
            return None
        return mismatches(self.predicted, self.measured, self.measured_sass)

    @property
    def counters_agree(self) -> bool | None:
        """The lab's claim holds for this launch (module docstring); None without ncu."""
        found = self.mismatches()
        return None if found is None else not found

    def instruction_conflicts(self, op: str) -> float | None:
        """Bank conflicts of ``op`` at instruction level: ncu's instruction-level wavefronts minus
        the ideal wavefronts (its hardware wavefronts minus its hardware conflicts, which arbitration
        leaves exact); None without ncu."""
        if self.measured is None or self.measured_sass is None:
            return None
        return getattr(self.measured_sass, f"shared_{op}_wavefronts") - self.measured.ideal_wavefronts(op)

    def excess_share(self, op: str) -> float | None:
        """The hardware excess over the predicted wavefronts of ``op``; None without ncu or shared accesses."""
        wavefronts = getattr(self.predicted, f"shared_{op}_wavefronts")
        if self.measured is None or not wavefronts:
            return None
        return hardware_excess(self.predicted, self.measured, op) / wavefronts


def sweep_launch(element_bytes: int, stride: int, offset: int) -> str:
    """The lab's name of a sweep launch (labkit.labs.lab02.plan names them so): ``sweep.4B.s2.o0``."""
    return f"sweep.{element_bytes}B.s{stride}.o{offset}"


def particles_launch(layout: str, access: str) -> str:
    return f"particles.{layout}.{access}"


def shared_launch(element_bytes: int, stride: int) -> str:
    return f"shared.{element_bytes}B.s{stride}"


def transpose_launch(kernel: str) -> str:
    return f"transpose.{kernel}"


class SweepPoint(Record):
    element_bytes: Literal[4, 8, 16]
    stride: PositiveInt
    offset: Count                  # elements
    elements: PositiveInt          # read, one per thread
    run: KernelRun

    @property
    def launch_name(self) -> str:
        return sweep_launch(self.element_bytes, self.stride, self.offset)

    @property
    def useful_bytes(self) -> int:
        return self.elements * self.element_bytes

    @property
    def useful_gbps(self) -> float:
        return self.run.timing.gbps(self.useful_bytes)

    @property
    def dram_error(self) -> float | None:
        """ncu's DRAM bytes / the predicted ones - 1."""
        measured, predicted = self.run.measured, self.run.predicted
        if measured is None or not predicted.dram_read_bytes:
            return None
        return measured.dram_read_bytes / predicted.dram_read_bytes - 1


class ParticleRun(Record):
    layout: Literal["aos", "soa"]
    access: Literal["scalar", "vector"]
    particles: PositiveInt
    useful_bytes: PositiveInt      # positions and velocities read, positions written
    run: KernelRun

    @property
    def launch_name(self) -> str:
        return particles_launch(self.layout, self.access)

    @property
    def useful_gbps(self) -> float:
        return self.run.timing.gbps(self.useful_bytes)


class SharedPoint(Record):
    element_bytes: Literal[4, 8, 16]
    stride: PositiveInt
    iterations: PositiveInt
    warps: PositiveInt             # of the whole launch
    run: KernelRun

    @property
    def launch_name(self) -> str:
        return shared_launch(self.element_bytes, self.stride)

    @property
    def warp_accesses(self) -> int:
        """Shared loads of the loop, warp-level: what the time per access divides."""
        return self.warps * self.iterations

    @property
    def predicted_wavefronts_per_access(self) -> float:
        """The loop's wavefronts per warp-level load (the fill's stores are counted apart)."""
        return self.run.predicted.shared_ld_wavefronts / self.warp_accesses


class SharedBaseline(Record):
    """The shared sweep kernel with no iteration: the fill and the final store alone."""

    element_bytes: Literal[4, 8, 16]
    timing: Timing


class TransposeRun(Record):
    kernel: Literal["tile_copy", "transpose_naive", "transpose_tiled", "transpose_padded", "transpose_swizzled"]
    moved_bytes: PositiveInt       # read + written
    run: KernelRun

    @property
    def launch_name(self) -> str:
        return transpose_launch(self.kernel)

    @property
    def gbps(self) -> float:
        return self.run.timing.gbps(self.moved_bytes)


class ReadRoof(Record):
    """The read-only roof (labkit.kernels.coalescing_cuda's ``read_roof``: coalesced 16-byte loads,
    L2 flushed) over ``read_bytes`` of the sweep's buffer, timed as the sweep is."""

    read_bytes: PositiveInt
    timing: Timing

    @property
    def gbps(self) -> float:
        return self.timing.gbps(self.read_bytes)


class Unavailable(Record):
    status: Literal["unavailable"]
    reason: str


class NcuRun(Record):
    status: Literal["ok"]
    version: str
    seconds: Positive


class SassListing(Record):
    status: Literal["ok"]
    kernels: dict[str, MemoryWidths]


class DeviceFigures(Record):
    sm_count: PositiveInt
    max_sm_clock_mhz: Positive
    hbm_peak_gbps: Positive
    #: The driver's cudaLimitMaxL2FetchGranularity (bytes), None where it could not be read.
    l2_fetch_granularity_bytes: Count | None


class Lab02Results(CheckedResults):
    sizes: Sizes
    device: DeviceFigures
    tile: PositiveInt              # the transposes' tile side and thread rows
    rows: PositiveInt
    sweep: list[SweepPoint]
    particles: list[ParticleRun]
    shared: list[SharedPoint]
    shared_baselines: list[SharedBaseline]
    transposes: list[TransposeRun]
    cupy_copyto: Timing | None     # the same bytes by cupy.copyto; None without CuPy
    ncu: Annotated[NcuRun | Unavailable, Field(discriminator="status")]
    sass: Annotated[SassListing | Unavailable, Field(discriminator="status")]
    #: The course's copy ceiling in the same run (labkit.labs.ceilings); None in records made before it.
    copy_ceiling: CopyCeiling | None = None
    #: The read-only roof in the same run, over the sweep's whole span then over an eighth of it
    #: (issue 29); None in records made before it.
    read_roofs: list[ReadRoof] | None = None

    # ----- what is derived ---------------------------------------------------------------
    def runs(self) -> list[KernelRun]:
        return ([p.run for p in self.sweep] + [p.run for p in self.particles] + [p.run for p in self.shared]
                + [t.run for t in self.transposes])

    def particle(self, layout: str, access: str) -> ParticleRun:
        return next(p for p in self.particles if (p.layout, p.access) == (layout, access))

    def sweep_point(self, element_bytes: int, stride: int, offset: int = 0) -> SweepPoint:
        return next(p for p in self.sweep if (p.element_bytes, p.stride, p.offset) == (element_bytes, stride, offset))

    def transpose(self, kernel: str) -> TransposeRun:
        return next(t for t in self.transposes if t.kernel == kernel)

    def vs_copy(self, kernel: str) -> float:
        """A transpose's bandwidth / the lab's copy of the same bytes (medians, same run)."""
        return self.transpose(kernel).gbps / self.transpose("tile_copy").gbps

    @property
    def copy_vs_cupy(self) -> float | None:
        if self.cupy_copyto is None:
            return None
        copy = self.transpose("tile_copy")
        return copy.gbps / self.cupy_copyto.gbps(copy.moved_bytes)

    def of_ceiling(self, gbps: float) -> float | None:
        """A bandwidth over the course's copy ceiling measured in the same run; None without it."""
        return None if self.copy_ceiling is None else gbps / self.copy_ceiling.gbps

    @property
    def read_roof(self) -> ReadRoof | None:
        """The read roof over the sweep's whole span (the longest launch): the sweep's roof."""
        return max(self.read_roofs, key=lambda roof: roof.read_bytes) if self.read_roofs else None

    @property
    def read_roof_fixed_seconds(self) -> float | None:
        """What a read_roof launch costs besides its bytes, from its two sizes: with t = a + bytes / B,
        a = (t_short x bytes_long - t_long x bytes_short) / (bytes_long - bytes_short); None with fewer
        than two sizes."""
        if not self.read_roofs or len({roof.read_bytes for roof in self.read_roofs}) < 2:
            return None
        short, long = min(self.read_roofs, key=lambda r: r.read_bytes), self.read_roof
        t_short, t_long = short.timing.median_seconds, long.timing.median_seconds
        return (t_short * long.read_bytes - t_long * short.read_bytes) / (long.read_bytes - short.read_bytes)

    def of_read_roof(self, gbps: float) -> float | None:
        """A bandwidth over the read roof measured in the same run; None in a record without it."""
        roof = self.read_roof
        return None if roof is None else gbps / roof.gbps

    def dram_share_of_read_roof(self, point: SweepPoint) -> float | None:
        """The rate at which DRAM delivers what a sweep point makes it fetch (the analyzer's bytes)
        over the read roof of the same run."""
        return self.of_read_roof(point.run.timing.gbps(point.run.predicted.dram_read_bytes))

    def dram_share_of_ceiling(self, point: SweepPoint) -> float | None:
        """The rate at which DRAM delivers what a sweep point makes it fetch (the analyzer's bytes:
        sectors rounded up to 64-byte fetches) over the copy ceiling of the same run."""
        return self.of_ceiling(point.run.timing.gbps(point.run.predicted.dram_read_bytes))

    def dram_share_at_byte_stride(self, byte_stride: int, roof: Literal["copy", "read"] = "copy") -> float:
        """dram_share_of_ceiling (``roof`` "copy") or dram_share_of_read_roof ("read") of the aligned
        sweep points whose elements lie ``byte_stride`` bytes apart (stride x element bytes), the
        lowest where several widths give that stride."""
        share = self.dram_share_of_ceiling if roof == "copy" else self.dram_share_of_read_roof
        shares = [share(p) for p in self.sweep if p.offset == 0 and p.stride * p.element_bytes == byte_stride]
        if not shares or None in shares:
            raise ValueError(f"no aligned sweep point with a {byte_stride}-byte stride and a {roof} roof")
        return min(shares)

    def baseline(self, element_bytes: int) -> Timing:
        return next(b.timing for b in self.shared_baselines if b.element_bytes == element_bytes)

    def cycles_per_warp_access(self, point: SharedPoint) -> float:
        """(t(iterations) - t(0)) x SM clock x SMs / warp-level loads: the loop's cost per access
        per SM, in SM cycles (at the clock it ran at, measured on the GPU; NVML's reading in a record
        from before issue 29; the maximum where neither exists)."""
        timing = point.run.timing
        clock_mhz = timing.peak_clock_mhz or self.device.max_sm_clock_mhz
        seconds = max(timing.median_seconds - self.baseline(point.element_bytes).median_seconds, 0.0)
        return seconds * clock_mhz * 1e6 * self.device.sm_count / point.warp_accesses

    # ----- what cannot be -----------------------------------------------------------------
    @model_validator(mode="after")
    def _complete(self) -> Lab02Results:
        for what, found, expected in (
                ("sweep", [(p.element_bytes, p.stride, p.offset) for p in self.sweep], list(self.sizes.sweep_points)),
                ("particles", [(p.layout, p.access) for p in self.particles], list(PARTICLE_KERNELS)),
                ("shared", [(p.element_bytes, p.stride) for p in self.shared],
                 [(w, s) for w in SHARED_WIDTHS for s in self.sizes.shared_strides]),
                ("shared_baselines", [b.element_bytes for b in self.shared_baselines], list(SHARED_WIDTHS)),
                ("transposes", [t.kernel for t in self.transposes], list(TRANSPOSE_KERNELS))):
            if [tuple(x) if isinstance(x, list) else x for x in found] != expected:
                raise ValueError(f"{what}: holds {found}, expected {expected}, each once, in that order")
        for point in [*self.sweep, *self.particles, *self.shared, *self.transposes]:
            if point.run.launch != point.launch_name:
                raise ValueError(f"a kernel run's launch is {point.run.launch!r}, which is not a launch of this lab: "
                                 f"the run of {point.launch_name} must be named so")
        if isinstance(self.ncu, NcuRun) and any(run.measured is None or run.measured_sass is None
                                                for run in self.runs()):
            raise ValueError("ncu ran, yet a kernel run has no measured counts (hardware or instruction level)")
        return self

    def reference_rates(self) -> list[ReferenceRate]:
        """The record's reference measurements beside their peaks (labkit.records.MIN_REFERENCE_SHARE):
        the lab's tile copy and the course's copy ceiling."""
        peak = self.device.hbm_peak_gbps
        rates = [ReferenceRate("transposes/tile_copy", self.transpose("tile_copy").gbps, peak, "GB/s",
                               "theoretical HBM peak")]
        if self.copy_ceiling is not None:
            rates.append(ReferenceRate("copy_ceiling", self.copy_ceiling.gbps, peak, "GB/s", "theoretical HBM peak"))
        return rates

    @model_validator(mode="after")
    def _physically_possible(self) -> Lab02Results:
        """What a kernel reads from DRAM in its time is at most the theoretical HBM peak."""
        peak = self.device.hbm_peak_gbps
        for run in self.runs():
            counts = run.measured or run.predicted
            if counts.dram_read_bytes and run.timing.gbps(counts.dram_read_bytes) > peak:
                raise ValueError(f"{run.launch}: {run.timing.gbps(counts.dram_read_bytes):.0f} GB/s read from DRAM is "
                                 f"above the GPU's theoretical HBM peak {peak:.0f} GB/s")
        for roof in self.read_roofs or []:
            if roof.gbps > peak:
                raise ValueError(f"read roof over {roof.read_bytes} bytes: {roof.gbps:.0f} GB/s is above the theoretical "
                                 f"HBM peak {peak:.0f} GB/s")
        for t in self.transposes:
            if t.gbps > peak:
                raise ValueError(f"{t.kernel}: {t.gbps:.0f} GB/s is above the theoretical HBM peak {peak:.0f} GB/s")
        return self
