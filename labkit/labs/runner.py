"""What ``labkit run lab-NN [--record]`` does, for every lab.

On a GPU: the lab's measurements, shown, and with --record written (all or nothing) as the lab's
record for this GPU, with provenance and the raw profiler outputs beside it; a run whose sizes
differ from the lab's (``--threads``) records as an experiment, never over the course's record.
Without a GPU: the kernels in the Numba CUDA simulator at small size, checked against NumPy,
then the results recorded on a real GPU, labelled as recorded. Simulator runs never write results.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import ValidationError
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from labkit.gpu.backend import NO_GPU_NOTICE, select_backend
from labkit.labs.base import Bench, Lab
from labkit.project import Project
from labkit.records.writing import RecordedThenInterrupted, canonical_place, experiment_place, record
from labkit.report.labels import label
from labkit.errors import EXIT_ERROR, EXIT_INTERRUPTED
from labkit.report.numbers import format_number
from labkit.report.terminal import show_tables
from labkit.records.files import (SCHEMA_VERSION, ResultsError, ResultsFile, describe_validation_error, gpu_slug,
    provenance, read_results, recorded_paths)



@dataclass
class RunReport:
    """What a run did, for ``labkit run --json``."""

    lab: str
    backend: str
    checks: list = field(default_factory=list)
    measured: object = None                 # the lab's results (a GPU run)
    recorded_path: str | None = None        # where a GPU run recorded them
    recorded: list = field(default_factory=list)   # the records shown (a simulator run)

    def as_json(self) -> dict:
        return {"lab": self.lab, "backend": self.backend,
                "checks": [check.model_dump(mode="json") for check in self.checks],
                "measured": self.measured.model_dump(mode="json", by_alias=True) if self.measured else None,
                "recorded_path": self.recorded_path,
                "recorded": [document.model_dump(mode="json", by_alias=True) for document in self.recorded]}


def show_recorded(lab: Lab, project: Project, console: Console, lang: str = "en") -> list:
    """Every GPU's record of the lab: its provenance line, then its tables (in ``lang``: English
    in the terminal, a notebook's language in a notebook); returns the records."""
    paths = recorded_paths(lab.lab_dir(project), project.relative)
    if not paths:
        console.print(label(lang, "notebook.no_record").format(lab=lab.id))
        return []
    documents = []
    for path in paths:
        document = read_results(path, lab.results_type, lab.id, source=project.relative(path))
        documents.append(document)
        prov = document.provenance
        # a rule, then the line under it: as a rule's title a long line was cut ("commit 8fd6…")
        console.rule()
        console.print(label(lang, "notebook.recorded_rule").format(
            gpu=prov.gpu, cc=prov.compute_capability, driver=prov.driver, sm=format_number(prov.clocks_mhz.sm, 0, lang),
            time=prov.utc_time.isoformat(), commit=prov.git_commit[:12]), markup=False, highlight=False, soft_wrap=True)
        show_tables(lab.tables(document.results), console, lang)
    return documents


def show_checks(checks, console: Console) -> bool:
    for check in checks:
        console.print(f"  {'ok  ' if check.passed else 'FAIL'} {check.name}")
    return all(check.passed for check in checks)


def run_simulated(lab: Lab, project: Project, console: Console, record_asked: bool, changes: dict,
                  report: RunReport) -> int:
    console.print(NO_GPU_NOTICE)
    if record_asked:
        console.print("--record ignored: a simulator run never writes GPU results.")
    sizes = lab.sizes_with(changes, lab.simulator_sizes)
    with console.status(f"{lab.id}: running the kernels in the simulator and checking them against NumPy"):
        checks = lab.program().check(sizes)
    report.checks = checks
    if not show_checks(checks, console):
        console.print("A kernel disagrees with NumPy: see FAIL above.")
        return EXIT_ERROR
    recorded = [read_results(path, lab.results_type, lab.id, source=project.relative(path)).results
                for path in recorded_paths(lab.lab_dir(project), project.relative)]
    with console.status(f"{lab.id}: computing what needs no GPU"):
        tables = lab.program().simulator_tables(recorded)
    show_tables(tables, console)
    report.recorded = show_recorded(lab, project, console)
    return 0


def experiment_tag(changes: dict) -> str:
    """{'threads_per_block': 512} -> 'threads-per-block-512'."""
    return "-".join(f"{name.replace('_', '-')}-{value}" for name, value in sorted(changes.items()))


def run_on_gpu(lab: Lab, project: Project, console: Console, record_asked: bool, changes: dict,
               report: RunReport | None = None) -> int:
    from labkit.gpu.device import read_clocks, read_device_facts
    from labkit.gpu.timing import time_gpu, time_interleaved

    facts = read_device_facts()
    planned = lab.sizes_for(facts)   # the lab's sizes on this GPU (the course's on the H200)
    sizes = lab.sizes_with(changes, planned)
    slug = gpu_slug(facts.name)
    place = (canonical_place(lab.lab_dir(project), slug) if sizes == planned
             else experiment_place(lab.lab_dir(project), slug, experiment_tag(changes)))
    unchanged = f"the previous record ({project.relative(place.json_path)}) is unchanged"
    console.print(f"{lab.id} on {facts.name} (CC {facts.compute_capability[0]}.{facts.compute_capability[1]}, "
                  f"{facts.sm_count} SMs)")
    if planned != lab.gpu_sizes:
        differ = sorted(name for name in type(planned).model_fields if getattr(planned, name) != getattr(lab.gpu_sizes, name))
        console.print(f"Sizes planned for this GPU (its memory, SMs and occupancy; labkit/labs/lab{lab.number}/sizing.py) "
                      f"differ from the course's H200 in: {', '.join(differ)}.")
    program = lab.program()
    step = "setting up"
    try:
        with tempfile.TemporaryDirectory(prefix=f"{lab.id}-") as tmp:
            work_dir = Path(tmp)
            with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TimeElapsedColumn(), console=console) as bar:
                task = bar.add_task(lab.id, total=program.steps)

                def progress(description: str) -> None:
                    nonlocal step
                    step = description
                    bar.update(task, description=description)
                    bar.advance(task)

                try:
                    results = program.measure(Bench(facts, time_gpu, time_interleaved, work_dir, progress), sizes)
                except ValidationError as exc:
                    raise ResultsError(f"{lab.id}: the measured results are not valid ({describe_validation_error(exc)}); "
                                       f"nothing was recorded, {unchanged}") from None
            if report is not None:
                report.measured, report.checks = results, list(getattr(results, "checks", []))
            show_tables(lab.tables(results), console)
            if not record_asked:
                console.print("Not recorded (add --record to write the results file).")
                return 0
            step = "recording"
            clocks = read_clocks()
            prov = provenance(facts.name, facts.compute_capability, facts.driver_version,
                              clocks.sm_mhz if clocks else None, clocks.mem_mhz if clocks else None, project.root)
            document = ResultsFile[lab.results_type](schema=SCHEMA_VERSION, lab=lab.id, provenance=prov, results=results)
            raw = sorted(p for p in work_dir.iterdir() if p.is_file() and p.suffix in (".csv", ".txt"))
            try:
                path = record(place, document, raw, lab.id)
            except ResultsError as exc:
                raise ResultsError(f"{exc}; nothing was recorded, {unchanged}") from None
    except RecordedThenInterrupted as done:
        console.print(f"labkit: interrupted just after recording {project.relative(done.path)} (the record is whole).")
        return EXIT_INTERRUPTED
    except KeyboardInterrupt:
        console.print(f"labkit: interrupted during '{step}': nothing was recorded, {unchanged}.")
        return EXIT_INTERRUPTED
    if report is not None:
        report.recorded_path = project.relative(path)
    kind = "the course's record" if place.canonical else "an experiment (sizes differ from the lab's; the course's record is untouched)"
    raw_note = f"with {len(raw)} raw profiler output(s) in {project.relative(place.raw_dir)}" if raw else \
        "with no raw profiler output (no profiler ran)"
    console.print(f"Recorded {project.relative(path)} as {kind}, {raw_note}. See it on the site: make serve.")
    return 0


def run_lab(lab: Lab, project: Project, record_asked: bool, console: Console | None = None,
            changes: dict | None = None, report: RunReport | None = None) -> int:
    """Run a lab; ``changes`` overrides adjustable sizes (e.g. threads_per_block); ``report``
    collects what the run did."""
    console = console or Console()
    changes = changes or {}
    lab.sizes_with(changes)   # refuses a change to a size the lab does not let users adjust
    backend = select_backend()
    report = report if report is not None else RunReport(lab.id, backend)
    from labkit.gpu import expected_warnings_hidden

    with expected_warnings_hidden():
        if backend == "simulator":
            return run_simulated(lab, project, console, record_asked, changes, report)
        return run_on_gpu(lab, project, console, record_asked, changes, report)
