"""What a lab's notebook calls, so that each notebook stays a thin walk through its lab."""

from __future__ import annotations

import functools
import os
import tempfile
from pathlib import Path

from rich.console import Console

from labkit.gpu.backend import NOTEBOOK_PREVIEW_ENV, select_backend
from labkit.labs.base import Bench, lab
from labkit.labs.runner import show_recorded
from labkit.project import find_project
from labkit.report.labels import label
from labkit.report.numbers import format_percent
from labkit.report.terminal import show_tables


class LabSession:
    """One lab on this machine: a GPU, or Numba's CUDA simulator. ``lang`` is the language of
    what it prints (each language's notebook passes its own; English by default)."""

    def __init__(self, lab_id: str, width: int = 110, lang: str = "en"):
        self.lang = lang
        self.preview = os.environ.get(NOTEBOOK_PREVIEW_ENV) == "1"   # the site's build runs the notebook
        self.backend = "simulator" if self.preview else select_backend()
        self.lab = lab(lab_id)
        self.project = find_project()
        self.console = Console(width=width)
        if self.backend == "cuda":
            print(self.backend)
        else:
            self.console.print(label(lang, "notebook.no_gpu"), markup=False)

    @functools.cached_property
    def program(self):
        """The lab's kernels, imported when first run: the site's build, which shows each notebook's
        cells and the recorded results without running a kernel, imports no Numba."""
        return self.lab.program()

    def show_occupancy(self, answer) -> None:
        """A labkit.models.occupancy answer as a sentence in the notebook's language: blocks per SM,
        occupancy, the resources that limit it."""
        limiters = label(self.lang, "notebook.occupancy.and").join(
            label(self.lang, f"notebook.limiter.{name}") for name in answer.limiters)
        self.console.print(label(self.lang, "notebook.occupancy").format(
            blocks=answer.blocks_per_sm, occupancy=format_percent(100 * answer.occupancy, 0, self.lang),
            limiters=limiters), markup=False, highlight=False)

    def check(self) -> None:
        """Every kernel at small size against NumPy: 'ok' or 'FAIL' per check."""
        if self.preview:
            self.console.print(label(self.lang, "notebook.checks_not_run"), markup=False)
            return
        from labkit.gpu import expected_warnings_hidden

        with expected_warnings_hidden():
            checks = self.program.check(self.lab.simulator_sizes)
        for check in checks:
            print("ok  " if check.passed else "FAIL", check.name)

    def measure_or_show_recorded(self) -> None:
        """On a GPU, the lab's measurements (not recorded: `make lab-NN` records); in the
        simulator, where no timing means anything, the results recorded on a GPU."""
        if self.backend != "cuda":
            show_recorded(self.lab, self.project, self.console, self.lang)
            return
        from labkit.gpu.device import read_device_facts
        from labkit.gpu.timing import time_gpu, time_interleaved

        from labkit.gpu import expected_warnings_hidden

        facts = read_device_facts()
        with tempfile.TemporaryDirectory() as work_dir, expected_warnings_hidden():
            bench = Bench(facts, time_gpu, time_interleaved, Path(work_dir), lambda step: print(step))
            results = self.program.measure(bench, self.lab.sizes_for(facts))
        show_tables(self.lab.tables(results), self.console, self.lang)
