"""Results files: one per lab and GPU, with provenance, validated on write and on load.

A results file is JSON: ``{"schema": 1, "lab": "lab-04", "provenance": {...}, "results": {...}}``.
It is written atomically (a temporary file in the same folder, then ``os.replace``), so an
interrupted run never leaves a half-written file. Simulator runs never write one.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

import jsonschema

import labkit

SCHEMA_VERSION = 1
REPO_ROOT = Path(__file__).resolve().parents[1]

PROVENANCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["gpu", "compute_capability", "driver", "clocks_mhz", "versions", "labkit_version",
                 "git_commit", "utc_time", "simulated"],
    "properties": {
        "gpu": {"type": "string", "minLength": 1},
        "compute_capability": {"type": "string", "pattern": r"^\d+\.\d+$"},
        "driver": {"type": "string"},
        "clocks_mhz": {
            "type": "object",
            "required": ["sm", "memory"],
            "properties": {"sm": {"type": ["number", "null"]}, "memory": {"type": ["number", "null"]}},
        },
        "versions": {"type": "object", "additionalProperties": {"type": "string"}},
        "labkit_version": {"type": "string"},
        "git_commit": {"type": "string"},
        "utc_time": {"type": "string", "format": "date-time"},
        "simulated": {"const": False},
    },
}

ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["schema", "lab", "provenance", "results"],
    "additionalProperties": False,
    "properties": {
        "schema": {"const": SCHEMA_VERSION},
        "lab": {"type": "string", "pattern": r"^lab-\d\d$"},
        "provenance": PROVENANCE_SCHEMA,
        "results": {"type": "object"},
    },
}


class ResultsError(ValueError):
    """A results file that cannot be trusted: the message names the file and the field."""


def gpu_slug(gpu_name: str) -> str:
    """'NVIDIA H200' -> 'nvidia-h200': the results file's name."""
    return re.sub(r"[^a-z0-9]+", "-", gpu_name.lower()).strip("-")


def results_path(lab_dir: Path, gpu_name: str) -> Path:
    return lab_dir / "results" / f"{gpu_slug(gpu_name)}.json"


def recorded_files(lab_dir: Path) -> list[Path]:
    """Every results file of a lab, one per GPU it was recorded on."""
    return sorted((lab_dir / "results").glob("*.json"))


def package_versions(names: tuple[str, ...] = ("numpy", "numba", "numba-cuda", "cupy-cuda13x", "cupy-cuda12x", "nvtx")) -> dict[str, str]:
    versions = {}
    for name in names:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
    return versions


def git_commit(repo: Path = REPO_ROOT) -> str:
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


def provenance(gpu: str, compute_capability: tuple[int, int], driver: str,
               sm_clock_mhz: float | None, mem_clock_mhz: float | None) -> dict[str, Any]:
    """Where, when and with what a GPU result was measured."""
    return {
        "gpu": gpu,
        "compute_capability": f"{compute_capability[0]}.{compute_capability[1]}",
        "driver": driver,
        "clocks_mhz": {"sm": sm_clock_mhz, "memory": mem_clock_mhz},
        "versions": package_versions(),
        "labkit_version": labkit.__version__,
        "git_commit": git_commit(),
        "utc_time": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "simulated": False,
    }


def _first_error(document: Any, schema: dict[str, Any], prefix: str = "") -> str | None:
    error = jsonschema.exceptions.best_match(jsonschema.Draft202012Validator(schema).iter_errors(document))
    if error is None:
        return None
    where = prefix + "/".join(str(p) for p in error.absolute_path)
    return f"field {where or '(top level)'}: {error.message}"


def validate(document: Any, results_schema: dict[str, Any], source: str) -> None:
    """Raise ResultsError naming source and the first bad field: the envelope first, then the lab's part."""
    problem = _first_error(document, ENVELOPE_SCHEMA)
    if problem is None:
        problem = _first_error(document["results"], results_schema, prefix="results/")
    if problem:
        raise ResultsError(f"{source}: {problem}")


def write_results(path: Path, lab: str, prov: dict[str, Any], results: dict[str, Any],
                  results_schema: dict[str, Any]) -> Path:
    """Validate, then write atomically: readers see the old file or the new one, never half of one."""
    document = {"schema": SCHEMA_VERSION, "lab": lab, "provenance": prov, "results": results}
    validate(document, results_schema, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            json.dump(document, handle, indent=1, ensure_ascii=False)
            handle.write("\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a results file is for everyone to read
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def load_results(path: Path, lab: str, results_schema: dict[str, Any]) -> dict[str, Any]:
    """Read and validate one results file; any problem is a ResultsError naming the file and field."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise ResultsError(f"{path}: cannot be read ({exc.strerror})") from None
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path}: not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
    validate(document, results_schema, str(path))
    if document["lab"] != lab:
        raise ResultsError(f"{path}: field lab: holds {document['lab']!r}, expected {lab!r}")
    return document
