"""What a reader hands to `labkit diagnose`: Nsight Compute's CSV pages, a folder holding them, or an
``.ncu-rep`` report (exported here through ``ncu --import``), read into kernel profiles.

Each CSV file is recognised by its header, not its name: the details page has "Section Name" and
"Rule Name" columns, the raw page a units row under its header. The raw page is required (the
diagnosis reads its metrics); the details page adds ncu's rules and their Est. Speedup. Whatever is
missing or foreign is one line saying what, and which ncu command produces it.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from pathlib import Path

from labkit.profiling import ncu

RAW_COMMAND = "ncu --import REPORT.ncu-rep --csv --page raw > raw.csv"
DETAILS_COMMAND = "ncu --import REPORT.ncu-rep --csv --page details > details.csv"
#: Folder entries read when a folder is given (the names `make lab-NN` records).
FOLDER_FILES = ("ncu_raw.csv", "ncu_details.csv")


class ReportError(ncu.NcuError):
    """A report `labkit diagnose` cannot read (one line: what is missing, and the ncu command)."""


@dataclass(frozen=True)
class Report:
    """The kernels of a report, and whether ncu's rules (the details page) came with them."""

    profiles: list[ncu.KernelProfile]
    has_rules: bool


def page_of(text: str, source: str) -> str:
    """'raw' or 'details', from the CSV header; ReportError for anything else."""
    lines = text.splitlines()
    header_at = next((i for i, line in enumerate(lines) if line.startswith(('"ID",', "ID,"))), None)
    if header_at is None:
        raise ReportError(f"{source} is not an Nsight Compute CSV export (no \"ID\",\"Kernel Name\" header): "
                          f"export one with `{RAW_COMMAND}`")
    header = next(csv.reader(io.StringIO(lines[header_at])))
    if "Kernel Name" not in header:
        raise ReportError(f"{source} has an ID column but no Kernel Name: not an ncu export; use `{RAW_COMMAND}`")
    return "details" if "Section Name" in header and "Rule Name" in header else "raw"


def export_report(path: Path) -> tuple[str, str]:
    """The raw and details pages of an ``.ncu-rep``, through the local ncu."""
    if ncu.find_ncu() is None:
        raise ReportError(
            f"{path} is an ncu report, and reading it needs ncu (Nsight Compute), not found here: install it, or "
            f"export both pages where it is installed: `{RAW_COMMAND}` and `{DETAILS_COMMAND}`")
    return ncu.export_csv(path, "raw"), ncu.export_csv(path, "details")


def load(paths: list[Path]) -> Report:
    """The kernels in ``paths`` (CSV files, folders holding ncu_raw.csv / ncu_details.csv, .ncu-rep)."""
    raws: list[tuple[str, str]] = []
    details: list[tuple[str, str]] = []
    for path in paths:
        if path.is_dir():
            found = [path / name for name in FOLDER_FILES if (path / name).is_file()]
            if not found:
                raise ReportError(f"{path} holds neither {' nor '.join(FOLDER_FILES)}: pass the CSV files, or "
                                  f"export them with `{RAW_COMMAND}`")
            for file in found:
                _sort(file.read_text(encoding="utf-8", errors="replace"), str(file), raws, details)
        elif not path.exists():
            raise ReportError(f"{path} does not exist")
        elif path.suffix == ".ncu-rep":
            raw, detail = export_report(path)
            raws.append((raw, f"{path} (raw page)"))
            details.append((detail, f"{path} (details page)"))
        else:
            _sort(path.read_text(encoding="utf-8", errors="replace"), str(path), raws, details)
    if not raws:
        raise ReportError("the details page alone lacks the raw metrics the diagnosis reads: export them too with "
                          f"`{RAW_COMMAND}` and pass both files")
    if len(raws) > 1 or len(details) > 1:
        raise ReportError("give one report at a time: its raw page and, optionally, its details page "
                          f"(got {len(raws)} raw and {len(details)} details pages)")
    profiles = _parse(ncu.parse_raw_csv, *raws[0])
    if details:
        profiles = ncu.merge_profiles(profiles, _parse(ncu.parse_details_csv, *details[0]))
    return Report(profiles=profiles, has_rules=bool(details))


def select(profiles: list[ncu.KernelProfile], pattern: str | None) -> list[ncu.KernelProfile]:
    """The launches whose short or full name matches the regular expression ``pattern`` (all: None)."""
    if pattern is None:
        return profiles
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ReportError(f"--kernel {pattern!r} is not a regular expression: {exc}") from None
    chosen = [p for p in profiles if regex.search(p.name) or regex.search(p.full_name)]
    if not chosen:
        names = sorted({p.name for p in profiles})
        raise ReportError(f"no kernel of the report matches --kernel {pattern!r}; it holds {', '.join(names)}")
    return chosen


def _sort(text: str, source: str, raws: list, details: list) -> None:
    (details if page_of(text, source) == "details" else raws).append((text, source))


def _parse(parser, text: str, source: str) -> list[ncu.KernelProfile]:
    try:
        return parser(text)
    except ncu.NcuError as exc:
        raise ReportError(f"{source}: {exc}") from None
