"""What lab 01 records, typed once: the file's shape, its validation and its reading.

Stored are the measurements (timings, FLOP and byte counts, clocks) and the recorded GPU's
theoretical figures; every ratio, rate and verdict is derived here, from them. A file that
validates is physically possible on its GPU: no bandwidth above its theoretical HBM peak, no
FLOP rate above its FMA peak, no kernel faster than its t_min on those peaks.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from labkit.gpu.device import fma_peak_gflops
from labkit.gpu.timing import Timing
from labkit.labs.base import CheckedResults
from labkit.models import roofline, workloads
from labkit.models.tensor_cores import tensor_peak_gflops
from labkit.records import Count, NonNegative, Positive, PositiveInt, Record, ReferenceRate

#: FMAs per element of each sweep point (0: one add). I = 1/8 for the add, fmas / 4 otherwise.
SWEEP_FMAS = (0, 1, 2, 4, 8, 16, 32, 48, 64, 128, 256, 512, 1024)
SAMPLE_KERNELS = ("saxpy", "reduction", "gemm_tile32", "stencil_5pt")
#: A sweep point counts as on the roof within this fraction of min(P, I x B), both measured.
ROOF_TOLERANCE = 0.10

SampleKernel = Literal["saxpy", "reduction", "gemm_tile32", "stencil_5pt"]


class Sizes(Record):
    copy_bytes: PositiveInt
    fma_blocks_per_sm: PositiveInt
    fma_threads: PositiveInt
    fma_trips: PositiveInt
    sweep_elements: PositiveInt   # a multiple of SWEEP_THREADS x SWEEP_ELEMENTS_PER_THREAD (roofline_kernels)
    vector_elements: PositiveInt  # SAXPY and the reduction
    gemm_n: PositiveInt
    stencil_n: PositiveInt
    repeats: PositiveInt
    sweep_fmas: tuple[Annotated[int, Field(ge=0)], ...] = SWEEP_FMAS   # the sweep's points
    tensor_n: PositiveInt = 8192   # the tensor-core ceilings: cuBLAS at tensor_n^3


class DevicePeaks(Record):
    """The recorded GPU's theoretical figures: the ceilings no measurement can pass."""

    sm_count: PositiveInt
    max_sm_clock_mhz: Positive
    hbm_peak_gbps: Positive
    fp32_lanes_per_sm: PositiveInt
    fp64_lanes_per_sm: PositiveInt
    compute_capability: tuple[int, int] | None = None   # for the tensor cores' rates (labkit.models.tensor_cores)

    def tensor_peak_gflops(self, precision: str, sm_clock_mhz: float | None = None) -> float | None:
        """The tensor cores' dense peak at the clock (labkit.models.tensor_cores); None where it is not known."""
        if self.compute_capability is None:
            return None
        return tensor_peak_gflops(self.sm_count, self.compute_capability, precision,
                                  sm_clock_mhz or self.max_sm_clock_mhz)

    def lanes(self, precision: str) -> int:
        return self.fp32_lanes_per_sm if precision == "fp32" else self.fp64_lanes_per_sm

    def peak_gflops(self, precision: str, sm_clock_mhz: float | None = None) -> float:
        """SMs x lanes x 2 x clock (the maximum clock unless one is given)."""
        return fma_peak_gflops(self.sm_count, self.lanes(precision), sm_clock_mhz or self.max_sm_clock_mhz)


class BandwidthCeiling(Record):
    """labkit's copy (bytes read + written) against a reference: cupy.copyto, or the theoretical peak."""

    copy_bytes: PositiveInt            # read + written
    timing: Timing
    reference_gbps: Positive
    reference_is: Literal["cupy_copyto", "theoretical"]

    @property
    def gbps(self) -> float:
        return self.timing.gbps(self.copy_bytes)


class FmaCeiling(Record):
    """FMA chains: FLOPs over the median time, against the peak at the SM clock the chains ran at
    (measured on the GPU: labkit.gpu.timing); ``sm_clock_mhz`` is NVML's reading, kept as provenance."""

    flops: Positive
    timing: Timing
    sm_clock_mhz: Positive

    @property
    def gflops(self) -> float:
        return self.timing.gflops(self.flops)

    @property
    def clock_mhz(self) -> float:
        """The clock of its reference peak: measured where the record has it, else NVML's reading."""
        return self.timing.sm_clock_ran_mhz or self.sm_clock_mhz


class Ceilings(Record):
    hbm: BandwidthCeiling
    fp32: FmaCeiling
    fp64: FmaCeiling


#: The tensor-core ceilings lab 01 measures (cuBLAS through CuPy; FP8 through PyTorch's cuBLASLt).
TENSOR_PRECISIONS = ("tf32", "fp16", "bf16", "fp8", "fp64")
TensorPrecision = Literal["tf32", "fp16", "bf16", "fp8", "fp64"]


class TensorCeiling(Record):
    """A tensor-core ceiling: a large matrix product through the vendor's library (n^3, 2 n^3 FLOP),
    against the dense peak at the SM clock read while it ran; or why it could not be measured."""

    precision: TensorPrecision
    library: str                       # "cuBLAS (cublasGemmEx)" or "cuBLASLt (torch._scaled_mm)"
    n: PositiveInt
    timing: Timing | None
    unavailable: str | None = None

    @property
    def gflops(self) -> float | None:
        return None if self.timing is None else self.timing.gflops(2.0 * self.n**3)


class SweepPoint(Record):
    """One point of the intensity sweep: the same kernel with ``fmas`` FMAs per element."""

    fmas: Count
    flops: Positive
    moved_bytes: Positive
    timing: Timing

    @property
    def intensity(self) -> float:
        return self.flops / self.moved_bytes

    @property
    def gflops(self) -> float:
        return self.timing.gflops(self.flops)


class Placement(Record):
    """One of chapter 1's kernels, measured: its work (labkit.models.workloads) and its time."""

    kernel: SampleKernel
    flops: Positive
    moved_bytes: Positive
    timing: Timing

    @property
    def intensity(self) -> float:
        return self.flops / self.moved_bytes

    @property
    def t_real_seconds(self) -> float:
        return self.timing.median_seconds

    @property
    def gflops(self) -> float:
        return self.flops / self.t_real_seconds / 1e9


def sample_workload(kernel: str, sizes: Sizes) -> workloads.Workload:
    """Chapter 1's sample kernel ``kernel`` at ``sizes``, as labkit.models.workloads counts it."""
    return {"saxpy": lambda: workloads.saxpy(sizes.vector_elements),
            "reduction": lambda: workloads.reduction(sizes.vector_elements),
            "gemm_tile32": lambda: workloads.gemm_tiled(sizes.gemm_n, 32),
            "stencil_5pt": lambda: workloads.stencil_5pt(sizes.stencil_n)}[kernel]()


#: ncu's metrics behind :class:`PlacedTraffic`: the bytes DRAM read and wrote during the launch.
TRAFFIC_METRICS = {"dram_read_bytes": "dram__bytes_read.sum", "dram_write_bytes": "dram__bytes_write.sum"}


class PlacedTraffic(Record):
    """What DRAM moved for one placed kernel, as ncu counted it (one launch, caches flushed before
    it, clocks untouched): the evidence that tells excess bytes from excess time. Lines still dirty
    in L2 when the kernel ends are not in ``dram_write_bytes`` (at most the L2's size)."""

    kernel: SampleKernel
    dram_read_bytes: NonNegative
    dram_write_bytes: NonNegative

    @property
    def dram_bytes(self) -> float:
        return self.dram_read_bytes + self.dram_write_bytes


class PlacementProfile(Record):
    status: Literal["ok"]
    version: str                       # ncu's
    kernels: list[PlacedTraffic]


class Unavailable(Record):
    """A step that could not run on the measuring machine, and why."""

    status: Literal["unavailable"]
    reason: str


class Lab01Results(CheckedResults):
    sizes: Sizes
    device: DevicePeaks
    ceilings: Ceilings
    sweep: list[SweepPoint]
    placement: list[Placement]
    tensor: list[TensorCeiling] = []   # empty in records made before lab 01 measured them
    #: The placed kernels' DRAM bytes (ncu); None in records made before issue 29.
    traffic: Annotated[PlacementProfile | Unavailable, Field(discriminator="status")] | None = None

    # ----- what is derived ---------------------------------------------------------------
    @property
    def peak_gflops(self) -> float:
        """P, measured: the FP32 FMA ceiling."""
        return self.ceilings.fp32.gflops

    @property
    def bandwidth_gbps(self) -> float:
        """B, measured: the copy ceiling."""
        return self.ceilings.hbm.gbps

    def reference_gflops(self, precision: str) -> float:
        """The FMA peak at the clock that ceiling's chains ran at (FmaCeiling.clock_mhz)."""
        return self.device.peak_gflops(precision, getattr(self.ceilings, precision).clock_mhz)

    def tensor_reference_gflops(self, ceiling: TensorCeiling) -> float | None:
        """The tensor cores' dense peak at the clock that library product ran at (measured on the
        GPU; NVML's reading in a record from before issue 29): each library rate against its own
        clock, since dense tensor-core load lowers the clock (1.56 GHz for cuBLAS FP16 on the H200)."""
        clock = ceiling.timing.peak_clock_mhz if ceiling.timing else None
        return self.device.tensor_peak_gflops(ceiling.precision, clock)

    def ridge(self, gflops: float) -> float:
        """The intensity at which a roof of ``gflops`` meets the measured bandwidth: P / B (FLOP/byte)."""
        return roofline.ridge_point(gflops, self.bandwidth_gbps)

    def roof_gflops(self, intensity: float) -> float:
        """The measured roof at ``intensity``: min(P, I x B)."""
        return roofline.attainable_gflops(intensity, self.peak_gflops, self.bandwidth_gbps)

    def of_roof(self, point: SweepPoint) -> float:
        return point.gflops / self.roof_gflops(point.intensity)

    def on_roof(self, point: SweepPoint) -> bool:
        """Within ROOF_TOLERANCE of the measured roof."""
        return self.of_roof(point) >= 1 - ROOF_TOLERANCE

    def ceiling_seconds(self, kernel: Placement) -> dict[roofline.Bound, float]:
        """The time each ceiling alone allows: DRAM bytes / B and FLOPs / P (both measured), and
        shared-memory wavefronts at one per SM per clock (at the SM clock it ran at)."""
        clock = kernel.timing.peak_clock_mhz or self.device.max_sm_clock_mhz
        return {roofline.Bound.MEMORY: kernel.moved_bytes / (self.bandwidth_gbps * 1e9),
                roofline.Bound.COMPUTE: kernel.flops / (self.peak_gflops * 1e9),
                roofline.Bound.SHARED: roofline.shared_seconds(
                    sample_workload(kernel.kernel, self.sizes).shared_wavefronts, self.device.sm_count, clock)}

    def placed(self, name: str) -> Placement:
        return next(row for row in self.placement if row.kernel == name)

    def memory_roof_share(self, kernel: Placement) -> float:
        """The kernel's own bytes (labkit.models.workloads' minimum) per second, over the measured copy
        bandwidth: 1 / r for a memory-bound kernel."""
        return kernel.moved_bytes / kernel.t_real_seconds / (self.bandwidth_gbps * 1e9)

    def traffic_of(self, name: str) -> PlacedTraffic | None:
        """ncu's DRAM bytes of placed kernel ``name``; None where ncu did not run (or before issue 29)."""
        if not isinstance(self.traffic, PlacementProfile):
            return None
        return next((row for row in self.traffic.kernels if row.kernel == name), None)

    def dram_over_minimum(self, kernel: Placement) -> float | None:
        """DRAM bytes read + written (ncu) over the kernel's minimum traffic (labkit.models.workloads): 1 when
        it moves exactly what it must, more when it moves bytes in excess; None without ncu."""
        traffic = self.traffic_of(kernel.kernel)
        return None if traffic is None else traffic.dram_bytes / kernel.moved_bytes

    def dram_share_of_roof(self, kernel: Placement) -> float | None:
        """The DRAM bytes it really moved (ncu) per second of its median time, over the measured copy
        bandwidth: how busy it kept DRAM; None without ncu."""
        traffic = self.traffic_of(kernel.kernel)
        return None if traffic is None else traffic.dram_bytes / kernel.t_real_seconds / (self.bandwidth_gbps * 1e9)

    def tensor_ceiling(self, precision: str) -> TensorCeiling | None:
        return next((ceiling for ceiling in self.tensor if ceiling.precision == precision), None)

    def t_min_seconds(self, kernel: Placement) -> float:
        """t_min: the slowest of the ceilings (a hierarchical roofline)."""
        return max(self.ceiling_seconds(kernel).values())

    def t_ratio(self, kernel: Placement) -> float:
        return kernel.t_real_seconds / self.t_min_seconds(kernel)

    def verdict(self, kernel: Placement) -> roofline.Verdict:
        return roofline.verdict(kernel.t_real_seconds, self.t_min_seconds(kernel))

    def bound(self, kernel: Placement) -> roofline.Bound:
        """The ceiling that binds: the one whose time is t_min."""
        times = self.ceiling_seconds(kernel)
        return max(times, key=times.get)

    # ----- what cannot be -----------------------------------------------------------------
    @model_validator(mode="after")
    def _complete(self) -> Lab01Results:
        if tuple(point.fmas for point in self.sweep) != self.sizes.sweep_fmas:
            raise ValueError(f"sweep: FMAs per element {[p.fmas for p in self.sweep]}, expected "
                             f"{list(self.sizes.sweep_fmas)} (sizes/sweep_fmas)")
        if tuple(row.kernel for row in self.placement) != SAMPLE_KERNELS:
            raise ValueError(f"placement: kernels {[r.kernel for r in self.placement]}, "
                             f"expected {list(SAMPLE_KERNELS)}")
        if isinstance(self.traffic, PlacementProfile) and tuple(t.kernel for t in self.traffic.kernels) != SAMPLE_KERNELS:
            raise ValueError(f"traffic: kernels {[t.kernel for t in self.traffic.kernels]}, "
                             f"expected {list(SAMPLE_KERNELS)}")
        return self

    def reference_rates(self) -> list[ReferenceRate]:
        """The record's reference measurements beside their peaks (labkit.records.MIN_REFERENCE_SHARE):
        the copy ceiling, the FMA ceilings, cuBLAS on the tensor cores."""
        peak = self.device.hbm_peak_gbps
        rates = [ReferenceRate("ceilings/hbm", self.ceilings.hbm.gbps, peak, "GB/s", "theoretical HBM peak")]
        rates += [ReferenceRate(f"ceilings/{p}", getattr(self.ceilings, p).gflops, self.reference_gflops(p), "GFLOP/s",
                                "FMA peak") for p in ("fp32", "fp64")]
        for ceiling in self.tensor:
            top = self.device.tensor_peak_gflops(ceiling.precision)
            if ceiling.gflops is not None and top is not None:
                rates.append(ReferenceRate(f"tensor/{ceiling.precision}", ceiling.gflops, top, "GFLOP/s",
                                           "tensor cores' dense peak"))
        return rates

    @model_validator(mode="after")
    def _physically_possible(self) -> Lab01Results:
        """Nothing above the recorded GPU's theoretical peaks, nothing faster than t_min on them."""
        hbm, device = self.ceilings.hbm, self.device
        for what, gbps in (("ceilings/hbm", hbm.gbps), ("ceilings/hbm/reference_gbps", hbm.reference_gbps)):
            if gbps > device.hbm_peak_gbps:
                raise ValueError(f"{what}: {gbps:.0f} GB/s is above the GPU's theoretical HBM peak "
                                 f"{device.hbm_peak_gbps:.0f} GB/s")
        for precision in ("fp32", "fp64"):
            ceiling, peak = getattr(self.ceilings, precision), self.reference_gflops(precision)
            if ceiling.gflops > peak:
                raise ValueError(f"ceilings/{precision}: {ceiling.gflops:.0f} GFLOP/s is above the FMA peak "
                                 f"{peak:.0f} GFLOP/s at the {ceiling.clock_mhz:g} MHz "
                                 f"{'it ran at' if ceiling.timing.sm_clock_ran_mhz else 'read'}")
        for ceiling in self.tensor:
            top = self.device.tensor_peak_gflops(ceiling.precision)   # at the maximum clock
            if ceiling.gflops is not None and top is not None and ceiling.gflops > top:
                raise ValueError(f"tensor/{ceiling.precision}: {ceiling.gflops:.0f} GFLOP/s is above the tensor cores' "
                                 f"dense peak {top:.0f} GFLOP/s")
            if (ceiling.timing is None) == (ceiling.unavailable is None):
                raise ValueError(f"tensor/{ceiling.precision}: give a timing or the reason there is none, not both")
        peak = device.peak_gflops("fp32")
        for point in self.sweep:
            roof = roofline.attainable_gflops(point.intensity, peak, device.hbm_peak_gbps)
            if point.gflops > roof:
                raise ValueError(f"sweep point at I = {point.intensity:g}: {point.gflops:.0f} GFLOP/s is above the "
                                 f"theoretical roof min(P, I x B) = {roof:.0f} GFLOP/s")
        for kernel in self.placement:
            floor = max(roofline.t_min_seconds(kernel.flops, kernel.moved_bytes, peak, device.hbm_peak_gbps),
                        roofline.shared_seconds(sample_workload(kernel.kernel, self.sizes).shared_wavefronts,
                                                device.sm_count, device.max_sm_clock_mhz))
            if kernel.t_real_seconds < floor:
                raise ValueError(f"placement {kernel.kernel}: t_real {kernel.t_real_seconds:.3g} s is below t_min "
                                 f"{floor:.3g} s on the theoretical peaks")
        return self
