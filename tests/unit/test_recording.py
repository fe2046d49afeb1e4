"""Recording is all or nothing: a run failing or interrupted at any step leaves the previous record
(results file and raw folder) byte for byte as it was, and says so truthfully; a run with
non-default sizes never replaces the course's record."""

from __future__ import annotations

import io
import signal
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import Field
from rich.console import Console

from labkit import recording, results
from labkit.lab import Bench, Check, Lab, Program
from labkit.project import Project
from labkit.records import Positive, Record
from labkit.results import ResultsError, ResultsFile, provenance, read_results
from tests.labs.stand_in import FACTS, stand_in_timer

SLUG = "simulated-gpu"


class TinySizes(Record):
    n: Annotated[int, Field(gt=0)] = 4
    threads: Annotated[int, Field(gt=0)] = 32


class TinyResults(Record):
    value: Positive
    sizes: TinySizes


class TinyProgram(Program[TinySizes, TinyResults]):
    """Writes one raw file per run (named after the run) and reports ``value``."""

    steps = 2
    value = 1.0
    raw_names = ("ncu_raw.csv", "sass_k.txt")
    interrupt_at: str | None = None

    def check(self, sizes):
        return [Check(name="tiny", passed=True)]

    def measure(self, bench: Bench, sizes):
        for step, name in zip(("first step", "second step"), self.raw_names):
            bench.progress(step)
            if step == self.interrupt_at:
                raise KeyboardInterrupt
            (bench.work_dir / name).write_text(f"{name} of a run giving {self.value}\n")
        return TinyResults(value=self.value, sizes=sizes)


class TinyLab(Lab[TinySizes, TinyResults]):
    id = "lab-98"
    folder = "98-tiny"
    chapter = "performance/98-tiny.md"
    results_type = TinyResults
    gpu_sizes = TinySizes()
    simulator_sizes = TinySizes(n=2)
    adjustable = ("threads",)

    def __init__(self, program: TinyProgram):
        self._program = program

    def program(self):
        return self._program

    def tables(self, results):
        return []


def document(value: float) -> ResultsFile:
    prov = provenance(FACTS.name, FACTS.compute_capability, FACTS.driver_version, 1980.0, 3201.0, Path("/nonexistent"))
    return ResultsFile[TinyResults](schema=2, lab="lab-98", provenance=prov,
                                    results=TinyResults(value=value, sizes=TinySizes()))


def raw_files(folder: Path, value: float, names=("ncu_raw.csv", "sass_k.txt")) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        (folder / name).write_text(f"{name} of value {value}\n")
    return [folder / name for name in names]


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


@pytest.fixture
def previous(tmp_path):
    """A lab folder holding a record (value 1.0, two raw files); returns (place, snapshot)."""
    place = recording.canonical_place(tmp_path / "labs/98-tiny", SLUG)
    recording.record(place, document(1.0), raw_files(tmp_path / "raw-old", 1.0), "lab-98")
    return place, snapshot(place.folder)


def test_a_record_round_trips_with_its_raw_files(previous):
    place, _ = previous
    loaded = read_results(place.json_path, TinyResults, "lab-98")
    assert loaded.results.value == 1.0
    assert sorted(loaded.raw_files) == ["ncu_raw.csv", "sass_k.txt"]
    assert sorted(p.name for p in place.folder.iterdir()) == [SLUG, f"{SLUG}.json"]


def test_a_new_record_replaces_the_old_one_whole(previous, tmp_path):
    place, _ = previous
    recording.record(place, document(2.0), raw_files(tmp_path / "raw-new", 2.0, ("ncu_raw.csv",)), "lab-98")
    assert read_results(place.json_path, TinyResults, "lab-98").results.value == 2.0
    # the raw file the new run did not produce is gone with the old record
    assert sorted(p.name for p in place.raw_dir.iterdir()) == ["ncu_raw.csv"]
    assert "value 2.0" in (place.raw_dir / "ncu_raw.csv").read_text()


def _fail_on_call(monkeypatch, target, name: str, call: int, error: BaseException):
    original = getattr(target, name)
    calls = []

    def failing(*args, **kwargs):
        calls.append(args)
        if len(calls) == call:
            raise error
        return original(*args, **kwargs)

    monkeypatch.setattr(target, name, failing)


@pytest.mark.parametrize("error", [OSError("disk full"), KeyboardInterrupt()], ids=["error", "ctrl-c"])
@pytest.mark.parametrize("target, name, call", [
    (recording.shutil, "copyfile", 2),        # copying the second raw file into staging
    (recording, "_fsync_file", 1),            # writing the staged results file
    (recording, "read_results", 1),           # validating the staged record
    (recording.os, "chmod", 1),               # just before the swap
    (recording.os, "replace", 1),             # swap: moving the old results file aside
    (recording.os, "replace", 2),             # swap: moving the old raw folder aside
    (recording.os, "replace", 3),             # swap: moving the new results file in
    (recording.os, "replace", 4),             # swap: moving the new raw folder in
], ids=["copy-raw", "write", "validate", "before-swap", "swap-1", "swap-2", "swap-3", "swap-4"])
def test_a_failure_at_any_step_leaves_the_previous_record_intact(previous, tmp_path, monkeypatch, target, name, call,
                                                                 error):
    place, before = previous
    _fail_on_call(monkeypatch, target, name, call, error)
    with pytest.raises(type(error)):
        recording.record(place, document(2.0), raw_files(tmp_path / "raw-new", 2.0), "lab-98")
    monkeypatch.undo()
    assert snapshot(place.folder) == before
    assert sorted(p.name for p in place.folder.iterdir()) == [SLUG, f"{SLUG}.json"]


def test_an_invalid_record_is_refused_before_anything_moves(previous, tmp_path):
    place, before = previous
    bad = document(2.0).model_copy(update={"lab": "lab-97"})
    with pytest.raises(ResultsError, match="expected 'lab-98'"):
        recording.record(place, bad, raw_files(tmp_path / "raw-new", 2.0), "lab-98")
    assert snapshot(place.folder) == before


def test_a_simulated_run_is_never_a_record(previous, tmp_path):
    place, before = previous
    simulated = document(2.0)
    simulated = simulated.model_copy(update={"provenance": simulated.provenance.model_copy(update={"simulated": True})})
    with pytest.raises(ResultsError, match="a simulator run is not a GPU record"):
        recording.record(place, simulated, [], "lab-98")
    assert snapshot(place.folder) == before


def test_ctrl_c_during_the_swap_waits_for_it_to_finish(previous, tmp_path, monkeypatch):
    place, _ = previous
    original = recording._swap

    def swap_hit_by_ctrl_c(*args):
        signal.raise_signal(signal.SIGINT)   # held back until the swap is done
        original(*args)

    monkeypatch.setattr(recording, "_swap", swap_hit_by_ctrl_c)
    with pytest.raises(recording.RecordedThenInterrupted):
        recording.record(place, document(2.0), raw_files(tmp_path / "raw-new", 2.0), "lab-98")
    assert read_results(place.json_path, TinyResults, "lab-98").results.value == 2.0


@pytest.mark.parametrize("killed_at", [2, 3, 4])
def test_a_swap_killed_halfway_is_put_back_by_recover(previous, tmp_path, monkeypatch, killed_at):
    """The process dies at the n-th rename of the swap (no rollback runs): the next recording, or
    `labkit results`, puts the previous record back."""
    place, before = previous
    _fail_on_call(monkeypatch, recording.os, "replace", killed_at, SystemExit("killed"))
    monkeypatch.setattr(recording, "_put_back", lambda *args: None)
    with pytest.raises(SystemExit):
        recording.record(place, document(2.0), raw_files(tmp_path / "raw-new", 2.0, ("ncu_raw.csv",)), "lab-98")
    monkeypatch.undo()
    with pytest.raises(ResultsError, match="interrupted during its swap: run `labkit results`"):
        results.recorded_paths(place.folder.parent, str)
    assert recording.recover(place.folder) == [f"{SLUG}.json"]
    assert snapshot(place.folder) == before
    assert sorted(p.name for p in place.folder.iterdir()) == [SLUG, f"{SLUG}.json"]


@pytest.mark.parametrize("stray, message", [
    ("notes.json", None),
    ("README.txt", "a file that is not a record of this lab"),
    ("orphan/ncu_raw.csv", "a folder that is not a record of this lab"),
])
def test_anything_else_in_results_is_named(previous, stray, message):
    place, _ = previous
    path = place.folder / stray
    path.parent.mkdir(exist_ok=True)
    path.write_text("{}")
    if message is None:   # a JSON is taken for a record, and refused as one
        assert path in results.recorded_paths(place.folder.parent, str)
        with pytest.raises(ResultsError, match="notes.json: field schema: field required"):
            read_results(path, TinyResults, "lab-98")
    else:
        with pytest.raises(ResultsError, match=message):
            results.recorded_paths(place.folder.parent, str)


@pytest.mark.parametrize("tamper, message", [
    (lambda raw: (raw / "ncu_raw.csv").write_text("edited"), "raw file simulated-gpu/ncu_raw.csv differs"),
    (lambda raw: (raw / "sass_k.txt").unlink(), "raw file simulated-gpu/sass_k.txt is listed but missing"),
    (lambda raw: (raw / "extra.csv").write_text("x"), "simulated-gpu/extra.csv is not one of this record's raw files"),
])
def test_raw_files_must_match_the_record(previous, tamper, message):
    place, _ = previous
    tamper(place.raw_dir)
    with pytest.raises(ResultsError, match=message):
        read_results(place.json_path, TinyResults, "lab-98")


# ----- through `labkit run` ----------------------------------------------------------------------
@pytest.fixture
def gpu_run(tmp_path, monkeypatch):
    """run_on_gpu on a stand-in GPU, in a throwaway project holding a previous record of the tiny lab."""
    import labkit.device
    import labkit.timing
    from labkit.labs import runner

    monkeypatch.setattr(labkit.device, "read_device_facts", lambda: FACTS)
    monkeypatch.setattr(labkit.device, "read_clocks", lambda *args: None)
    monkeypatch.setattr(labkit.timing, "time_gpu", stand_in_timer)
    project = Project(tmp_path)
    program = TinyProgram()
    lab = TinyLab(program)
    place = recording.canonical_place(lab.lab_dir(project), SLUG)
    recording.record(place, document(1.0), raw_files(tmp_path / "raw-old", 1.0), "lab-98")

    def run(changes=None, value=2.0, interrupt_at=None):
        program.value, program.interrupt_at = value, interrupt_at
        out = io.StringIO()
        status = runner.run_on_gpu(lab, project, Console(file=out, width=300), True, changes or {})
        return status, out.getvalue()

    return run, place


def test_a_run_records_over_the_previous_one_and_says_where(gpu_run):
    run, place = gpu_run
    status, out = run()
    assert status == 0, out
    assert "Recorded labs/98-tiny/results/simulated-gpu.json as the course's record" in out
    assert read_results(place.json_path, TinyResults, "lab-98").results.value == 2.0


def test_an_interrupted_run_says_truthfully_that_nothing_changed(gpu_run):
    run, place = gpu_run
    before = snapshot(place.folder)
    status, out = run(interrupt_at="second step")
    assert status == 130
    assert ("interrupted during 'second step': nothing was recorded, the previous record "
            "(labs/98-tiny/results/simulated-gpu.json) is unchanged") in out
    assert snapshot(place.folder) == before


def test_an_impossible_result_is_refused_and_nothing_changes(gpu_run):
    run, place = gpu_run
    before = snapshot(place.folder)
    with pytest.raises(ResultsError, match=r"the measured results are not valid \(field value: Input should be "
                                           r"greater than 0.*nothing was recorded"):
        run(value=-1.0)
    assert snapshot(place.folder) == before


def test_a_run_with_other_sizes_records_as_an_experiment(gpu_run):
    run, place = gpu_run
    before = snapshot(place.folder)
    status, out = run(changes={"threads": 64})
    assert status == 0, out
    assert "as an experiment" in out and "the course's record is untouched" in out
    assert snapshot(place.folder) == before
    experiment = place.folder.parent / "experiments" / "simulated-gpu-threads-64.json"
    assert read_results(experiment, TinyResults, "lab-98", canonical=False).results.sizes.threads == 64
