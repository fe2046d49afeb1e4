"""A lab's records as the site's blocks, the chapters' figures, the quizzes and the exercises read
them: labkit.records.files.read_current, named as the project names it; the cases a lab's records hold
(``/// profile | lab-NN-key``, the case quizzes); and lab 03's Little's-law inputs (chapter 3's
figures and exercise 03-ilp).

The lab, case and checklist blocks of every page read the same few records (sixty reads of six
files in a build of one language); each read parses the JSON, holds its device facts to the known
GPUs and hashes its raw files, so a record is read again only when its file or anything in its
lab's ``results/`` folder changes (``make serve`` rebuilds after an edit).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from labkit.errors import LabkitError
from labkit.labs.base import Case, Lab, lab
from labkit.project import Project, find_project
from labkit.records.files import ResultsFile, gpu_slug, read_current, recorded_paths
from labkit.specs.datasheets import COURSE_GPU

class CaseError(LabkitError, ValueError):
    """A case block naming a lab or a case that does not exist."""


def read_recorded(the_lab: Lab, path: Path, project: Project) -> ResultsFile:
    """labkit.records.files.read_current of ``path`` (one of the lab's recorded_paths)."""
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


@dataclass(frozen=True)
class LittleInputs:
    """What Little's law needs for a copy: its bandwidth C (bytes read and written, GB/s), the
    isolated HBM latency, and the SMs that share C."""

    copy_gbps: float
    latency_seconds: float
    sm_count: int


def recorded_results(lab_id: str, gpu: str = COURSE_GPU.driver_name):
    """A lab's recorded results on ``gpu`` (``labs/<lab>/results/<gpu>.json``; the course's GPU by
    default), read through the lab blocks' own read side (labkit.records.files.read_current): a
    re-recorded file is read again, and a measured figure is never typed here."""
    the_lab = lab(lab_id)
    project = find_project(Path(__file__).resolve().parent)
    path = the_lab.lab_dir(project) / "results" / f"{gpu_slug(gpu)}.json"
    return read_current(path, the_lab.results_type, the_lab.id, source=project.relative(path)).results


def little_inputs() -> LittleInputs:
    """Lab 03's measured copy bandwidth C and HBM latency (the pointer chase's HBM plateau) on the
    course's H200: the figures chapter 3's Little's-law example and exercise 03-ilp start from."""
    results = recorded_results("lab-03")
    if results.hbm_latency_seconds is None:
        raise LabkitError("labs/03-occupancy/results: the H200 record has no HBM latency plateau: re-record lab 03")
    return LittleInputs(results.memory.copy_gbps, results.hbm_latency_seconds, results.device.sm_count)
