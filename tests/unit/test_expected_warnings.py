"""A lab's run shows no NumbaPerformanceWarning (the small grids are what the pages teach), and
every other warning still shows (issue 19: lab 01 printed 16 of them above its tables)."""

from __future__ import annotations

import io
import warnings
from typing import Annotated

from pydantic import Field
from rich.console import Console

from labkit.gpu import NumbaPerformanceWarning, expected_warnings_hidden
from labkit.labs import runner
from labkit.labs.base import Check, Lab, Program
from labkit.project import Project
from labkit.records import Record


class Sizes(Record):
    n: Annotated[int, Field(gt=0)] = 4


class Results(Record):
    n: int


class WarningProgram(Program[Sizes, Results]):
    """Warns as numba-cuda does on a small grid, and once with an unrelated warning."""

    def check(self, sizes):
        warnings.warn("Grid size 1 will likely result in GPU under-utilization due to low occupancy.",
                      NumbaPerformanceWarning)
        warnings.warn("something the reader must see", UserWarning)
        return [Check(name="tiny", passed=True)]

    def measure(self, bench, sizes):
        raise AssertionError("not reached in the simulator")


class WarningLab(Lab[Sizes, Results]):
    id = "lab-97"
    folder = "97-warnings"
    chapter = "performance/97-warnings.md"
    results_type = Results
    gpu_sizes = Sizes()
    simulator_sizes = Sizes(n=2)

    def program(self):
        return WarningProgram()

    def tables(self, results):
        return []


def test_a_lab_run_hides_numba_performance_warnings_and_only_them(tmp_path):
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        status = runner.run_lab(WarningLab(), Project(tmp_path), False, Console(file=io.StringIO(), width=200))
    assert status == 0
    categories = [w.category for w in seen]
    assert NumbaPerformanceWarning not in categories
    assert UserWarning in categories


def test_the_filter_is_undone_after_the_run():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        with expected_warnings_hidden():
            warnings.warn("hidden", NumbaPerformanceWarning)
        warnings.warn("shown", NumbaPerformanceWarning)
    assert len(seen) == 1 and "shown" in str(seen[0].message)   # numba-cuda wraps it in colour codes
