"""A lab's record as the site's blocks read it: labkit.results.read_current, the read side the
chapters' figures share, named as the project names it.

The lab, case and checklist blocks of every page read the same few records (sixty reads of six
files in a build of one language); each read parses the JSON, holds its device facts to the known
GPUs and hashes its raw files, so a record is read again only when its file or anything in its
lab's ``results/`` folder changes (``make serve`` rebuilds after an edit).
"""

from __future__ import annotations

from pathlib import Path

from labkit.lab import Lab
from labkit.project import Project
from labkit.results import ResultsFile, read_current


def read_recorded(the_lab: Lab, path: Path, project: Project) -> ResultsFile:
    """labkit.results.read_current of ``path`` (one of the lab's recorded_paths)."""
    return read_current(path, the_lab.results_type, the_lab.id, source=project.relative(path))
