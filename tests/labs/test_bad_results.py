"""A recorded results file changed in one place: `labkit results` and the site's lab block each say
what is wrong in one line naming the file and the field, exit with an error, and change nothing.

Each case takes the real H200 record of a lab, in a throwaway copy of the course's labs/, and
breaks one thing: a field removed, an unknown value, a wrong type, a number that cannot be true
(NaN, infinity, zero time, faster than the theoretical peaks), a missing or doubled phase, raw
files that no longer match, bytes that are not UTF-8, JSON that is not an object, a stray file.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import markdown
import pytest

from labkit.cli import main
from labkit.site.block_extension import BlockError
from labkit.site.lab_block import LabExtension
from tests.conftest import REPO_ROOT

FILES = {"lab-01": "labs/01-roofline/results/nvidia-h200.json", "lab-02": "labs/02-coalescing/results/nvidia-h200.json",
         "lab-04": "labs/04-profiling/results/nvidia-h200.json"}


def edit(change):
    """A corruption that loads the JSON, applies ``change(document)`` and writes it back."""
    def apply(path: Path) -> None:
        document = json.loads(path.read_text())
        change(document)
        path.write_text(json.dumps(document, indent=1))
    return apply


def replace_text(old: str, new: str, count: int = 1):
    def apply(path: Path) -> None:
        text = path.read_text()
        assert old in text, old
        path.write_text(text.replace(old, new, count))
    return apply


def scale(pointer: str, factor: float):
    """Multiply the number at a /-separated pointer under 'results'."""
    def change(document):
        *parents, last = pointer.split("/")
        node = document["results"]
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        key = int(last) if isinstance(node, list) else last
        node[key] = node[key] * factor
    return edit(change)


def lab01(change):
    return ("lab-01", change)


def lab04(change):
    return ("lab-04", change)


def lab02(change):
    return ("lab-02", change)


def _stored_metric(name: str, value):
    """Set one metric of lab 04's first stored ncu profile."""
    return edit(lambda d: d["results"]["ncu"]["kernels"][0]["metrics"][name].update(value=value))


def _faster(row_pointer: str, factor: float):
    """Divide a timing's median and min by ``factor`` (the run looks that much faster)."""
    def change(document):
        node = document["results"]
        for part in row_pointer.split("/"):
            node = node[int(part)] if isinstance(node, list) else node[part]
        node["median_seconds"] /= factor
        node["min_seconds"] /= factor
    return edit(change)


CASES = {
    "reference_is removed": (*lab01(edit(lambda d: d["results"]["ceilings"]["hbm"].pop("reference_is"))),
                             "field results/ceilings/hbm/reference_is: field required"),
    "reference_is unknown": (*lab01(edit(lambda d: d["results"]["ceilings"]["hbm"].update(reference_is="guess"))),
                             "field results/ceilings/hbm/reference_is: Input should be 'cupy_copyto' or 'theoretical'"),
    "a number as text": (*lab01(edit(lambda d: d["results"]["placement"][0].update(flops="low"))),
                         "field results/placement/0/flops: Input should be a valid number"),
    "zero FLOPs": (*lab01(edit(lambda d: d["results"]["ceilings"]["fp32"].update(flops=0))),
                   "field results/ceilings/fp32/flops: Input should be greater than 0"),
    "infinite peak": (*lab01(replace_text('"hbm_peak_gbps": 4814.304', '"hbm_peak_gbps": Infinity')),
                      "field results/device/hbm_peak_gbps: Input should be a finite number"),
    "NaN": (*lab01(replace_text('"flops": 268435456.0', '"flops": NaN')),
            "Input should be a finite number"),
    "sweep x10": (*lab01(scale("sweep/5/flops", 10)), "is above the theoretical roof min(P, I x B)"),
    "copy faster than HBM": (*lab01(scale("ceilings/hbm/copy_bytes", 2)),
                             "is above the GPU's theoretical HBM peak"),
    "FMA above its peak": (*lab01(scale("ceilings/fp32/flops", 1.2)), "is above the FMA peak"),
    "faster than t_min": (*lab01(_faster("placement/1/timing", 100)), "placement reduction: t_real"),
    "failed check": (*lab01(edit(lambda d: d["results"]["checks"][0].update(passed=False))),
                     "checks against NumPy failed: copy"),
    "missing sweep point": (*lab01(edit(lambda d: d["results"]["sweep"].pop(3))), "sweep: FMAs per element"),
    "unknown field": (*lab01(edit(lambda d: d.update(extra=1))), "field extra: extra inputs are not permitted"),
    "old schema": (*lab01(edit(lambda d: d.update(schema=1))), "field schema: Input should be 2"),
    "another lab's file": (*lab01(edit(lambda d: d.update(lab="lab-04"))), "expected 'lab-01'"),
    "zero time": (*lab04(edit(lambda d: d["results"]["totals"]["repaired"].update(median_seconds=0))),
                  "field results/totals/repaired/median_seconds: Input should be greater than 0"),
    "ncu ok without kernels": (*lab04(edit(lambda d: d["results"]["ncu"].pop("kernels"))),
                               "field results/ncu/ok/kernels: field required"),
    "phase missing": (*lab04(edit(lambda d: d["results"]["phases"].pop(1))), "phases: holds ['transfer', 'layer'"),
    "phase doubled": (*lab04(edit(lambda d: d["results"]["phases"].__setitem__(1, d["results"]["phases"][0]))),
                      "phases: holds ['transfer', 'transfer'"),
    "sass without status": (*lab04(edit(lambda d: d["results"].update(sass={"x": {}}))),
                            "field results/sass: Unable to extract tag using discriminator 'status'"),
    "L2 read faster than HBM": (*lab04(_faster("timer/l2/3/timing", 10)),
                                "timer/l2 hbm_passes"),
    "raw file edited": (*lab04(lambda path: (path.with_suffix("") / "ncu_raw.csv").write_text("edited\n")),
                        "raw file nvidia-h200/ncu_raw.csv differs from the one recorded with it"),
    "raw file missing": (*lab04(lambda path: (path.with_suffix("") / "sass_scale_add.txt").unlink()),
                         "raw file nvidia-h200/sass_scale_add.txt is listed but missing"),
    "not UTF-8": (*lab01(lambda path: path.write_bytes(path.read_bytes().replace(b"NVIDIA H200", b"NVIDIA \xff200", 1))),
                  "not UTF-8 text (byte 0xff"),
    "not an object": (*lab01(lambda path: path.write_text("[1, 2]")), "holds a JSON list, not a results object"),
    "cut short": (*lab01(lambda path: path.write_text(path.read_text()[:200])), "not valid JSON (line"),
    # the audit's silent passes: a stored profile's values held to their units, a launch the lab has not, a future date
    "stored count negative": (*lab04(_stored_metric("dram__bytes_read.sum", -1)),
                              "field results/ncu/ok/kernels/0/metrics: dram__bytes_read.sum: -1 Mbyte is negative"),
    "stored value a word": (*lab04(_stored_metric("gpu__time_duration.sum", "fast")),
                            "field results/ncu/ok/kernels/0/metrics: gpu__time_duration.sum: 'fast' is not a number"),
    "stored percentage 150": (*lab04(_stored_metric("l1tex__t_sector_hit_rate.pct", 150.0)),
                              "l1tex__t_sector_hit_rate.pct: 150 % is above 100 %"),
    "unknown launch label": (*lab02(edit(lambda d: d["results"]["sweep"][1]["run"].update(launch="sweep.fast"))),
                             "a kernel run's launch is 'sweep.fast', which is not a launch of this lab: the run of "
                             "sweep.4B.s2.o0 must be named so"),
    "recorded in 2999": (*lab01(edit(lambda d: d["provenance"].update(utc_time="2999-01-01T00:00:00+00:00"))),
                         "field provenance/utc_time: 2999-01-01T00:00:00+00:00 is in the future"),
}

STRAY = {
    "stray JSON": (lambda results: (results / "notes.json").write_text("{}"),
                   "labs/01-roofline/results/notes.json: field schema: field required"),
    "stray file": (lambda results: (results / "README.txt").write_text("notes"),
                   "labs/01-roofline/results/README.txt: a file that is not a record of this lab"),
    "misnamed record": (lambda results: shutil.copy(results / "nvidia-h200.json", results / "nvidia-a100.json"),
                        "nvidia-a100.json: holds results of 'NVIDIA H200', whose file is nvidia-h200.json"),
    # it was its raw folder that was blamed ("not a record ... move it out"): harmful advice
    "record named .JSON": (lambda results: (results / "nvidia-h200.json").rename(results / "nvidia-h200.JSON"),
                           "labs/01-roofline/results/nvidia-h200.JSON: a record's name ends in .json, in lower case: "
                           "rename it nvidia-h200.json"),
}


@pytest.fixture
def course(tmp_path, monkeypatch):
    """A throwaway copy of the course's mkdocs.yml and labs/, as the working directory."""
    shutil.copy(REPO_ROOT / "mkdocs.yml", tmp_path)
    shutil.copytree(REPO_ROOT / "labs", tmp_path / "labs")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LABKIT_PROJECT", raising=False)
    return tmp_path


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def check_one_line(course: Path, capsys, lab_id: str, message: str) -> None:
    before = snapshot(course)
    assert main(["results"]) == 1
    out = capsys.readouterr().out
    invalid = [line for line in out.splitlines() if "INVALID" in line]
    assert len(invalid) == 1, out
    assert invalid[0].startswith(f"{lab_id}: INVALID labs/") and message in invalid[0], invalid[0]
    assert "Traceback" not in out
    with pytest.raises(BlockError) as raised:
        markdown.markdown(f"/// lab | {lab_id}\n///\n", extensions=[LabExtension(lang="fr", project=str(course))])
    assert message in str(raised.value) and "\n" not in str(raised.value)
    assert snapshot(course) == before


@pytest.mark.parametrize("case", CASES)
def test_a_broken_results_file_is_one_line_and_nothing_changes(course, capsys, case):
    lab_id, corrupt, message = CASES[case]
    corrupt(course / FILES[lab_id])
    check_one_line(course, capsys, lab_id, message)


@pytest.mark.parametrize("case", STRAY)
def test_anything_but_records_in_results_is_one_line(course, capsys, case):
    place, message = STRAY[case]
    place(course / "labs/01-roofline/results")
    check_one_line(course, capsys, "lab-01", message)


def test_the_course_records_are_valid(course, capsys):
    assert main(["results"]) == 0
    out = capsys.readouterr().out
    assert "lab-01: labs/01-roofline/results/nvidia-h200.json — NVIDIA H200" in out
    assert "lab-04: labs/04-profiling/results/nvidia-h200.json — NVIDIA H200" in out


def _symlink_loop(path: Path) -> None:
    path.unlink()
    path.symlink_to(path.name)     # the file is a link to itself


#: Files that made `labkit results` say "internal error" and the build print a traceback
#: (reviews/2026-12-01-code-and-reliability.md, B1): one line now, like every other corruption.
UNREADABLE = {
    "a 5000-digit integer": (*lab01(replace_text('"schema": 2', '"schema": 2' + "0" * 4999)),
                             "holds an integer too long to be a measurement (Exceeds the limit (4300 digits)"),
    "arrays 100 000 deep": (*lab01(replace_text('"schema": 2', '"schema": ' + "[" * 100_000 + "]" * 100_000)),
                            "holds arrays or objects nested thousands deep, which no results file does"),
    "a symbolic link loop": (*lab01(_symlink_loop), "labs/01-roofline/results/nvidia-h200.json: a symbolic link to "
                             "nothing (it points at nvidia-h200.json, which is missing or loops back): remove it"),
}


@pytest.mark.parametrize("case", UNREADABLE)
def test_an_unreadable_results_file_is_one_line_not_a_traceback(course, capsys, case):
    lab_id, corrupt, message = UNREADABLE[case]
    corrupt(course / FILES[lab_id])
    check_one_line(course, capsys, lab_id, message)


# ----- issue 20, "impossible results accepted": device facts held to what is known of the GPU ---------
# (the review's nine cases, B1: each was accepted with exit 0 and rendered by the site)

FILES["lab-03"] = "labs/03-occupancy/results/nvidia-h200.json"


def lab03(change):
    return ("lab-03", change)


def _set(pointer: str, value):
    """Set the value at a /-separated pointer of the whole document."""
    def change(document):
        *parents, last = pointer.split("/")
        node = document
        for part in parents:
            node = node[int(part)] if isinstance(node, list) else node[part]
        node[int(last) if isinstance(node, list) else last] = value
    return edit(change)


def _both(*changes):
    def apply(path):
        for change in changes:
            change(path)
    return apply


IMPOSSIBLE = {
    "HBM peak 1e9 and a copy at 42 704 GB/s": (*lab01(_both(_set("results/device/hbm_peak_gbps", 1e9),
                                                                scale("ceilings/hbm/copy_bytes", 10))),
                                               "field results/device/hbm_peak_gbps: 1e+09 GB/s is above what the "
                                               "H200 SXM's datasheet allows (5040 GB/s)"),
    "13 200 SMs on an H200": (*lab01(_set("results/device/sm_count", 13200)),
                              "field results/device/sm_count: 13200 SMs, but the H200 SXM's datasheet gives 132"),
    "a copy of 1e300 s": (*lab01(_both(_set("results/ceilings/hbm/timing/median_seconds", 1e300),
                                       _set("results/ceilings/hbm/timing/max_seconds", 1e300))),
                          "field results/ceilings/hbm/timing/median_seconds: Input should be less than or equal to 3600"),
    "SM clock 1.98e9 MHz": (*lab01(_both(_set("provenance/clocks_mhz/sm", 1.98e9),
                                         _set("results/ceilings/fp32/timing/sm_clock_mhz", 1.98e9))),
                            "field provenance/clocks_mhz/sm: 1.98e+09 MHz is above what the H200 SXM's datasheet "
                            "allows (2020 MHz)"),
    "a ceiling's SM clock in GHz (the audit's case 24)": (
        *lab01(_set("results/ceilings/fp32/sm_clock_mhz", 1.98)),
        "field results/ceilings/fp32/sm_clock_mhz: 1.98 MHz is below any GPU's running clock (100 MHz): a clock in "
        "GHz written as MHz?"),
    "the provenance's memory clock in GHz": (
        *lab01(_set("provenance/clocks_mhz/memory", 3.201)),
        "field provenance/clocks_mhz/memory: 3.201 MHz is below any GPU's running clock (100 MHz)"),
    "compute capability 7.0 for an H200": (*lab01(_set("provenance/compute_capability", "7.0")),
                                           "field provenance/compute_capability: 7.0, but the H200 SXM is 9.0"),
    "achieved occupancy 100.5 % at 25 % theoretical": (
        *lab03(_set("results/ncu/launches/0/achieved_pct", 100.5)),
        "ncu/copy_8_loads_16_warps: achieved occupancy 100.5 % is above the theoretical 25 %"),
    "ncu theoretical 100 % where the calculator says 25 %": (
        *lab03(_set("results/ncu/launches/0/theoretical_pct", 100.0)),
        "ncu/copy_8_loads_16_warps: theoretical occupancy 100 %, but 32 threads, 48 registers and 12800 bytes of "
        "shared memory give 25 % on compute capability 9.0"),
}


@pytest.mark.parametrize("case", IMPOSSIBLE)
def test_a_record_impossible_on_its_gpu_is_one_line_and_nothing_changes(course, capsys, case):
    lab_id, corrupt, message = IMPOSSIBLE[case]
    corrupt(course / FILES[lab_id])
    check_one_line(course, capsys, lab_id, message)


def test_labkit_results_after_a_recording_killed_mid_manifest_keeps_the_record(course, capsys):
    """The review's worst recording case (B5) on lab 01's real record: a recording killed with
    SIGKILL while the previous record's manifest is half written. `labkit results`, the recovery the
    README recommends, used to delete the record there; it must leave it byte for byte."""
    import os
    import signal

    from labkit.labs.base import lab
    from labkit.records import writing as recording
    from labkit.records.files import read_results

    path = course / FILES["lab-01"]
    before = snapshot(course)
    document = read_results(path, lab("lab-01").results_type, "lab-01")
    raw = sorted(recording.raw_folder(path).iterdir()) if recording.raw_folder(path).is_dir() else []
    place = recording.canonical_place(path.parent.parent, path.stem)
    pid = os.fork()
    if pid == 0:   # the child: dies of SIGKILL with the manifest half written
        try:
            def half_then_killed(target, text):
                if target.name == recording._MANIFEST:
                    target.write_text(text[:len(text) // 2])
                    os.kill(os.getpid(), signal.SIGKILL)
                return target.write_text(text)

            recording._fsync_file = half_then_killed
            recording.record(place, document, raw, "lab-01")
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    assert main(["results"]) == 0
    out = capsys.readouterr().out
    assert "lab-01: labs/01-roofline/results/nvidia-h200.json — NVIDIA H200" in out, out
    assert snapshot(course) == before


@pytest.fixture
def tracked_course(course):
    """The throwaway copy with its labs/ in git's index, as in a clone of the course."""
    import subprocess

    subprocess.run(["git", "init", "-q", str(course)], check=True)
    subprocess.run(["git", "-C", str(course), "add", "labs"], check=True)
    return course


MISSING = {
    "the canonical record deleted": lambda course: (course / FILES["lab-01"]).unlink(),
    "results/ replaced by an empty file": lambda course: (shutil.rmtree(course / "labs/01-roofline/results"),
                                                          (course / "labs/01-roofline/results").write_bytes(b"")),
}


@pytest.mark.parametrize("case", MISSING)
def test_a_course_record_gone_from_the_checkout_fails_in_one_line(tracked_course, capsys, case):
    MISSING[case](tracked_course)
    assert main(["results"]) == 1
    out = capsys.readouterr().out
    missing = [line for line in out.splitlines() if "MISSING" in line]
    assert missing == ["lab-01: MISSING labs/01-roofline/results/nvidia-h200.json: the course's record of lab-01, "
                       "tracked in git, is missing: restore it with `git restore labs/01-roofline/results` (or "
                       "remove it on purpose with `git rm labs/01-roofline/results/nvidia-h200.json`)"], out
    assert "Traceback" not in out
    with pytest.raises(BlockError) as raised:   # the site does not render it as "no results yet"
        markdown.markdown("/// lab | lab-01\n///\n", extensions=[LabExtension(lang="fr", project=str(tracked_course))])
    assert missing[0].removeprefix("lab-01: MISSING ") in str(raised.value) and "\n" not in str(raised.value)


def test_a_record_removed_on_purpose_with_git_rm_is_not_missing(tracked_course, capsys):
    import subprocess

    record = FILES["lab-01"]
    subprocess.run(["git", "-C", str(tracked_course), "rm", "-q", "-f", record], check=True)
    assert main(["results"]) == 1   # its raw outputs are left: one line says so
    assert ("lab-01: INVALID labs/01-roofline/results/nvidia-h200: a folder without the record nvidia-h200.json it "
            "would hold the raw files of: restore nvidia-h200.json") in capsys.readouterr().out
    subprocess.run(["git", "-C", str(tracked_course), "rm", "-q", "-r", "-f", record.removesuffix(".json")], check=True)
    assert main(["results"]) == 0
    assert "lab-01: no results recorded" in capsys.readouterr().out


# ----- the generic corruption check: eight corruptions of every lab's record ------------------------
def _first_leaf(node, wanted) -> list | None:
    """The path to the first leaf (depth first) for which ``wanted(leaf)`` holds."""
    if isinstance(node, (dict, list)):
        for key, value in (node.items() if isinstance(node, dict) else enumerate(node)):
            found = _first_leaf(value, wanted)
            if found is not None:
                return [key, *found]
        return None
    return [] if wanted(node) else None


def _at(document: dict, path: list, value) -> None:
    node = document
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value(node[path[-1]])


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _first_value(results: dict) -> list:
    """The first string value outside ``checks`` (whose names are descriptions, not values)."""
    return next([key, *found] for key, part in results.items()
                if key != "checks" and (found := _first_leaf(part, lambda v: isinstance(v, str))) is not None)


GENERIC = {
    "NaN": lambda d: _at(d, ["results", *_first_leaf(d["results"], _number)], lambda v: float("nan")),
    "negative": lambda d: _at(d, ["results", *_first_leaf(d["results"], _number)], lambda v: -v),
    "string for number": lambda d: _at(d, ["results", *_first_leaf(d["results"], _number)], str),
    "unknown string": lambda d: _at(d, ["results", *_first_value(d["results"])], lambda v: "no-such-value"),
    "missing key": lambda d: d["results"].pop(next(iter(d["results"]))),
}
RAW_BYTES = {
    "empty": lambda data: b"",
    "not UTF-8": lambda data: data.replace(b"NVIDIA", b"NV\xffIDIA", 1),
    "truncated": lambda data: data[:len(data) // 2],
}


@pytest.mark.parametrize("corruption", [*GENERIC, *RAW_BYTES])
@pytest.mark.parametrize("lab_id", ["lab-01", "lab-02", "lab-03", "lab-04", "lab-05", "lab-06"])
def test_every_record_refuses_each_generic_corruption_in_one_line(tmp_path, lab_id, corruption):
    from labkit.labs.base import lab
    from labkit.records.files import ResultsError, read_results

    the_lab = lab(lab_id)
    source = REPO_ROOT / "labs" / the_lab.folder / "results/nvidia-h200.json"
    folder = tmp_path / "results"
    shutil.copytree(source.parent, folder)
    path = folder / source.name
    if corruption in GENERIC:
        document = json.loads(source.read_text(encoding="utf-8"))
        GENERIC[corruption](document)
        path.write_text(json.dumps(document), encoding="utf-8")
    else:
        path.write_bytes(RAW_BYTES[corruption](source.read_bytes()))
    with pytest.raises(ResultsError) as refused:
        read_results(path, the_lab.results_type, lab_id, source="results/nvidia-h200.json")
    assert "\n" not in str(refused.value) and str(refused.value).startswith("results/nvidia-h200.json: ")


def test_a_broken_git_index_is_one_line_not_a_skipped_check(tracked_course, capsys):
    """A broken .git/index turned the missing-record check off silently ('no results recorded', exit 0)."""
    (tracked_course / FILES["lab-01"]).unlink()
    (tracked_course / ".git/index").write_bytes(b"not an index")
    assert main(["results"]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[-1].startswith(f"labkit: git fails in {tracked_course} (") and lines[-1].endswith(
        "the check that the course's records are all there cannot run: repair the checkout (`git status` says what is "
        "wrong)"), lines


#: Every lab's record, with the reference its floor names first when all its times are 1000 times too long.
MILLISECONDS_AS_SECONDS = {
    "lab-01": ("labs/01-roofline/results/nvidia-h200.json", "ceilings/hbm: "),
    "lab-02": ("labs/02-coalescing/results/nvidia-h200.json", "transposes/tile_copy: "),
    "lab-03": ("labs/03-occupancy/results/nvidia-h200.json", "memory/reference copy: "),
    "lab-04": ("labs/04-profiling/results/nvidia-h200.json", "timer/l2 hbm_passes: "),
    "lab-05": ("labs/05-checklist/results/nvidia-h200.json", "copy_ceiling: "),
    "lab-06": ("labs/06-matmul/results/nvidia-h200.json", "runs/cublas_"),
}


def _times_scaled(node, factor: float) -> None:
    """Every *_seconds number under ``node`` multiplied by ``factor`` (milliseconds written as seconds)."""
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in list(items):
        if isinstance(key, str) and key.endswith("_seconds") and isinstance(value, (int, float)):
            node[key] = value * factor
        else:
            _times_scaled(value, factor)


@pytest.mark.parametrize("lab_id", MILLISECONDS_AS_SECONDS)
def test_a_record_whose_times_are_milliseconds_written_as_seconds_is_refused(course, capsys, lab_id):
    """The audit's case 10: every timing 1000 times too long (HBM at about 4 GB/s on an H200) was
    accepted, since only upper bounds were checked. A reference measurement (copy ceiling, FMA
    ceiling, cuBLAS) under a tenth of its peak is not the GPU's."""
    place, reference = MILLISECONDS_AS_SECONDS[lab_id]
    edit(lambda document: _times_scaled(document["results"], 1000.0))(course / place)
    check_one_line(course, capsys, lab_id, f"field results: {reference}")
    out_line = "of it: its times are not this GPU's (milliseconds written as seconds?); restore it from git"
    assert main(["results"]) == 1 and out_line in capsys.readouterr().out


def test_the_floor_is_a_tenth_of_the_peak():
    from labkit.records import MIN_REFERENCE_SHARE, ReferenceRate, below_reference_floor

    assert below_reference_floor([ReferenceRate("copy", MIN_REFERENCE_SHARE * 4800, 4800, "GB/s", "peak")]) is None
    assert below_reference_floor([ReferenceRate("copy", 4.27, 4800, "GB/s", "peak")]).startswith(
        "copy: 4.27 GB/s is 0.09% of the GPU's peak 4800 GB/s, and a reference measurement reaches at least 10% of it")


@pytest.mark.parametrize("killed_before", [1, 2, 3, 4, 5])
def test_a_recording_killed_mid_swap_in_a_checkout_is_put_back_not_called_missing(tracked_course, capsys,
                                                                                   killed_before):
    """The audit's cases 94-98 and 244-251 (issue 31's re-run): killed before the swap's n-th rename
    (1: the backup folder named, 2 and 3: the record's file and folder moved aside, 4 and 5: the
    new ones moved in), the course's record is in ``.previous-<gpu>/`` or half replaced. ``labkit
    results`` puts the old one back, byte for byte, instead of reporting it MISSING (git tracks it)
    and telling the learner to `git restore` it, which would leave two copies in each other's way."""
    import os
    import signal

    from labkit.labs.base import lab
    from labkit.records import writing as recording
    from labkit.records.files import read_results

    path = tracked_course / FILES["lab-01"]
    before = snapshot(tracked_course / "labs")
    document = read_results(path, lab("lab-01").results_type, "lab-01")
    raw = sorted(recording.raw_folder(path).iterdir())
    place = recording.canonical_place(path.parent.parent, path.stem)
    pid = os.fork()
    if pid == 0:   # the child: dies of SIGKILL before the swap's n-th rename
        try:
            real_replace, calls = os.replace, []

            def replace(source, target):
                calls.append(source)
                if len(calls) == killed_before:
                    os.kill(os.getpid(), signal.SIGKILL)
                return real_replace(source, target)

            os.replace = replace
            recording.record(place, document.model_copy(update={"raw_files": {}}), raw, "lab-01")
        finally:
            os._exit(3)
    _, status = os.waitpid(pid, 0)
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    if killed_before in (2, 3, 4):   # the record is aside: the site's build says so, not `git restore`
        with pytest.raises(BlockError) as raised:
            markdown.markdown("/// lab | lab-01\n///\n", extensions=[LabExtension(lang="fr", project=str(tracked_course))])
        assert "a recording was interrupted during its swap: run `labkit results`" in str(raised.value)
    if killed_before == 3:   # a folder the user cannot write: one line, the recovery's, not "MISSING ... git restore"
        real_replace = os.replace

        def refused(source, target):
            raise PermissionError(13, "Permission denied", str(source))

        os.replace = refused
        try:
            assert main(["results"]) == 1
        finally:
            os.replace = real_replace
        lines = [line for line in capsys.readouterr().out.splitlines() if line.startswith("lab-01:")]
        assert lines == [f"lab-01: INVALID {tracked_course / 'labs/01-roofline/results'}: putting back an interrupted "
                         "recording failed (Permission denied): make the folder writable, then run `labkit results` "
                         "again"], lines
    assert main(["results"]) == 0
    out = capsys.readouterr().out
    assert "MISSING" not in out and "lab-01: labs/01-roofline/results/nvidia-h200.json — NVIDIA H200" in out, out
    assert snapshot(tracked_course / "labs") == before
