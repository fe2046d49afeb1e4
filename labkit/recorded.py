"""A lab's records as the site's blocks and the quizzes read them: labkit.results.read_current, the
read side the chapters' figures share, named as the project names it; and the cases a lab's
records hold (``/// profile | lab-NN-key``, the case quizzes).

The lab, case and checklist blocks of every page read the same few records (sixty reads of six
files in a build of one language); each read parses the JSON, holds its device facts to the known
GPUs and hashes its raw files, so a record is read again only when its file or anything in its
lab's ``results/`` folder changes (``make serve`` rebuilds after an edit).
"""

from __future__ import annotations

from pathlib import Path

from labkit.errors import LabkitError
from labkit.lab import Case, Lab
from labkit.project import Project
from labkit.results import ResultsFile, read_current, recorded_paths


class CaseError(LabkitError, ValueError):
    """A case block naming a lab or a case that does not exist."""


def read_recorded(the_lab: Lab, path: Path, project: Project) -> ResultsFile:
    """labkit.results.read_current of ``path`` (one of the lab's recorded_paths)."""
    return read_current(path, the_lab.results_type, the_lab.id, source=project.relative(path))


def recorded_cases(the_lab: Lab, key: str, project: Project) -> list[tuple[str, Case]]:
    """(GPU, case) for every GPU the lab was recorded on; CaseError when the records hold cases but not
    this one."""
    out = []
    for path in recorded_paths(the_lab.lab_dir(project), project.relative):
        document = read_recorded(the_lab, path, project)
        cases = the_lab.cases(document.results)
        if cases and key not in cases:
            raise CaseError(f"{the_lab.id} has no case '{key}': its cases are {', '.join(cases)}")
        if key in cases:
            out.append((document.provenance.gpu, cases[key]))
    return out
