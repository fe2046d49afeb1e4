"""Recording is all or nothing: a run failing or interrupted at any step leaves the previous record
(results file and raw folder) byte for byte as it was, and says so truthfully; a run with
non-default sizes never replaces the course's record."""

from __future__ import annotations

import errno
import io
import os
import re
import shutil
import signal
from pathlib import Path
from typing import Annotated

import pytest
from pydantic import Field
from rich.console import Console

from labkit.labs.base import Bench, Check, Lab, Program
from labkit.project import Project
from labkit.records import Positive, Record
from labkit.records import writing as recording, files as results
from labkit.records.files import ResultsError, ResultsFile, provenance, read_results
from tests.labs.stand_in import FACTS, stand_in_interleaved, stand_in_timer

SLUG = "simulated-gpu"


class TinySizes(Record):
    n: Annotated[int, Field(gt=0)] = 4
    threads: Annotated[int, Field(gt=0)] = 32


class TinyResults(Record):
    value: Positive
    sizes: TinySizes


class TinyProgram(Program[TinySizes, TinyResults]):
    """Writes one raw file per run (named after the run) and reports ``value``."""

    value = 1.0
    interrupt_at: str | None = None

    def check(self, sizes):
        return [Check(name="tiny", passed=True)]

    def measure(self, bench: Bench, sizes):
        for step, name in (("first step", "ncu_raw.csv"), ("second step", "sass_k.txt")):
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


@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left on device"), KeyboardInterrupt()],
                         ids=["disk-full", "ctrl-c"])
@pytest.mark.parametrize("target, name, call", [
    (recording.shutil, "copyfile", 2),        # copying the second raw file into staging
    (recording, "_fsync_file", 1),            # writing the staged results file
    (recording, "read_results", 1),           # validating the staged record
    (recording.os, "chmod", 1),               # just before the swap
    (recording, "_fsync_file", 2),            # swap: writing the previous record's manifest
    (recording.os, "replace", 1),             # swap: naming the backup .previous-<name>
    (recording.os, "replace", 2),             # swap: moving the old results file aside
    (recording.os, "replace", 3),             # swap: moving the old raw folder aside
    (recording.os, "replace", 4),             # swap: moving the new results file in
    (recording.os, "replace", 5),             # swap: moving the new raw folder in
], ids=["copy-raw", "write", "validate", "before-swap", "manifest", "swap-0", "swap-1", "swap-2", "swap-3", "swap-4"])
def test_a_failure_at_any_step_leaves_the_previous_record_intact(previous, tmp_path, monkeypatch, target, name, call,
                                                                 error):
    """A failure to write (here a full disk) is one line naming the file and the fix, never a bare
    OSError; Ctrl-C is Ctrl-C. Either way the previous record is as it was, with nothing beside it."""
    place, before = previous
    _fail_on_call(monkeypatch, target, name, call, error)
    expected = recording.RecordingError if isinstance(error, OSError) else KeyboardInterrupt
    with pytest.raises(expected) as raised:
        recording.record(place, document(2.0), raw_files(tmp_path / "raw-new", 2.0), "lab-98")
    monkeypatch.undo()
    if isinstance(error, OSError):
        message = str(raised.value)
        assert message.startswith(f"{place.json_path}: writing the record failed (No space left on device"), message
        assert message.endswith("free some disk space, then record again") and "\n" not in message
    assert snapshot(place.folder) == before
    assert sorted(p.name for p in place.folder.iterdir()) == [SLUG, f"{SLUG}.json"]


def test_a_full_disk_through_labkit_run_is_one_line_and_nothing_changes(gpu_run, monkeypatch):
    """ENOSPC while the manifest is written: `labkit run --record` says so in one line."""
    run, place = gpu_run
    before = snapshot(place.folder)
    _fail_on_call(monkeypatch, recording, "_fsync_file", 2, OSError(errno.ENOSPC, "No space left on device"))
    with pytest.raises(ResultsError, match=r"writing the record failed \(No space left on device\): "
                       r"free some disk space, then record again; nothing was recorded, the previous record "
                       r"\(labs/98-tiny/results/simulated-gpu.json\) is unchanged$"):
        run()
    assert snapshot(place.folder) == before


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


@pytest.fixture
def sigint_interrupts(monkeypatch):
    """SIGINT raises KeyboardInterrupt in this test, as in a terminal, whatever this process
    inherited: a shell without job control starts a background job with SIGINT ignored, and a
    test suite launched that way (``make test &`` in a script) would otherwise see no Ctrl-C."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def _swap_hit_by(monkeypatch, signal_number):
    original = recording._swap

    def swap_hit(*args):
        signal.raise_signal(signal_number)   # held back until the swap is done
        original(*args)

    monkeypatch.setattr(recording, "_swap", swap_hit)


def test_ctrl_c_during_the_swap_waits_for_it_to_finish(previous, tmp_path, monkeypatch, sigint_interrupts):
    place, _ = previous
    _swap_hit_by(monkeypatch, signal.SIGINT)
    with pytest.raises(recording.RecordedThenInterrupted):
        recording.record(place, document(2.0), raw_files(tmp_path / "raw-new", 2.0), "lab-98")
    assert read_results(place.json_path, TinyResults, "lab-98").results.value == 2.0


def test_a_process_that_ignores_ctrl_c_keeps_ignoring_it_during_the_swap(previous, tmp_path, monkeypatch):
    """Why the test above once failed under a loaded full run: that run's pytest had been started
    with SIGINT ignored (SIG_IGN), so the Ctrl-C it raised was never going to interrupt anything.
    The swap leaves an ignored signal ignored; the record is whole and no exception is raised."""
    place, _ = previous
    previous_handler = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        _swap_hit_by(monkeypatch, signal.SIGINT)
        recording.record(place, document(2.0), raw_files(tmp_path / "raw-new", 2.0), "lab-98")
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous_handler)
    assert read_results(place.json_path, TinyResults, "lab-98").results.value == 2.0


# ----- killed outright: a child process killed with SIGKILL at each point ----------------------
def _kill_me():
    os.kill(os.getpid(), signal.SIGKILL)


def _after_call(target, name: str, call: int, action=_kill_me):
    """Run the real ``target.name``, and ``action`` after its ``call``-th call."""
    original = getattr(target, name)
    calls = []

    def then_act(*args, **kwargs):
        calls.append(args)
        result = original(*args, **kwargs)
        if len(calls) == call:
            action()
        return result

    setattr(target, name, then_act)


def _before_call(target, name: str, call: int, action=_kill_me):
    original = getattr(target, name)
    calls = []

    def act_first(*args, **kwargs):
        calls.append(args)
        if len(calls) == call:
            action()
        return original(*args, **kwargs)

    setattr(target, name, act_first)


def _manifest_cut(written: str):
    """Writing the manifest: the file is opened (and gets ``written``'s first half, or nothing)."""
    original = recording._fsync_file

    def cut(path, text):
        if path.name != recording._MANIFEST:
            return original(path, text)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text[:len(text) // 2] if written == "half" else "")
            handle.flush()
            os.fsync(handle.fileno())
        _kill_me()

    recording._fsync_file = cut


def _discard_half_removed():
    original = recording.shutil.rmtree

    def half(path, *args, **kwargs):
        if Path(path).name.startswith(recording._DISCARD):
            (Path(path) / recording._MANIFEST).unlink()
            shutil.rmtree(Path(path) / SLUG)
            _kill_me()
        return original(path, *args, **kwargs)

    recording.shutil.rmtree = half


#: Where a recording dies (SIGKILL: no Python code runs after it), and which record must be found
#: once `labkit results` (recover) has run: the old one byte for byte, or the new one whole. The
#: review's 15 points (reviews/2026-12-01, B5) are those of the swap; the first two are before it.
KILL_POINTS = {
    "copying the raw files into staging": (lambda: _after_call(recording.shutil, "copyfile", 1), "old"),
    "staged and validated, before the swap": (lambda: _before_call(recording.os, "chmod", 1), "old"),
    "backup folder made, manifest not written": (lambda: _before_call(recording, "_fsync_file", 2), "old"),
    "manifest opened, empty": (lambda: _manifest_cut("empty"), "old"),
    "manifest half written": (lambda: _manifest_cut("half"), "old"),
    "manifest whole, backup not yet named": (lambda: _before_call(recording.os, "replace", 1), "old"),
    "backup named .previous-": (lambda: _after_call(recording.os, "replace", 1), "old"),
    "old results file moved aside": (lambda: _after_call(recording.os, "replace", 2), "old"),
    "old raw folder moved aside": (lambda: _after_call(recording.os, "replace", 3), "old"),
    "new results file in place": (lambda: _after_call(recording.os, "replace", 4), "old"),
    "new raw folder in place": (lambda: _after_call(recording.os, "replace", 5), "old"),
    "backup renamed .discard-": (lambda: _after_call(recording.os, "replace", 6), "new"),
    "while removing .discard-": (_discard_half_removed, "new"),
    "after record() returned": (lambda: None, "new"),
}


def _in_a_child(work, expected_signal=signal.SIGKILL) -> None:
    """Run ``work()`` in a forked child, which must die of ``expected_signal`` (SIGKILL: nothing of
    Python's runs after it, no rollback, no ``finally``)."""
    pid = os.fork()
    if pid == 0:   # the child: never returns into pytest
        try:
            work()
            _kill_me()
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == expected_signal, f"child status {status}"


@pytest.fixture
def new_record(tmp_path):
    """What the folder holds once the new record (value 2.0, one raw file, ``ncu_raw.csv``) is whole."""
    elsewhere = recording.canonical_place(tmp_path / "elsewhere/labs/98-tiny", SLUG)
    new = document(2.0)
    files = raw_files(tmp_path / "raw-new", 2.0, ("ncu_raw.csv",))
    recording.record(elsewhere, new, files, "lab-98")
    return new, files, snapshot(elsewhere.folder)


@pytest.mark.parametrize("point", KILL_POINTS)
def test_a_recording_killed_at_any_point_leaves_one_whole_record(previous, new_record, point):
    """SIGKILL at each point: `labkit results` (recover) then finds the old record byte for byte
    before the swap is done, the new one whole after, and nothing else in the folder."""
    place, before = previous
    new, files, after = new_record
    arm, survivor = KILL_POINTS[point]

    def work():
        arm()
        recording.record(place, new, files, "lab-98")

    _in_a_child(work)
    if any(p.name.startswith(recording._PREVIOUS) for p in place.folder.iterdir()):
        with pytest.raises(ResultsError, match="interrupted during its swap: run `labkit results`"):
            results.recorded_paths(place.folder.parent, str)
    recording.recover(place.folder)
    assert snapshot(place.folder) == (before if survivor == "old" else after)
    assert sorted(p.name for p in place.folder.iterdir()) == [SLUG, f"{SLUG}.json"]
    assert results.recorded_paths(place.folder.parent, str) == [place.json_path]
    assert read_results(place.json_path, TinyResults, "lab-98").results.value == (1.0 if survivor == "old" else 2.0)


def _first_recording_killed_mid_swap(tmp_path):
    """The place of a first recording (no previous record) killed with its new results file in
    place but not its raw folder."""
    place = recording.canonical_place(tmp_path / "labs/98-tiny", SLUG)
    files = raw_files(tmp_path / "raw-new", 2.0)

    def work():
        _after_call(recording.os, "replace", 2)   # backup named, new results file in place
        recording.record(place, document(2.0), files, "lab-98")

    _in_a_child(work)
    return place


def test_a_first_recording_killed_mid_swap_leaves_no_record(tmp_path):
    """No previous record: killed with the new results file in place but not its raw folder, the
    recovery removes the half-made record rather than keep it."""
    place = _first_recording_killed_mid_swap(tmp_path)
    assert recording.recover(place.folder) == [f"{SLUG}.json"]
    assert list(place.folder.iterdir()) == []


def test_a_recovery_killed_halfway_can_be_run_again(previous, new_record):
    """`labkit results` itself killed while putting the old record back: run again, it finishes."""
    place, before = previous
    new, files, _ = new_record

    def killed_recording():
        _after_call(recording.os, "replace", 4)   # the new results file is in place
        recording.record(place, new, files, "lab-98")

    def killed_recovery():
        _after_call(recording.os, "replace", 1)   # the old results file is back, not the raw folder
        recording.recover(place.folder)

    _in_a_child(killed_recording)
    _in_a_child(killed_recovery)
    assert recording.recover(place.folder) == [f"{SLUG}.json"]
    assert snapshot(place.folder) == before


def test_sigterm_during_the_swap_waits_for_it(previous, new_record):
    """SIGTERM (a job scheduler's stop) in the middle of the swap: the swap finishes, then the
    process dies of it; the new record is whole without any recovery."""
    place, _ = previous
    new, files, after = new_record

    def work():
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        _after_call(recording.os, "replace", 3, lambda: os.kill(os.getpid(), signal.SIGTERM))
        recording.record(place, new, files, "lab-98")

    _in_a_child(work, expected_signal=signal.SIGTERM)
    assert snapshot(place.folder) == after


@pytest.mark.parametrize("leftover", ["empty folder", "empty manifest", "manifest cut short",
                                      "a whole manifest naming nothing", "a manifest that is not UTF-8"])
def test_recovery_never_deletes_a_record_on_the_word_of_no_manifest(previous, leftover):
    """A ``.previous-<name>/`` without a whole manifest of this labkit's (left by an older labkit
    killed before its manifest was written, or made by hand) moved nothing: the record in place
    stays byte for byte, and recovery says it put nothing back. A manifest naming nothing made
    recovery delete the record and its raw files (the audit's case 262)."""
    place, before = previous
    backup = place.folder / f"{recording._PREVIOUS}{SLUG}"
    backup.mkdir()
    contents = {"empty manifest": b"", "manifest cut short": f"{SLUG}.js".encode(),
                "a whole manifest naming nothing": f"{recording._MANIFEST_END}\n".encode(),
                "a manifest that is not UTF-8": b"\xff\xfe" + f"\n{recording._MANIFEST_END}\n".encode()}
    if leftover in contents:
        (backup / recording._MANIFEST).write_bytes(contents[leftover])
    assert recording.recover(place.folder) == []
    assert snapshot(place.folder) == before
    assert sorted(p.name for p in place.folder.iterdir()) == [SLUG, f"{SLUG}.json"]


def test_a_backup_holding_files_without_a_manifest_is_left_for_a_person(previous):
    place, before = previous
    backup = place.folder / f"{recording._PREVIOUS}{SLUG}"
    backup.mkdir()
    (backup / f"{SLUG}.json").write_text("{}")
    with pytest.raises(ResultsError, match=r"\.previous-simulated-gpu: an interrupted recording's backup without its "
                                           r"manifest, holding simulated-gpu\.json: compare them"):
        recording.recover(place.folder)
    assert snapshot(place.folder) == {**before, f".previous-{SLUG}/{SLUG}.json": b"{}"}


@pytest.mark.parametrize("stray, message", [
    ("notes.json", None),
    ("README.txt", "a file that is not a record of this lab"),
    ("orphan/ncu_raw.csv", "a folder without the record orphan.json it would hold the raw files of: restore orphan.json"),
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
    import labkit.gpu.device
    import labkit.gpu.timing
    from labkit.labs import runner

    monkeypatch.setattr(labkit.gpu.device, "read_device_facts", lambda: FACTS)
    monkeypatch.setattr(labkit.gpu.device, "read_clocks", lambda *args: None)
    monkeypatch.setattr(labkit.gpu.timing, "time_gpu", stand_in_timer)
    monkeypatch.setattr(labkit.gpu.timing, "time_interleaved", stand_in_interleaved)
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


def test_a_record_that_arrived_after_a_killed_first_recording_stays(tmp_path):
    """A first recording killed with its results file in place, then a record restored from git:
    recovery removes only what it can prove is the interrupted swap's own (its digest)."""
    place = _first_recording_killed_mid_swap(tmp_path)
    place.json_path.write_text("the record git restored\n")
    assert recording.recover(place.folder) == []
    assert sorted(p.name for p in place.folder.iterdir()) == [f"{SLUG}.json"]
    assert place.json_path.read_text() == "the record git restored\n"


def test_a_record_in_the_way_of_the_previous_one_is_left_for_a_person(previous, new_record):
    place, before = previous
    new, files, _ = new_record

    def work():
        _after_call(recording.os, "replace", 2)   # the old results file moved aside
        recording.record(place, new, files, "lab-98")

    _in_a_child(work)
    place.json_path.write_text("arrived in between\n")
    with pytest.raises(ResultsError, match=r"holds the previous simulated-gpu\.json of an interrupted recording, but "
                                           r"another simulated-gpu\.json is in place"):
        recording.recover(place.folder)
    assert place.json_path.read_text() == "arrived in between\n"


def test_one_recording_at_a_time_per_lab(previous, new_record):
    """Two at once: each one's recovery removed the other's staging folder, and one failed with
    "check the disk" (19 of 20 rounds). The second is now refused, naming who holds the lock, and
    recovery leaves a folder a recording holds alone."""
    place, before = previous
    new, files, _ = new_record
    with recording.recording_lock(place.folder.parent):
        stale = place.folder / f"{recording._STAGING}{SLUG}-busy"
        stale.mkdir()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:   # another process: the lock is per open file, not per process
            try:
                os.close(read)
                try:
                    recording.record(place, new, files, "lab-98")
                    message = "recorded"
                except recording.RecordingError as exc:
                    message = str(exc)
                message += f"|{recording.recover(place.folder)}"
                os.write(write, message.encode())
            finally:
                os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        message, recovered = os.read(read, 4096).decode().split("|")
        os.close(read)
        assert stale.exists() and recovered == "[]"
    assert re.fullmatch(rf"{re.escape(str(place.folder.parent))}: another recording of this lab is running \(process "
                        rf"{os.getpid()}, since .* UTC, .*\): wait for it to end, then record again", message), message
    assert snapshot(place.folder) == {**before}
    assert recording.recover(place.folder) == [] and not stale.exists()
    assert sorted(p.name for p in place.folder.parent.iterdir()) == ["results"]


def test_a_backup_that_is_a_file_is_one_line(previous):
    place, _ = previous
    (place.folder / f"{recording._PREVIOUS}{SLUG}").write_text("x")
    with pytest.raises(ResultsError, match=r"\.previous-simulated-gpu: a file where an interrupted recording's backup "
                                           r"folder goes: look at it, then remove it"):
        recording.recover(place.folder)


def test_a_recovery_the_folder_refuses_is_one_line(previous, new_record, monkeypatch):
    """In a folder one cannot write (the audit ran it as another user): it was "internal error,
    PermissionError ... report it"."""
    place, before = previous
    new, files, _ = new_record

    def work():
        _after_call(recording.os, "replace", 4)   # the new results file is in place
        recording.record(place, new, files, "lab-98")

    _in_a_child(work)

    def refused(*args):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(recording.os, "replace", refused)
    with pytest.raises(ResultsError, match=r"results: putting back an interrupted recording failed \(Permission "
                                           r"denied\): make the folder writable, then run `labkit results` again$"):
        recording.recover(place.folder)
    monkeypatch.undo()
    assert recording.recover(place.folder) == [f"{SLUG}.json"] and snapshot(place.folder) == before
