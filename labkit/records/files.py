"""Results files: one per lab and GPU, typed once, validated on write and on load.

A results file is JSON: ``{"schema": 2, "lab": "lab-04", "provenance": {...}, "raw_files": {...},
"results": {...}}``. ``results`` is the lab's own record (a :class:`labkit.records.Record`
subclass, defined once in the lab's package), so the file's shape, its validation and the
renderers' field access all come from one class. ``raw_files`` lists the profiler outputs kept
in the folder beside the file (``<gpu>/``), each with its SHA-256: a file whose raw outputs do
not match it is refused. Writing goes through :mod:`labkit.records.writing` (all or nothing).

Every problem is a :class:`ResultsError` whose one-line message names the file, the field and
the fix.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
from datetime import datetime, timedelta, timezone
from importlib import metadata
from pathlib import Path
from typing import Annotated, Generic, Literal, TypeVar

from pydantic import AwareDatetime, Field, StringConstraints, ValidationError, field_validator

import labkit
from labkit.errors import LabkitError
from labkit.records import Positive, Record, below_reference_floor, describe_validation_error
from labkit.records.plausibility import impossible_device_fact

#: The version of the results file's shape (its ``schema`` field): raise it when the envelope changes.
SCHEMA_VERSION = 2
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]
#: The packages whose versions a result depends on.
VERSIONED_PACKAGES = ("numpy", "numba", "numba-cuda", "llvmlite", "cupy-cuda13x", "cupy-cuda12x", "nvtx", "pydantic")

R = TypeVar("R", bound=Record)

#: A lab's folder of canonical records (``results/<gpu>.json`` and raw folders): what the site renders.
RESULTS_FOLDER = "results"
#: What a recording killed during its swap leaves in that folder, until labkit.records.writing puts it back.
INTERRUPTED_SWAP_PREFIX = ".previous-"


class ResultsError(LabkitError, ValueError):
    """A results file that cannot be trusted: the message names the file, the field and the fix."""


class ClocksMhz(Record):
    sm: Positive | None
    memory: Positive | None


#: How far ahead of this machine's clock a record's time may be (another machine's clock, time zones done wrong).
FUTURE_SKEW = timedelta(days=1)


class Provenance(Record):
    """Where, when and with what a result was measured."""

    gpu: Annotated[str, StringConstraints(min_length=1)]
    compute_capability: Annotated[str, StringConstraints(pattern=r"^\d+\.\d+$")]
    driver: str
    clocks_mhz: ClocksMhz
    versions: dict[str, str]
    labkit_version: str
    git_commit: str
    utc_time: AwareDatetime
    simulated: bool

    @field_validator("utc_time")
    @classmethod
    def _in_the_past(cls, when: datetime) -> datetime:
        """A record is made before it is read: a date ahead of now (by more than a clock's drift) is
        not a recording's."""
        now = datetime.now(timezone.utc)
        if when > now + FUTURE_SKEW:
            raise ValueError(f"{when.isoformat()} is in the future (it is {now:%Y-%m-%d %H:%M} UTC now)")
        return when

    @property
    def gpu_slug(self) -> str:
        return gpu_slug(self.gpu)


class ResultsFile(Record, Generic[R]):
    """The envelope around a lab's results."""

    schema_version: Literal[SCHEMA_VERSION] = Field(alias="schema")
    lab: Annotated[str, StringConstraints(pattern=r"^lab-\d\d$")]
    provenance: Provenance
    raw_files: dict[str, Sha256] = {}
    results: R


def gpu_slug(gpu_name: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200': the results file's name."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-")


def sha256_of(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def package_versions(names: tuple[str, ...] = VERSIONED_PACKAGES) -> dict[str, str]:
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_commit(repo: Path) -> str:
    """The checked-out commit, with '+dirty' when tracked files differ from it; 'unknown' outside
    a git checkout.

    LABKIT_GIT_COMMIT, when set, wins: on a copy of the tree sent to a GPU machine, the copy's
    .git may be absent or older than the files, and the sender knows the commit it copied.
    """
    override = os.environ.get("LABKIT_GIT_COMMIT")
    if override:
        return override
    try:
        commit = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True,
                                check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=repo,
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("+dirty" if dirty else "")


def provenance(gpu: str, compute_capability: tuple[int, int], driver: str, sm_clock_mhz: float | None,
               mem_clock_mhz: float | None, repo: Path, simulated: bool = False) -> Provenance:
    """Where, when and with what a result was measured (``repo``: the project, for its commit)."""
    return Provenance(
        gpu=gpu,
        compute_capability=f"{compute_capability[0]}.{compute_capability[1]}",
        driver=driver,
        clocks_mhz=ClocksMhz(sm=sm_clock_mhz, memory=mem_clock_mhz),
        versions=package_versions(),
        labkit_version=labkit.__version__,
        git_commit=git_commit(repo),
        utc_time=datetime.now(timezone.utc).replace(microsecond=0),
        simulated=simulated,
    )


def to_json(document: ResultsFile) -> str:
    """The file's text: two-space JSON, keys in the order the classes declare them."""
    return document.model_dump_json(by_alias=True, indent=1) + "\n"


def fix_for(lab_id: str) -> str:
    """What to do about a results file that cannot be trusted."""
    return f"restore it from git, or re-record it on a GPU with `make {lab_id}`"


def parse(text: str, results_type: type[R], source: str, lab_id: str) -> ResultsFile[R]:
    """Validate a results file's text against ``results_type``; ResultsError names ``source`` and the fix."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{source}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
                           f"{fix_for(lab_id)}") from None
    except ValueError as exc:   # an integer longer than Python converts (sys.get_int_max_str_digits())
        raise ResultsError(f"{source}: holds an integer too long to be a measurement ({str(exc).split(':')[0]}); "
                           f"{fix_for(lab_id)}") from None
    except RecursionError:
        raise ResultsError(f"{source}: holds arrays or objects nested thousands deep, which no results file does; "
                           f"{fix_for(lab_id)}") from None
    if not isinstance(data, dict):
        raise ResultsError(f"{source}: holds a JSON {type(data).__name__}, not a results object; {fix_for(lab_id)}")
    try:
        document = ResultsFile[results_type].model_validate_json(text, strict=True)
    except ValidationError as exc:
        raise ResultsError(f"{source}: {describe_validation_error(exc)}; {fix_for(lab_id)}") from None
    return document


def raw_folder(path: Path) -> Path:
    """The folder of a results file's raw profiler outputs: ``results/x.json`` -> ``results/x/``."""
    return Path(path).with_suffix("")


def check_raw_files(path: Path, document: ResultsFile, source: str) -> None:
    """The raw folder beside ``path`` holds exactly the files ``raw_files`` lists, with those digests."""
    folder = raw_folder(path)
    present = {p.name: p for p in folder.iterdir()} if folder.is_dir() else {}
    listed = document.raw_files
    for name in sorted(listed.keys() - present.keys()):
        raise ResultsError(f"{source}: raw file {folder.name}/{name} is listed but missing: restore the folder "
                           "from git, or re-record")
    for name in sorted(present.keys() - listed.keys()):
        raise ResultsError(f"{source}: {folder.name}/{name} is not one of this record's raw files: remove it")
    for name, digest in sorted(listed.items()):
        if sha256_of(present[name]) != digest:
            raise ResultsError(f"{source}: raw file {folder.name}/{name} differs from the one recorded with it: "
                               "restore it from git, or re-record")


def read_results(path: Path, results_type: type[R], lab_id: str, source: str | None = None,
                 canonical: bool = True, allow_simulated: bool = False) -> ResultsFile[R]:
    """Read and validate one results file: its text, its lab, its device facts against what is
    known of its GPU (labkit.records.plausibility), a GPU record's reference measurements against their
    floor (labkit.records.MIN_REFERENCE_SHARE), its raw files, and for a canonical record
    (``results/<gpu>.json``) that its name is its GPU's.

    ``source`` is how messages name the file (default: the path as given).
    """
    source = source or str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ResultsError(f"{source}: cannot be read ({exc.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ResultsError(f"{source}: not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start}); "
                           f"{fix_for(lab_id)}") from None
    document = parse(text, results_type, source, lab_id)
    if document.lab != lab_id:
        raise ResultsError(f"{source}: field lab: holds {document.lab!r}, expected {lab_id!r}: a file of another lab "
                           f"does not belong in this folder")
    impossible = impossible_device_fact(document.model_dump(mode="json", by_alias=True))
    if impossible:
        where, why = impossible
        raise ResultsError(f"{source}: field {where}: {why}: not a record of this GPU; {fix_for(lab_id)}")
    if document.provenance.simulated and not allow_simulated:
        raise ResultsError(f"{source}: field provenance/simulated: a simulator run is not a GPU record: delete it")
    rates = getattr(document.results, "reference_rates", None)
    slow = None if document.provenance.simulated or rates is None else below_reference_floor(rates())
    if slow:
        raise ResultsError(f"{source}: field results: {slow}; {fix_for(lab_id)}")
    expected_name = f"{document.provenance.gpu_slug}.json"
    if canonical and Path(path).name != expected_name:
        raise ResultsError(f"{source}: holds results of {document.provenance.gpu!r}, whose file is {expected_name}: "
                           "rename it")
    check_raw_files(path, document, source)
    return document


#: Records read by read_current, by (path, lab, state of its results/ folder); bounded.
_CURRENT: dict[tuple, ResultsFile] = {}
_CURRENT_MAX = 64


def _folder_state(path: Path) -> tuple:
    """(name, modification time, size) of everything in the record's ``results/`` folder."""
    stats = ((str(p), p.stat()) for p in sorted(path.parent.rglob("*")) if p.is_file())
    return tuple((name, stat.st_mtime_ns, stat.st_size) for name, stat in stats)


def read_current(path: Path, results_type: type[R], lab_id: str, source: str | None = None) -> ResultsFile[R]:
    """:func:`read_results` of a canonical record, the one read side of every reader of records in a
    process (the site's blocks, the chapters' figures): read again when the file or anything in its
    lab's ``results/`` folder changed, so that after a re-recording a page shows one value per
    figure. A record that fails is not kept: each read names the problem."""
    key = (str(path), lab_id, _folder_state(path))
    if key not in _CURRENT:
        if len(_CURRENT) >= _CURRENT_MAX:   # edits under `make serve`: old states go
            _CURRENT.clear()
        _CURRENT[key] = read_results(path, results_type, lab_id, source=source)
    return _CURRENT[key]


class StrayFileError(ResultsError):
    """Something in a results folder that is not a record."""


def recorded_paths(lab_dir: Path, source) -> list[Path]:
    """The canonical results files of a lab, one per GPU; ``source(path)`` names a path in messages.

    Everything visible in ``results/`` must be a ``<gpu>.json`` or the raw folder of one; an
    interrupted recording's leftovers must have been recovered.
    """
    folder = lab_dir / RESULTS_FOLDER
    if not folder.is_dir():
        return []
    files = []
    entries = sorted(folder.iterdir())
    for entry in entries:   # a record misnamed or a dangling link first: its raw folder would be blamed for it
        if entry.is_file() and entry.suffix.lower() == ".json" and entry.suffix != ".json":
            raise StrayFileError(f"{source(entry)}: a record's name ends in .json, in lower case: rename it "
                                 f"{entry.stem}.json")
        if entry.is_symlink() and not entry.exists() and not entry.name.startswith("."):
            raise ResultsError(f"{source(entry)}: a symbolic link to nothing (it points at {os.readlink(entry)}, which "
                               "is missing or loops back): remove it, and restore the record from git or re-record it")
    for entry in entries:
        if entry.name.startswith(INTERRUPTED_SWAP_PREFIX):
            raise ResultsError(f"{source(entry)}: a recording was interrupted during its swap: run `labkit results` "
                               "to put the previous record back")
        if entry.name.startswith("."):
            continue
        if entry.is_file() and entry.suffix == ".json":
            files.append(entry)
        elif entry.is_dir() and (folder / f"{entry.name}.json").is_file():
            continue
        elif entry.is_dir() and not (folder / f"{entry.name}.json").exists():
            raise StrayFileError(f"{source(entry)}: a folder without the record {entry.name}.json it would hold the "
                                 f"raw files of: restore {entry.name}.json (`git restore`, or from where it came), or "
                                 "remove the folder (a results/ folder holds only <gpu>.json files and their raw "
                                 "folders)")
        else:
            kind = "folder" if entry.is_dir() else "file"
            raise StrayFileError(f"{source(entry)}: a {kind} that is not a record of this lab (a results/ folder "
                                 "holds only <gpu>.json files and their raw folders): move it out")
    return files
