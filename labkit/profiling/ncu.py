"""Nsight Compute: running ``ncu`` and reading its CSV pages.

Two pages of one report are read. ``--page raw``: one row per kernel launch, one column per
metric, the second row holding the units. ``--page details``: long format, one row per metric of
a section (``Section Name, Metric Name, Metric Unit, Metric Value``) or per rule that fired
(``Rule Name, Rule Type, Rule Description, Estimated Speedup Type, Estimated Speedup``).
Values carry thousands separators (``"95,936"``): numbers are read with them removed, and
values that are not numbers (``"no data"``, ``"PolicySpread"``) are kept as strings.

Running ncu never touches the clocks (``--clock-control none``): the course reads clocks, it
does not set them on a shared card. A lab's whole profiling step (find ncu, run its profile target,
export, parse, "unavailable" with the reason) is labkit.profiling.lab_profile.
"""

from __future__ import annotations

import csv
import functools
import itertools
import operator
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from labkit.errors import LabkitError
from labkit.gpu.tools import find_tool, run_tool
from labkit.records import Record

#: The pages :func:`export_csv` knows how to read back.
PAGES = ("raw", "details")

#: The one fix for ERR_NVGPUCTRPERM, said by the doctor and by every profiling step.
PERMISSION_FIX = (
    "ncu may not read the GPU performance counters (ERR_NVGPUCTRPERM): run it as root, or add "
    "`options nvidia NVreg_RestrictProfilingToAdminUsers=0` to a file in /etc/modprobe.d/ and "
    "reload the nvidia driver (or reboot)"
)

_NUMBER = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
_DIMS = re.compile(r"\(\d+(?:, \d+)*\)")
_BYTE_FACTORS = {"byte": 1.0, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12}
_SECOND_FACTORS = {
    "ns": 1e-9, "nsecond": 1e-9, "us": 1e-6, "usecond": 1e-6,
    "ms": 1e-3, "msecond": 1e-3, "s": 1.0, "second": 1.0,
}
#: Columns of the raw page that describe the launch rather than measure it.
_LAUNCH_COLUMNS = (
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
    "Block Size", "Grid Size", "Device", "CC",
)
_DETAILS_COLUMNS = (
    "ID", "Kernel Name", "Block Size", "Grid Size", "Section Name", "Metric Name",
    "Metric Unit", "Metric Value", "Rule Name", "Rule Type", "Rule Description",
    "Estimated Speedup Type", "Estimated Speedup",
)


class NcuError(LabkitError, RuntimeError):
    """ncu is missing, failed, or wrote something this module cannot read (one-line message)."""


class NcuPermissionError(NcuError):
    """The driver refuses the performance counters to this user (ERR_NVGPUCTRPERM)."""

    def __init__(self) -> None:
        super().__init__(PERMISSION_FIX + "; the lab continues with CUDA-event timing")


class Metric(Record):
    """One value as ncu printed it: a number (separators removed) or a string, with its unit."""

    unit: str
    value: float | str


class Rule(Record):
    """One rule ncu applied: its section, name, type (OPT, WRN, INF...), text, Est. Speedup."""

    section: str
    name: str
    type: str
    description: str
    speedup_type: str | None
    speedup_pct: float | None


class RowMetrics(Mapping):
    """A launch's metrics as its raw-page row holds them (text), each read into a :class:`Metric`
    the first time it is asked for: a whole-application export's launches are mostly counted and
    timed, not diagnosed. ``columns`` (shared by every row of a page): metric name -> (position in
    ``cells``, unit)."""

    __slots__ = ("_columns", "_cells", "_read")

    def __init__(self, columns: dict[str, tuple[int, str]], cells: list[str]):
        self._columns, self._cells, self._read = columns, cells, {}

    def __getitem__(self, name: str) -> Metric:
        found = self._read.get(name)
        if found is None:
            position, unit = self._columns[name]
            found = self._read[name] = Metric(unit=unit, value=_number_or_text(self._cells[position]))
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._columns

    def __iter__(self):
        return iter(self._columns)

    def __len__(self) -> int:
        return len(self._columns)


@dataclass
class KernelProfile:
    """One profiled launch: raw metrics, and the details page's sections and rules.

    ``name`` is the short name (``copy_coalesced``); ``full_name`` the name ncu printed, with
    Numba's ABI tags and the signature. Either page alone fills its own fields; see
    :func:`merge_profiles` to join them.
    """

    id: int
    name: str
    full_name: str
    block_size: tuple[int, ...]
    grid_size: tuple[int, ...]
    metrics: Mapping[str, Metric] = field(default_factory=dict)
    sections: dict[str, dict[str, Metric]] = field(default_factory=dict)
    rules: list[Rule] = field(default_factory=list)

    def value(self, metric: str) -> float:
        """The number of a raw metric; a clear error if it is missing or not a number."""
        if metric not in self.metrics:
            raise NcuError(
                f"kernel {self.name}: metric {metric} is not in the ncu report "
                "(profile with --set full and export --page raw)"
            )
        value = self.metrics[metric].value
        if isinstance(value, str):
            raise NcuError(f"kernel {self.name}: metric {metric} is {value!r}, not a number")
        return value

    def bytes_(self, metric: str) -> float:
        """A byte metric in bytes (ncu scales by 10^3: Kbyte, Mbyte, Gbyte, Tbyte)."""
        return self.value(metric) * self._factor(metric, _BYTE_FACTORS, "byte")

    def seconds(self, metric: str) -> float:
        """A time metric in seconds (ncu prints ns, us or ms, or nsecond, usecond, msecond)."""
        return self.value(metric) * self._factor(metric, _SECOND_FACTORS, "time")

    def _factor(self, metric: str, factors: dict[str, float], kind: str) -> float:
        unit = self.metrics[metric].unit
        if unit not in factors:
            raise NcuError(f"kernel {self.name}: metric {metric} is in {unit!r}, not a {kind} unit")
        return factors[unit]


def find_ncu() -> str | None:
    """ncu on PATH, else in the CUDA toolkit's bin folder, else None."""
    return find_tool("ncu")


def check_ncu_output(text: str, returncode: int) -> None:
    """Raise the error an ncu run's output shows, in order of what the reader must fix first.

    ERR_NVGPUCTRPERM anywhere: :class:`NcuPermissionError`. Else the last ``==ERROR==`` line.
    Else ``No kernels were profiled`` (ncu exits 0 then): the ``-k`` regex matched no launch.
    Else a non-zero exit status with ncu's last line. Warnings alone are not errors.
    """
    if "ERR_NVGPUCTRPERM" in text:
        raise NcuPermissionError()
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("==ERROR==")]
    if errors:
        raise NcuError("ncu failed: " + errors[-1].removeprefix("==ERROR==").strip())
    if any("No kernels were profiled" in line for line in lines):
        raise NcuError("ncu profiled no kernel: no launch matched the -k regex")
    if returncode != 0:
        last = lines[-1] if lines else "no output"
        raise NcuError(f"ncu exited with status {returncode}: {last}")


def profile_command(
    argv: Sequence[str],
    kernel_regex: str,
    report_path: str | Path,
    launch_count: int | None = None,
    timeout_seconds: float = 600.0,
    env: dict[str, str] | None = None,
) -> Path:
    """Profile the launches of ``argv`` (run in ``env``) whose name matches ``kernel_regex`` into a report.

    Runs ``ncu --clock-control none --set full --import-source yes -k regex:<kernel_regex>
    [-c N] -f -o <report> <argv...>`` and returns the ``.ncu-rep`` path ncu wrote.
    """
    ncu = _require_ncu()
    base = Path(report_path)
    if base.suffix == ".ncu-rep":
        base = base.with_suffix("")
    command = [ncu, "--clock-control", "none", "--set", "full", "--import-source", "yes",
               "-k", f"regex:{kernel_regex}"]
    if launch_count is not None:
        command += ["-c", str(launch_count)]
    command += ["-f", "-o", str(base), *argv]
    _run(command, timeout_seconds, env)
    return base.with_name(base.name + ".ncu-rep")


def profile_metrics_command(
    argv: Sequence[str],
    kernel_regex: str,
    metrics: Sequence[str],
    report_path: str | Path,
    timeout_seconds: float = 600.0,
    env: dict[str, str] | None = None,
) -> Path:
    """Like :func:`profile_command`, with only the named metrics (``--metrics a,b,c`` instead of
    ``--set full``): fewer replay passes per launch, for a step that needs a few counters of many
    launches. Runs ``ncu --clock-control none --metrics <metrics> -k regex:<kernel_regex> -f -o
    <report> <argv...>``."""
    ncu = _require_ncu()
    base = Path(report_path)
    if base.suffix == ".ncu-rep":
        base = base.with_suffix("")
    command = [ncu, "--clock-control", "none", "--metrics", ",".join(metrics), "-k", f"regex:{kernel_regex}",
               "-f", "-o", str(base), *argv]
    _run(command, timeout_seconds, env)
    return base.with_name(base.name + ".ncu-rep")


def export_csv(report_path: str | Path, page: str, timeout_seconds: float = 300.0,
               print_units: str | None = None) -> str:
    """The text of ``ncu -i <report> --csv --page raw|details [--print-units base|auto]`` (ncu's
    default, ``auto``, scales units: Kbyte, Mbyte...; ``base`` keeps bytes, cycles, sectors)."""
    if page not in PAGES:
        raise ValueError(f"page must be one of {PAGES}, got {page!r}")
    command = [_require_ncu(), "-i", str(report_path), "--csv", "--page", page]
    if print_units is not None:
        command += ["--print-units", print_units]
    return _run(command, timeout_seconds)


def version(timeout_seconds: float = 60.0) -> str:
    """The last line of ``ncu --version`` (``Version 2025.3.1.0 (build ...)``), or 'unknown'."""
    lines = _run([_require_ncu(), "--version"], timeout_seconds).strip().splitlines()
    return lines[-1] if lines else "unknown"


def export_csv_file(report_path: str | Path, page: str, target: Path, timeout_seconds: float = 600.0) -> None:
    """``ncu -i <report> --csv --page raw|details > target``: the page written to a file, not held in
    memory (a whole-application report's pages run to hundreds of megabytes)."""
    if page not in PAGES:
        raise ValueError(f"page must be one of {PAGES}, got {page!r}")
    with target.open("w", encoding="utf-8") as out:
        done = run_tool([_require_ncu(), "-i", str(report_path), "--csv", "--page", page], timeout_seconds, NcuError,
                        stdout=out)
    check_ncu_output(done.stderr or "", done.returncode)


@functools.lru_cache(maxsize=4096)
def short_kernel_name(name: str) -> str:
    """The bare function name of a kernel, as a reader would say it.

    ``copy_coalesced[abi:v1,cw51c...](Array<float, ...>)`` -> ``copy_coalesced`` (Numba);
    ``void ns::gemm<float, 128>(float const*, int)`` -> ``gemm`` (C++, demangled);
    ``_ZN8__main__14copy_coalescedB2v1...E...`` -> ``copy_coalesced`` (Itanium-mangled).
    """
    name = name.strip()
    if name.startswith("_Z"):
        return _itanium_base_name(name)
    depth = 0
    end = len(name)
    for index, char in enumerate(name):
        if char == "<":
            depth += 1
        elif char == ">":
            depth -= 1
        elif char in "([" and depth == 0:
            end = index
            break
    head = _strip_trailing_template(name[:end].rstrip())
    return head.split()[-1].split("::")[-1] if head.split() else name


def parse_raw_csv(text: str) -> list[KernelProfile]:
    """Kernels of ``ncu --csv --page raw``: header row, units row, then one row per launch."""
    return list(iter_raw(text.splitlines(keepends=True)))


def iter_raw(lines: Iterable[str], keep: Callable[[str], bool] | None = None) -> Iterator[KernelProfile]:
    """The launches of a raw page, one at a time, as its lines come (a whole-application export
    need not fit in memory). ``keep``: the metrics to keep by name (None: all); the others are
    not even converted, which is most of the work on a page of some 2,000 columns."""
    rows = _csv_rows(lines, "raw")
    header = next(rows)
    _require_columns(header, ("ID", "Kernel Name", "Block Size", "Grid Size"), "raw")
    width = len(header)
    col = {name: i for i, name in enumerate(header)}
    units = next(rows, None)
    if units is None or units[col["ID"]].strip():
        raise NcuError("ncu raw CSV has no units row after its header (export it with --page raw)")
    kept = [i for i, name in enumerate(header) if name not in _LAUNCH_COLUMNS and (keep is None or keep(name))]
    columns = {header[i]: (position, units[i]) for position, i in enumerate(kept)}
    take = operator.itemgetter(*kept) if len(kept) > 1 else (lambda row: tuple(row[i] for i in kept))
    at_id, at_name, at_block, at_grid = col["ID"], col["Kernel Name"], col["Block Size"], col["Grid Size"]
    count = 0
    for number, row in enumerate(rows, start=3):
        if len(row) != width:
            raise NcuError(f"ncu raw CSV row {number} has {len(row)} fields, its header {width}")
        count += 1
        yield KernelProfile(id=_launch_id(row[at_id]), name=short_kernel_name(row[at_name]), full_name=row[at_name],
                            block_size=_dims(row[at_block]), grid_size=_dims(row[at_grid]),
                            metrics=RowMetrics(columns, take(row)))
    if not count:
        raise NcuError("ncu raw CSV lists no kernel")


def parse_details_csv(text: str) -> list[KernelProfile]:
    """Kernels of ``ncu --csv --page details``, with their sections' metrics and their rules.

    A row with a Metric Name is a metric of its section; a row with a Rule Name is a rule.
    Rows that end before the rule columns (ncu writes metric rows that way) are padded.
    """
    kernels: dict[int, KernelProfile] = {}
    for kernel in iter_details(text.splitlines(keepends=True)):
        if kernel.id in kernels:   # a launch whose rows are not all together: join them
            kernels[kernel.id].sections.update(kernel.sections)
            kernels[kernel.id].rules.extend(kernel.rules)
        else:
            kernels[kernel.id] = kernel
    return list(kernels.values())


def iter_details(lines: Iterable[str], sections: bool = True) -> Iterator[KernelProfile]:
    """The launches of a details page, one per run of consecutive rows with the same ID (ncu writes
    each launch's rows together), as its lines come. ``sections`` False keeps the rules only (what
    the diagnosis reads), skipping the section metrics."""
    rows = _csv_rows(lines, "details")
    header = next(rows)
    _require_columns(header, _DETAILS_COLUMNS, "details")
    width = len(header)
    col = {name: i for i, name in enumerate(header)}
    at_id, at_section, at_metric, at_rule = col["ID"], col["Section Name"], col["Metric Name"], col["Rule Name"]
    kernel: KernelProfile | None = None
    kernel_id_text = None
    for number, row in enumerate(rows, start=2):
        if len(row) > width:
            raise NcuError(f"ncu details CSV row {number} has {len(row)} fields, its header {width}")
        if row[at_id] != kernel_id_text:   # a new launch (rows of one launch come together)
            if kernel is not None:
                yield kernel
            kernel_id_text = row[at_id]
            kernel = KernelProfile(id=_launch_id(kernel_id_text), name=short_kernel_name(row[col["Kernel Name"]]),
                                   full_name=row[col["Kernel Name"]], block_size=_dims(row[col["Block Size"]]),
                                   grid_size=_dims(row[col["Grid Size"]]))
        if len(row) > at_metric and row[at_metric]:
            if sections:
                kernel.sections.setdefault(row[at_section], {})[row[at_metric]] = Metric(
                    unit=row[col["Metric Unit"]], value=_number_or_text(row[col["Metric Value"]]))
        elif len(row) > at_rule and row[at_rule]:
            row = row + [""] * (width - len(row))
            speedup = _number_or_text(row[col["Estimated Speedup"]])
            kernel.rules.append(Rule(
                section=row[at_section],
                name=row[at_rule],
                type=row[col["Rule Type"]],
                description=row[col["Rule Description"]],
                speedup_type=row[col["Estimated Speedup Type"]] or None,
                speedup_pct=speedup if isinstance(speedup, float) else None,
            ))
    if kernel is None:
        raise NcuError("ncu details CSV lists no kernel")
    yield kernel


def merge_profiles(raw: list[KernelProfile], details: list[KernelProfile]) -> list[KernelProfile]:
    """One profile per launch: the raw page's metrics, the details page's sections and rules."""
    by_id = {kernel.id: kernel for kernel in details}
    if sorted(by_id) != sorted(kernel.id for kernel in raw):
        raise NcuError(
            f"the raw and details pages list different launches: ids {sorted(k.id for k in raw)} "
            f"vs {sorted(by_id)} (export both pages from the same report)"
        )
    return [
        KernelProfile(k.id, k.name, k.full_name, k.block_size, k.grid_size,
                      k.metrics, by_id[k.id].sections, by_id[k.id].rules)
        for k in raw
    ]


def kernel_named(profiles: list[KernelProfile], name: str) -> KernelProfile:
    """The first profiled launch whose short name is ``name``."""
    for kernel in profiles:
        if kernel.name == name:
            return kernel
    names = sorted({kernel.name for kernel in profiles})
    raise NcuError(f"no kernel {name!r} in the ncu report; it has {names}")


def _require_ncu() -> str:
    ncu = find_ncu()
    if ncu is None:
        raise NcuError(
            "ncu (Nsight Compute) not found on PATH or in /usr/local/cuda/bin: install the CUDA "
            "toolkit to profile; the lab continues with CUDA-event timing"
        )
    return ncu


def _run(command: list[str], timeout_seconds: float, env: dict[str, str] | None = None) -> str:
    done = run_tool(command, timeout_seconds, NcuError, env)
    check_ncu_output(done.stdout + "\n" + done.stderr, done.returncode)
    return done.stdout


def _csv_rows(lines: Iterable[str], page: str) -> Iterator[list[str]]:
    """The CSV rows from the ``"ID",...`` header on (ncu may print ``==PROF==`` lines before), empty
    rows left out; a quoted field may span lines (a rule's description)."""
    lines = iter(lines)
    seen_text = False
    for line in lines:
        if line.startswith(('"ID",', "ID,")):
            return _rows_of(csv.reader(itertools.chain([line], lines)), page)
        seen_text = seen_text or bool(line.strip())
    what = "has no 'ID' column" if seen_text else "is empty"
    raise NcuError(f"ncu {page} CSV {what} (expected `ncu --csv --page {page}` output)")


#: The longest field an export may hold (a C++ template kernel's name can pass csv's default 128 KB).
FIELD_CHARS_MAX = 16 << 20


def _rows_of(reader, page: str) -> Iterator[list[str]]:
    """The reader's non-empty rows; its error (a field past FIELD_CHARS_MAX, a stray quote) as an
    NcuError naming the line."""
    csv.field_size_limit(max(csv.field_size_limit(), FIELD_CHARS_MAX))
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise NcuError(f"ncu {page} CSV line {reader.line_num}: {exc}: not an export as ncu writes it "
                           f"(re-export it with `ncu --import REPORT.ncu-rep --csv --page {page}`)") from None
        if row:
            yield row


def _launch_id(text: str) -> int:
    if not text.isdigit():
        raise NcuError(f"ncu CSV has a row whose ID is {text!r}, not a launch number")
    return int(text)


def _require_columns(header: list[str], required: Sequence[str], page: str) -> None:
    missing = [name for name in required if name not in header]
    if missing:
        raise NcuError(f"ncu {page} CSV lacks the column(s) {', '.join(missing)}")


def _number_or_text(text: str) -> float | str:
    text = text.strip()
    return float(text.replace(",", "")) if _NUMBER.fullmatch(text) else text


@functools.lru_cache(maxsize=4096)
def _dims(text: str) -> tuple[int, ...]:
    """``"(256, 1, 1)"`` -> ``(256, 1, 1)``."""
    if not _DIMS.fullmatch(text.strip()):
        raise NcuError(f"launch dimensions {text!r} are not of the form (x, y, z)")
    return tuple(int(part) for part in text.strip()[1:-1].split(", "))


def _strip_trailing_template(text: str) -> str:
    if not text.endswith(">"):
        return text
    depth = 0
    for index in range(len(text) - 1, -1, -1):
        depth += {">": 1, "<": -1}.get(text[index], 0)
        if depth == 0:
            return text[:index]
    return text


def _itanium_base_name(mangled: str) -> str:
    """The last source name of ``_Z[N]<len><id>...``, before ABI tags (``B``) and arguments."""
    position = 3 if mangled.startswith("_ZN") else 2
    name = mangled
    while position < len(mangled) and mangled[position].isdigit():
        digits = re.match(r"\d+", mangled[position:]).group()
        start = position + len(digits)
        name = mangled[start:start + int(digits)]
        position = start + int(digits)
    return name
