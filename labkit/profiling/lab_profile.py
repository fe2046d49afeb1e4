"""A lab's Nsight Compute step, written once: every lab that profiles calls :func:`profile_lab`
with its kernel pattern and its reader.

The protocol:

1. find ncu; without it the step is unavailable ("ncu not found (install Nsight Compute)");
2. run the lab's profile target, ``python -m <module> profile-target [args]`` (labkit importable
   by the child whatever its working directory), under ``ncu --clock-control none`` (the course
   never sets a shared card's clocks) with ``--set full`` or only the named metrics, launches
   chosen by ``-k regex:<pattern>``, into ``<work_dir>/<report>.ncu-rep``; caches are flushed
   before each replay pass (ncu's default, ``--cache-control all``: Nsight Compute's Profiling
   Guide, "Cache Control");
3. export the pages asked for (raw, and details for ncu's sections and rules) and parse them into
   one profile per launch, in launch order;
4. hand them to the lab's reader, which returns the step's record;
5. only then write the pages as ``ncu_raw.csv`` and ``ncu_details.csv`` into ``work_dir``: the raw
   outputs a record keeps beside its results file.

Any NcuError on the way (no counter permission, no launch matched, a timeout, a metric the
reader needs and ncu did not give) makes the step unavailable with that one-line reason.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import labkit
from labkit.profiling import ncu

#: The reason a lab gives when this machine has no ncu.
NO_NCU = "ncu not found (install Nsight Compute)"
#: The file each exported page is kept as, in the lab's work folder (and so in its record).
PAGE_FILES = {"raw": "ncu_raw.csv", "details": "ncu_details.csv"}

T = TypeVar("T")
U = TypeVar("U")


@dataclass(frozen=True)
class Profiled:
    """What one ncu run gave: a profile per launch (raw metrics, and with the details page ncu's
    sections and rules), in launch order, the profiled run's wall time and ncu's version."""

    profiles: list[ncu.KernelProfile]
    seconds: float
    version: str


def target_command(module: str, args: Sequence[str] = ()) -> list[str]:
    """The profiled program: this interpreter running ``module``'s ``profile-target`` entry point."""
    return [sys.executable, "-m", module, "profile-target", *args]


def target_environment() -> dict[str, str]:
    """This process's environment, with labkit's folder first on PYTHONPATH: the child imports the
    same labkit when the labs run from another folder or with an interpreter that did not install it."""
    root = str(Path(labkit.__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}


def profile_lab(
    module: str,
    kernel_regex: str,
    work_dir: Path,
    read: Callable[[Profiled], T],
    unavailable: Callable[[str], U],
    *,
    metrics: Sequence[str] | None = None,
    pages: Sequence[str] = ("raw",),
    args: Sequence[str] = (),
    print_units: str | None = None,
    report: str = "profile",
    timeout_seconds: float = 600.0,
) -> T | U:
    """The lab's profile step (see the module docstring): ``read(profiled)``, or
    ``unavailable(reason)`` when ncu is missing or any step fails.

    ``metrics``: only these (fewer replay passes), else ``--set full``. ``pages``: "raw", and
    "details" for sections and rules. ``print_units="base"``: the pages in base units.
    """
    if "raw" not in pages or not set(pages) <= PAGE_FILES.keys():
        raise ValueError(f"pages must hold 'raw' and only {tuple(PAGE_FILES)}, got {tuple(pages)}")
    if ncu.find_ncu() is None:
        return unavailable(NO_NCU)
    argv = target_command(module, args)
    base = work_dir / report
    try:
        started = time.monotonic()
        if metrics is None:
            path = ncu.profile_command(argv, kernel_regex, base, timeout_seconds=timeout_seconds,
                                       env=target_environment())
        else:
            path = ncu.profile_metrics_command(argv, kernel_regex, metrics, base, timeout_seconds=timeout_seconds,
                                               env=target_environment())
        seconds = time.monotonic() - started
        texts = {page: ncu.export_csv(path, page, print_units=print_units) for page in pages}
        profiles = sorted(ncu.parse_raw_csv(texts["raw"]), key=lambda profile: profile.id)
        if "details" in texts:
            profiles = ncu.merge_profiles(profiles, ncu.parse_details_csv(texts["details"]))
        step = read(Profiled(profiles=profiles, seconds=seconds, version=ncu.version()))
    except ncu.NcuError as exc:
        return unavailable(str(exc))
    for page, text in texts.items():
        (work_dir / PAGE_FILES[page]).write_text(text)
    return step
