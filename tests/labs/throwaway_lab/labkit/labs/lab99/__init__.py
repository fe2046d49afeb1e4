"""Lab 99: a throwaway lab that times one kernel (the walkthrough of adding a lab)."""

from __future__ import annotations

from labkit.labs.base import Lab
from labkit.labs.lab99.results import Lab99Results, Sizes
from labkit.report.tables import Column, Table


class Lab99(Lab[Sizes, Lab99Results]):
    folder = "99-throwaway"
    chapter = "performance/99-throwaway.md"
    results_type = Lab99Results
    gpu_sizes = Sizes(elements=1 << 26)
    simulator_sizes = Sizes(elements=1000, repeats=1)
    adjustable = ("elements",)

    def tables(self, results: Lab99Results) -> list[Table]:
        return [Table("lab99.scale", (Column("kernel"), Column("t_real_us", "us"), Column("gbps", "gbps")),
                      (("scale", results.scale.median_seconds, results.scale_gbps),))]


LAB = Lab99()
