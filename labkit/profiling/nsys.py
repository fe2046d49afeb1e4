"""Nsight Systems: recording a timeline and reading its per-kernel summary.

``nsys stats --report cuda_gpu_kern_sum --format csv`` prints a few progress lines
(``Generating SQLite file ...``, ``Processing [...] with [.../cuda_gpu_kern_sum.py]...``), then
the table, one row per kernel, most total time first:
``Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name``.
Times are in the unit the header names (ns unless ``--timeunit`` says otherwise).
"""

from __future__ import annotations

import csv
import re
from collections.abc import Sequence
from itertools import takewhile
from pathlib import Path

from labkit.errors import LabkitError
from labkit.gpu.tools import find_tool, run_tool
from labkit.profiling.ncu import short_kernel_name
from labkit.records import Count, NonNegative, Percent, Record

REPORT = "cuda_gpu_kern_sum"

_SECOND_FACTORS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
_TIMED_COLUMNS = ("Total Time", "Avg", "Med", "Min", "Max", "StdDev")
_TIMED = re.compile(rf"({'|'.join(_TIMED_COLUMNS)}) \((\w+)\)")
_COLUMNS = ("Time (%)", "Instances", "Name")


class NsysError(LabkitError, RuntimeError):
    """nsys is missing, failed, or printed no kernel summary (one-line message)."""


class KernelSum(Record):
    """A row of cuda_gpu_kern_sum: a kernel's share of GPU kernel time, its duration statistics."""

    name: str
    full_name: str
    time_pct: Percent
    total_seconds: NonNegative
    instances: Count
    avg_seconds: NonNegative
    med_seconds: NonNegative
    min_seconds: NonNegative
    max_seconds: NonNegative
    stddev_seconds: NonNegative


def find_nsys() -> str | None:
    """nsys on PATH, else in the CUDA toolkit's bin folder, else None."""
    return find_tool("nsys")


def profile_and_summarize(
    argv: Sequence[str], out_dir: str | Path, timeout_seconds: float = 600.0
) -> str:
    """Record ``argv`` into ``<out_dir>/timeline.nsys-rep`` and return nsys's kernel summary text.

    Runs ``nsys profile -o <out> --trace=cuda,nvtx --force-overwrite true argv...`` then
    ``nsys stats --report cuda_gpu_kern_sum --format csv --force-export true <out>.nsys-rep``.
    """
    nsys = find_nsys()
    if nsys is None:
        raise NsysError(
            "nsys (Nsight Systems) not found on PATH or in /usr/local/cuda/bin: install it to "
            "record a timeline; labkit's own CUDA-event timeline works without it"
        )
    out = Path(out_dir) / "timeline"
    out.parent.mkdir(parents=True, exist_ok=True)
    _run([nsys, "profile", "-o", str(out), "--trace=cuda,nvtx", "--force-overwrite", "true", *argv],
         timeout_seconds)
    return _run([nsys, "stats", "--report", REPORT, "--format", "csv", "--force-export", "true",
                 f"{out}.nsys-rep"], timeout_seconds)


def parse_kern_sum(text: str) -> list[KernelSum]:
    """The rows of a cuda_gpu_kern_sum CSV, skipping nsys's lines before the header.

    The table ends at the first blank line (nsys prints one report after another).
    """
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.lstrip('"').startswith("Time (%)")),
                 None)
    if start is None:
        if "does not contain CUDA kernel data" in text:
            raise NsysError("the nsys report holds no CUDA kernel: did the program launch any?")
        raise NsysError(
            f"no {REPORT} table in the nsys output (expected a 'Time (%),Total Time (ns),...' "
            "header)")
    reader = csv.DictReader(takewhile(str.strip, lines[start:]))
    header = reader.fieldnames or []
    timed = {m.group(1): (c, _factor(m.group(2))) for c in header if (m := _TIMED.fullmatch(c))}
    missing = [c for c in _COLUMNS if c not in header]
    missing += [f"{c} (<unit>)" for c in _TIMED_COLUMNS if c not in timed]
    if missing:
        raise NsysError(f"the {REPORT} table lacks the column(s) {', '.join(missing)}")

    def seconds(row: dict, what: str) -> float:
        column, factor = timed[what]
        return _number(row[column]) * factor

    return [
        KernelSum(
            name=short_kernel_name(row["Name"]),
            full_name=row["Name"],
            time_pct=_number(row["Time (%)"]),
            total_seconds=seconds(row, "Total Time"),
            instances=int(_number(row["Instances"])),
            avg_seconds=seconds(row, "Avg"),
            med_seconds=seconds(row, "Med"),
            min_seconds=seconds(row, "Min"),
            max_seconds=seconds(row, "Max"),
            stddev_seconds=seconds(row, "StdDev"),
        )
        for row in reader
    ]


def _run(command: list[str], timeout_seconds: float) -> str:
    done = run_tool(command, timeout_seconds, NsysError)
    if done.returncode != 0:
        lines = [line for line in (done.stderr + "\n" + done.stdout).splitlines() if line.strip()]
        raise NsysError(f"nsys {command[1]} exited with status {done.returncode}: "
                        f"{lines[-1].strip() if lines else 'no output'}")
    return done.stdout


def _factor(unit: str) -> float:
    if unit not in _SECOND_FACTORS:
        raise NsysError(f"unknown time unit {unit!r} in the {REPORT} header")
    return _SECOND_FACTORS[unit]


def _number(text: str) -> float:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        raise NsysError(f"{text!r} in the {REPORT} table is not a number") from None
