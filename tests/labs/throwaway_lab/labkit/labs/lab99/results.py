"""What lab 99 records: its checks, the GPU's theoretical HBM bandwidth, and the time of one scale."""

from __future__ import annotations

from pydantic import model_validator

from labkit.gpu.timing import Timing
from labkit.kernels.throwaway import BYTES_PER_ELEMENT
from labkit.labs.base import CheckedResults
from labkit.records import Positive, PositiveInt, Record


class Sizes(Record):
    elements: PositiveInt
    repeats: PositiveInt = 20


class Lab99Results(CheckedResults):
    sizes: Sizes
    hbm_peak_gbps: Positive
    scale: Timing

    @property
    def scale_gbps(self) -> float:
        return self.scale.gbps(BYTES_PER_ELEMENT * self.sizes.elements)

    @model_validator(mode="after")
    def _possible(self) -> Lab99Results:
        if self.scale_gbps > self.hbm_peak_gbps:
            raise ValueError(f"scale: {self.scale_gbps:.0f} GB/s is above the theoretical HBM peak "
                             f"{self.hbm_peak_gbps:.0f} GB/s")
        return self
