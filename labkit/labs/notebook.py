"""What a lab's notebook calls, so that each notebook stays a thin walk through its lab."""

from __future__ import annotations

import tempfile
from pathlib import Path

from rich.console import Console

from labkit.backend import NO_GPU_NOTICE, select_backend
from labkit.labs import load_lab, load_program
from labkit.labs.runner import show_recorded, show_tables


class LabSession:
    """One lab on this machine: a GPU, or Numba's CUDA simulator."""

    def __init__(self, lab_id: str, width: int = 110):
        self.backend = select_backend()
        self.lab, self.program = load_lab(lab_id), load_program(lab_id)
        self.console = Console(width=width)
        print(self.backend if self.backend == "cuda" else NO_GPU_NOTICE)

    def check(self) -> None:
        """Every kernel at small size against NumPy: 'ok' or 'FAIL' per check."""
        for name, passed in self.program.check_against_numpy(self.lab.SIMULATOR_SIZES):
            print("ok  " if passed else "FAIL", name)

    def measure_or_show_recorded(self) -> None:
        """On a GPU, the lab's measurements (not recorded: `make lab-NN` records); in the
        simulator, where no timing means anything, the results recorded on a GPU."""
        if self.backend != "cuda":
            show_recorded(self.lab, self.console)
            return
        with tempfile.TemporaryDirectory() as work_dir:
            results = self.program.measure(print, Path(work_dir), self.lab.GPU_SIZES)
        show_tables(self.lab.tables(results), self.console)
