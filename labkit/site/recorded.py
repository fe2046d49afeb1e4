"""A lab's record as the site's blocks read it: validated once per build process while it is unchanged.

The lab, case and checklist blocks of every page read the same few records (sixty reads of six
files in a build of one language); each read parses the JSON, holds its device facts to the known
GPUs and hashes its raw files. A record is read again when its file or anything in its lab's
``results/`` folder changes (``make serve`` rebuilds after an edit). A record that fails is not
kept: each block that reads it names the problem.
"""

from __future__ import annotations

from pathlib import Path

from labkit.lab import Lab
from labkit.project import Project
from labkit.results import ResultsFile, read_results

_READ: dict[tuple, ResultsFile] = {}


def _state(path: Path) -> tuple:
    """(name, modification time, size) of everything in the record's ``results/`` folder."""
    stats = ((str(p), p.stat()) for p in sorted(path.parent.rglob("*")) if p.is_file())
    return tuple((name, stat.st_mtime_ns, stat.st_size) for name, stat in stats)


def read_recorded(the_lab: Lab, path: Path, project: Project) -> ResultsFile:
    """labkit.results.read_results of ``path`` (one of the lab's recorded_paths), named as the project names it."""
    key = (str(path), the_lab.id, _state(path))
    if key not in _READ:
        if len(_READ) > 64:  # edits under `make serve`: keep the memory of old states bounded
            _READ.clear()
        _READ[key] = read_results(path, the_lab.results_type, the_lab.id, source=project.relative(path))
    return _READ[key]
