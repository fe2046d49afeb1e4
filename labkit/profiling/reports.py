"""What a reader hands to `labkit diagnose`: Nsight Compute's CSV pages, a folder holding them, or an
``.ncu-rep`` report (exported here through ``ncu --import``), read into kernel profiles one launch at
a time (:class:`Pages`), so that a whole-application export of hundreds of megabytes streams.

Each CSV file is recognised by its header, not its name: the details page has "Section Name" and
"Rule Name" columns, the raw page a units row under its header. The raw page is required (the
diagnosis reads its metrics); the details page adds ncu's rules and their Est. Speedup. Whatever is
missing or foreign is one line saying what, and which ncu command produces it.
"""

from __future__ import annotations

import contextlib
import csv
import io
import os
import re
import tempfile
from collections.abc import Callable, Iterable, Iterator
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


#: Read this much of a file to tell its page from its header.
HEAD_CHARS = 1 << 16


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


@dataclass
class Pages:
    """A report's raw page and, optionally, its details page, as files read line by line: a
    whole-application export (hundreds of megabytes) is never held in memory.

    Use as a context manager: an ``.ncu-rep`` is exported through ncu into a temporary folder,
    removed on exit."""

    raw: Path
    details: Path | None
    _temporary: tempfile.TemporaryDirectory | None = None

    @property
    def has_rules(self) -> bool:
        return self.details is not None

    @property
    def total_bytes(self) -> int:
        return sum(path.stat().st_size for path in (self.raw, self.details) if path is not None)

    def __enter__(self) -> Pages:
        return self

    def __exit__(self, *exc) -> None:
        if self._temporary is not None:
            self._temporary.cleanup()

    def launches(self, keep: Callable[[str], bool] | None = None,
                 progress: Callable[[int], None] | None = None) -> Iterator[ncu.KernelProfile]:
        """Every launch in ID order: the raw page's metrics (those ``keep`` accepts; None: all) with
        the details page's rules, the two pages read side by side. ``progress(n)`` is called after
        each launch with the bytes read from the files since its last call."""
        with contextlib.ExitStack() as files:
            raw_file = files.enter_context(self.raw.open(encoding=text_encoding(self.raw), errors="replace",
                                                          newline=""))
            opened = [raw_file]
            raws = _parse(ncu.iter_raw, raw_file, str(self.raw), keep=keep)
            details = None
            if self.details is not None:
                details_file = files.enter_context(self.details.open(encoding=text_encoding(self.details),
                                                                     errors="replace", newline=""))
                opened.append(details_file)
                details = _parse(ncu.iter_details, details_file, str(self.details), sections=False)
            read = 0
            for profile in raws:
                if details is not None:
                    found = next(details, None)
                    if found is None or (found.id, found.full_name) != (profile.id, profile.full_name):
                        raise ReportError(_different(profile, found))
                    profile.rules = found.rules
                if progress is not None:   # where the files stand (read ahead by their buffers)
                    now = sum(os.lseek(f.fileno(), 0, os.SEEK_CUR) for f in opened)
                    progress(now - read)
                    read = now
                yield profile
            extra = None if details is None else next(details, None)
            if extra is not None:
                raise ReportError(_different(None, extra))


def _different(raw: ncu.KernelProfile | None, details: ncu.KernelProfile | None) -> str:
    """The first launch the two pages disagree on (same ID and kernel expected, in the same order)."""
    if raw is None:
        what = f"launch {details.id} ({details.name}) is on the details page only"
    elif details is None:
        what = f"launch {raw.id} ({raw.name}) is on the raw page only"
    else:
        what = f"the raw page's launch {raw.id} is {raw.name}, the details page's next is {details.id} ({details.name})"
    return f"the raw and details pages list different launches: {what} (export both pages from the same report)"


def _parse(parser, lines: Iterable[str], source: str, **options) -> Iterator[ncu.KernelProfile]:
    """The parser's launches, its errors as ReportError naming the file."""
    try:
        yield from parser(lines, **options)
    except ncu.NcuError as exc:
        raise ReportError(f"{source}: {exc}") from None


def export_report(path: Path, folder: Path) -> tuple[Path, Path]:
    """The raw and details pages of an ``.ncu-rep``, written by the local ncu into ``folder``."""
    if ncu.find_ncu() is None:
        raise ReportError(
            f"{path} is an ncu report, and reading it needs ncu (Nsight Compute), not found here: install it, or "
            f"export both pages where it is installed: `{RAW_COMMAND}` and `{DETAILS_COMMAND}`")
    pages = []
    for page in ("raw", "details"):
        target = folder / f"{path.stem}_{page}.csv"
        ncu.export_csv_file(path, page, target)
        pages.append(target)
    return pages[0], pages[1]


def open_pages(paths: list[Path]) -> Pages:
    """The pages in ``paths`` (CSV files, folders holding ncu_raw.csv / ncu_details.csv, .ncu-rep),
    each told by its header; one line (ReportError) for anything missing or foreign."""
    raws: list[Path] = []
    details: list[Path] = []
    temporary = None
    for path in paths:
        if path.is_dir():
            found = [path / name for name in FOLDER_FILES if (path / name).is_file()]
            if not found:
                raise ReportError(f"{path} holds neither {' nor '.join(FOLDER_FILES)}: pass the CSV files, or "
                                  f"export them with `{RAW_COMMAND}`")
            for file in found:
                _sort(file, raws, details)
        elif not path.exists():
            raise ReportError(f"{path} does not exist")
        elif path.suffix == ".ncu-rep":
            temporary = temporary or tempfile.TemporaryDirectory(prefix="labkit-diagnose-")
            raw, detail = export_report(path, Path(temporary.name))
            raws.append(raw)
            details.append(detail)
        else:
            _sort(path, raws, details)
    if not raws:
        raise ReportError("the details page alone lacks the raw metrics the diagnosis reads: export them too with "
                          f"`{RAW_COMMAND}` and pass both files")
    if len(raws) > 1 or len(details) > 1:
        raise ReportError("give one report at a time: its raw page and, optionally, its details page "
                          f"(got {len(raws)} raw and {len(details)} details pages)")
    return Pages(raws[0], details[0] if details else None, temporary)


def load(paths: list[Path]) -> Report:
    """The kernels in ``paths`` with every metric, in memory (small reports; `labkit diagnose`
    streams them through :func:`open_pages` instead)."""
    with open_pages(paths) as pages:
        return Report(profiles=list(pages.launches()), has_rules=pages.has_rules)


def select(profiles: Iterable[ncu.KernelProfile], pattern: str | None) -> Iterator[ncu.KernelProfile]:
    """The launches whose short or full name matches the regular expression ``pattern`` (all: None),
    as they come; ReportError at the end if none did, naming the kernels there were."""
    if pattern is None:
        yield from profiles
        return
    try:
        regex = re.compile(pattern)
    except re.error as exc:
        raise ReportError(f"--kernel {pattern!r} is not a regular expression: {exc}") from None
    names = set()
    chosen = 0
    for profile in profiles:
        if regex.search(profile.name) or regex.search(profile.full_name):
            chosen += 1
            yield profile
        elif not chosen:
            names.add(profile.name)
    if not chosen:
        raise ReportError(f"no kernel of the report matches --kernel {pattern!r}; it holds {', '.join(sorted(names))}")


def text_encoding(path: Path) -> str:
    """How an export is encoded: UTF-16 when it starts with its byte-order mark (what ``>`` writes
    in Windows PowerShell 5), else UTF-8, a leading byte-order mark skipped."""
    with path.open("rb") as file:
        head = file.read(2)
    return "utf-16" if head in (b"\xff\xfe", b"\xfe\xff") else "utf-8-sig"


def _sort(path: Path, raws: list, details: list) -> None:
    with path.open(encoding=text_encoding(path), errors="replace") as file:
        head = file.read(HEAD_CHARS)
    (details if page_of(head, str(path)) == "details" else raws).append(path)
