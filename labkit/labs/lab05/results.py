"""What lab 05 records, typed once: each mystery kernel's time and its repaired twin's, the copy
ceiling measured in the same run, and Nsight Compute's profile of every kernel (diagnosed on reading).

A file that validates holds every mystery once, in order, a twin for each but the control, every
profiled kernel once, checks that passed, and no bandwidth above the GPU's theoretical HBM peak.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from labkit.gpu.timing import Timing
from labkit.kernels.mysteries_launch import THREADS
from labkit.labs.base import CheckedResults
from labkit.labs.lab04.results import NcuProfiles, Unavailable
from labkit.records import Positive, PositiveInt, Record, ReferenceRate

Mystery = Literal["a", "b", "c", "d", "e", "f", "g", "h"]
MYSTERIES: tuple[str, ...] = ("a", "b", "c", "d", "e", "f", "g", "h")
#: The flaw planted in each mystery kernel, as the checklist item that repairs it; None: the control.
PLANTED: dict[str, str | None] = {
    "a": "coalescing", "b": "fp64", "c": "launch", "d": "bank-conflicts", "e": None,
    "f": "local-memory", "g": "occupancy", "h": "divergence",
}
CONTROL = "e"
#: The kernels Nsight Compute profiles: each mystery and each twin.
PROFILED_KERNELS: tuple[str, ...] = tuple(
    name for m in MYSTERIES for name in (f"kernel_{m}", *(() if m == CONTROL else (f"kernel_{m}_repaired",))))


class Sizes(Record):
    matrix_side: PositiveInt            # kernel_a and kernel_d: a side x side float32 matrix (a multiple of 32)
    elements: PositiveInt               # kernel_b and kernel_h: float32 elements, STEPS FMAs each
    slices: PositiveInt                 # kernel_c: launches of the faulty version...
    slice_elements: PositiveInt         # ...of this many elements each (16 blocks of 256 at the lab's size)
    stream_elements: PositiveInt        # kernel_e and the copy ceiling: float32 elements per array
    hist_threads: PositiveInt           # kernel_f: threads, HIST_ITEMS values each
    list_nodes: PositiveInt             # kernel_g: nodes of the linked list (128 bytes each)
    walk_warps: PositiveInt             # kernel_g: warps walking it...
    walk_steps: PositiveInt             # ...this many nodes each
    repeats: PositiveInt = 30           # timed calls of each kernel (median, min, max)

    @model_validator(mode="after")
    def _consistent(self) -> Sizes:
        if self.matrix_side % 32:
            raise ValueError(f"matrix_side {self.matrix_side} is not a multiple of 32 (kernel_d's tile)")
        if self.walk_steps > self.list_nodes // self.walk_warps:
            raise ValueError(f"walk_steps {self.walk_steps} > list_nodes / walk_warps: two walks would meet")
        if self.walk_warps * 32 % THREADS:
            raise ValueError(f"walk_warps {self.walk_warps}: {THREADS // 32} warps per block of {THREADS} threads, "
                             f"so a multiple of {THREADS // 32}")
        return self

    @property
    def walk_blocks(self) -> int:
        """kernel_g's grid: walk_warps warps of 32 threads, THREADS per block."""
        return self.walk_warps * 32 // THREADS

    @property
    def stream_bytes(self) -> int:
        """kernel_e moves x and y in, y out: 3 x 4 bytes per element."""
        return 12 * self.stream_elements

    @property
    def copy_bytes(self) -> int:
        """The copy ceiling reads and writes stream_elements float32."""
        return 8 * self.stream_elements


class Pair(Record):
    """A mystery kernel and its repaired twin (None for the control), timed alone."""

    mystery: Mystery
    faulty: Timing
    repaired: Timing | None

    @property
    def gain(self) -> float | None:
        """Time of the mystery / time of its twin (medians)."""
        return None if self.repaired is None else self.faulty.median_seconds / self.repaired.median_seconds


class Lab05Results(CheckedResults):
    sizes: Sizes
    hbm_peak_gbps: Positive          # the recorded GPU's theoretical HBM bandwidth
    copy_ceiling: Timing             # the course's copy ceiling (labkit.labs.ceilings), L2 flushed
    pairs: list[Pair]
    ncu: Annotated[NcuProfiles | Unavailable, Field(discriminator="status")]
    #: Bytes read + written per call of the copy ceiling (labkit.labs.ceilings.measure). None in records
    #: made before the course had one ceiling: then lab 01's copy of stream_elements float32.
    copy_ceiling_bytes: PositiveInt | None = None

    # ----- what is derived ---------------------------------------------------------------------
    @property
    def ceiling_bytes(self) -> int:
        return self.copy_ceiling_bytes or self.sizes.copy_bytes

    @property
    def ceiling_gbps(self) -> float:
        return self.copy_ceiling.gbps(self.ceiling_bytes)

    def pair(self, mystery: str) -> Pair:
        return next(p for p in self.pairs if p.mystery == mystery)

    @property
    def control_ratio_to_min(self) -> float:
        """The control's t_real / t_min, t_min = its bytes / the copy ceiling measured in the same run."""
        control = self.pair(CONTROL).faulty
        return control.median_seconds / (self.sizes.stream_bytes / (self.ceiling_gbps * 1e9))

    def profile(self, name: str):
        """The stored profile of a profiled kernel; None without ncu."""
        if not isinstance(self.ncu, NcuProfiles):
            return None
        return next(k for k in self.ncu.kernels if k.name == name)

    # ----- what cannot be ------------------------------------------------------------------------
    @model_validator(mode="after")
    def _complete(self) -> Lab05Results:
        if tuple(p.mystery for p in self.pairs) != MYSTERIES:
            raise ValueError(f"pairs: holds {[p.mystery for p in self.pairs]}, expected each of {list(MYSTERIES)} "
                             "once, in that order")
        for p in self.pairs:
            if (p.repaired is None) != (p.mystery == CONTROL):
                raise ValueError(f"pairs/{p.mystery}: " + ("the control has no repaired twin" if p.mystery == CONTROL
                                                           else "a mystery kernel needs its repaired twin's time"))
        if isinstance(self.ncu, NcuProfiles):
            names = sorted(k.name for k in self.ncu.kernels)
            if names != sorted(PROFILED_KERNELS):
                raise ValueError(f"ncu/kernels: profiles {names}, expected {sorted(PROFILED_KERNELS)}")
        return self

    def reference_rates(self) -> list[ReferenceRate]:
        """The record's reference measurements beside their peaks (labkit.records.MIN_REFERENCE_SHARE):
        the course's copy ceiling."""
        return [ReferenceRate("copy_ceiling", self.copy_ceiling.gbps(self.ceiling_bytes), self.hbm_peak_gbps, "GB/s",
                              "theoretical HBM peak")]

    @model_validator(mode="after")
    def _physically_possible(self) -> Lab05Results:
        """The copy and the control read and write HBM (L2 flushed): at most the theoretical peak."""
        for what, timing, bytes_ in (("copy_ceiling", self.copy_ceiling, self.ceiling_bytes),
                                     ("pairs/e", self.pair(CONTROL).faulty, self.sizes.stream_bytes)):
            if timing.gbps(bytes_) > self.hbm_peak_gbps:
                raise ValueError(f"{what}: {timing.gbps(bytes_):.0f} GB/s is above the GPU's theoretical HBM peak "
                                 f"{self.hbm_peak_gbps:.0f} GB/s")
        return self
