"""What ``labkit run lab-NN [--record]`` does, for every lab.

On a GPU: the lab's measurements, shown, and with --record written to the lab's results file
(with provenance) and its raw profiler outputs beside it. Without one: the kernels in the Numba
CUDA simulator at small size, checked against NumPy, then the results recorded on a real GPU,
labelled as recorded. Simulator runs never write results.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import replace
from pathlib import Path

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table as RichTable

from labkit.backend import NO_GPU_NOTICE, select_backend
from labkit.labs import load_lab, load_program
from labkit.labs.tables import format_cell
from labkit.results import load_results, provenance, recorded_files, results_path, write_results
from labkit.site.labels import label


def english(key: str) -> str:
    return label("en", key)


def show_tables(tables, console: Console) -> None:
    for table in tables:
        rich_table = RichTable(title=english(f"table.{table.id}"), title_justify="left")
        for column in table.columns:
            rich_table.add_column(english(f"column.{column.id}"),
                                  justify="left" if column.kind in ("text", "label") else "right")
        for row in table.rows:
            rich_table.add_row(*(format_cell(v, c.kind, "en", english) for v, c in zip(row, table.columns)))
        console.print(rich_table)


def show_recorded(lab, console: Console) -> None:
    files = recorded_files(lab.LAB_DIR)
    if not files:
        console.print(f"No results recorded yet for {lab.LAB_ID}: run `make {lab.LAB_ID}` on a GPU with --record.")
        return
    for path in files:
        document = load_results(path, lab.LAB_ID, lab.RESULTS_SCHEMA)
        prov = document["provenance"]
        console.rule(f"RECORDED on {prov['gpu']} (CC {prov['compute_capability']}, driver {prov['driver']}, "
                     f"SM {prov['clocks_mhz']['sm']} MHz) at {prov['utc_time']}, commit {prov['git_commit'][:12]}")
        show_tables(lab.tables(document["results"]), console)


def run_simulated(lab, program, console: Console, record: bool, overrides: dict) -> int:
    console.print(NO_GPU_NOTICE)
    if record:
        console.print("--record ignored: a simulator run never writes GPU results.")
    with console.status(f"{lab.LAB_ID}: running the kernels in the simulator and checking them against NumPy"):
        checks = program.check_against_numpy(replace(lab.SIMULATOR_SIZES, **overrides))
    for name, passed in checks:
        console.print(f"  {'ok  ' if passed else 'FAIL'} {name}")
    if not all(passed for _, passed in checks):
        console.print("A kernel disagrees with NumPy: see FAIL above.")
        return 1
    show_recorded(lab, console)
    return 0


def run_on_gpu(lab, program, console: Console, record: bool, overrides: dict) -> int:
    from labkit.device import read_clocks, read_device_facts

    facts = read_device_facts()
    console.print(f"{lab.LAB_ID} on {facts.name} (CC {facts.compute_capability[0]}.{facts.compute_capability[1]}, "
                  f"{facts.sm_count} SMs)")
    with tempfile.TemporaryDirectory(prefix=f"{lab.LAB_ID}-") as tmp:
        work_dir = Path(tmp)
        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                      console=console) as bar:
            task = bar.add_task(lab.LAB_ID, total=program.MEASURE_STEPS)

            def progress(step: str) -> None:
                bar.update(task, description=step)
                bar.advance(task)

            results = program.measure(progress, work_dir, replace(lab.GPU_SIZES, **overrides))
        clocks = read_clocks()
        show_tables(lab.tables(results), console)
        if not record:
            console.print("Not recorded (add --record to write the results file).")
            return 0
        prov = provenance(facts.name, facts.compute_capability, facts.driver_version,
                          clocks.sm_mhz if clocks else None, clocks.mem_mhz if clocks else None)
        path = results_path(lab.LAB_DIR, facts.name)
        raw_dir = path.with_suffix("")
        for produced in sorted(work_dir.iterdir()):
            if produced.is_file() and produced.suffix in (".csv", ".txt"):
                raw_dir.mkdir(parents=True, exist_ok=True)
                staged = raw_dir / f".{produced.name}.tmp"
                shutil.copyfile(produced, staged)
                os.replace(staged, raw_dir / produced.name)
        write_results(path, lab.LAB_ID, prov, results, lab.RESULTS_SCHEMA)
        console.print(f"Recorded {path} (raw profiler outputs in {raw_dir}).")
    return 0


def run_lab(lab_id: str, record: bool, console: Console | None = None, threads_per_block: int | None = None) -> int:
    """Run a lab; ``threads_per_block`` overrides the block size of the lab's adjustable kernels."""
    console = console or Console()
    backend = select_backend()
    lab, program = load_lab(lab_id), load_program(lab_id)
    overrides = {} if threads_per_block is None else {"threads_per_block": threads_per_block}
    adjustable = set(lab.GPU_SIZES.__dataclass_fields__)
    if not set(overrides) <= adjustable:
        raise ValueError(f"{lab_id} has no adjustable {', '.join(sorted(set(overrides) - adjustable))}")
    if backend == "simulator":
        return run_simulated(lab, program, console, record, overrides)
    return run_on_gpu(lab, program, console, record, overrides)
