"""The exercises, checked in the simulator as a learner would check them: our solutions pass every
criterion the simulator measures, each skeleton as shipped fails with the criteria it declares
(never with a crash), each plausible mistake of tests/labs/exercise_mistakes is caught by the
criterion meant for it, and a mistake in the file is one line naming its line."""

from __future__ import annotations

import dataclasses
import importlib.util
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from labkit.cli import main
from labkit.exercises import exercises
from labkit.exercises.check import check
from labkit.exercises.learner import LearnerError
from labkit.exercises.render import report_lines
from labkit.exercises.spec import CORRECT
from labkit.gpu.backend import select_backend
from tests.conftest import DOCS, REPO_ROOT
from tests.labs.test_gpu_verdict import buffers, rounds

pytestmark = pytest.mark.skipif(select_backend() != "simulator", reason="checks in the Numba CUDA simulator")

EXERCISES = list(exercises().values())
SOLUTIONS = REPO_ROOT / "labkit/exercises/solutions"
MISTAKES = Path(__file__).parent / "exercise_mistakes"
CAUGHT_BY = re.compile(r"^(?:\"\"\")?Caught by: (.+)$", re.MULTILINE)
#: make exercise-... must answer within this in the simulator (the issue's bar).
SIMULATOR_SECONDS = 60


def mistakes() -> list[tuple[str, Path, str]]:
    found = []
    for folder in sorted(p for p in MISTAKES.iterdir() if p.is_dir()):
        for path in sorted(folder.glob("*.py")):
            caught = CAUGHT_BY.search(path.read_text(encoding="utf-8"))
            assert caught, f"{path} says neither 'Caught by: <metric>' nor 'Caught by: error'"
            found.append((folder.name, path, caught.group(1).strip()))
    return found


def test_every_exercise_has_plausible_mistakes():
    covered = {folder for folder, _, _ in mistakes()}
    assert covered == set(exercises()), "each exercise needs wrong answers in tests/labs/exercise_mistakes/<id>/"


@pytest.mark.parametrize("item", EXERCISES, ids=lambda item: item.id)
def test_our_solution_passes_every_simulator_criterion(item):
    path = SOLUTIONS / f"{item.solution}.py"
    report = check(item, path, str(path))
    assert report.error is None, report.error
    simulated = [v for v in report.verdicts if v.where == "simulator" and v.status != "shown"]
    assert {v.metric for v in simulated} == {c.metric for c in item.criteria if c.where == "simulator"}
    assert all(v.status == "pass" for v in simulated), simulated
    assert report.passed and not report.complete    # the GPU criteria wait for a GPU


def printed_statuses(item, stdout: str, lang: str) -> dict[str, list[str]]:
    """Each criterion's status as ``labkit check`` printed it (the status word before the criterion's
    name, wherever the terminal width wrapped the line): normally one per criterion."""
    from labkit.report.labels import label

    text = " ".join(stdout.split())
    words = {status: label(lang, f"exercise.status.{status}") for status in ("pass", "fail", "skipped", "shown")}
    return {c.metric: [status for status, word in words.items()
                       if f"{word} {label(lang, f'exercise.metric.{c.metric}')}" in text] for c in item.criteria}


@pytest.mark.parametrize("item", EXERCISES, ids=lambda item: item.id)
def test_the_skeleton_fails_with_the_hints_it_promises(item, capsys):
    """``make exercise-NN-name`` on the file as shipped, read as the learner reads it: one run of the
    command (its entry point, in this process: the learner's code runs in a child process either
    way, and test_json_for_scripts runs the command in a fresh interpreter), within the issue's
    time bar."""
    from labkit.report.labels import label

    started = time.monotonic()
    returncode = main(["check", item.id, "--lang", "fr"])
    elapsed = time.monotonic() - started
    done = capsys.readouterr()
    assert returncode == 1, done.out + done.err
    assert "Traceback" not in done.out + done.err
    assert elapsed < SIMULATOR_SECONDS, f"make exercise-{item.id} took {elapsed:.0f} s in the simulator"
    statuses = printed_statuses(item, done.out, "fr")
    assert all(len(found) == 1 for found in statuses.values()), (statuses, done.out)
    failed = {metric for metric, (status,) in statuses.items() if status == "fail"}
    promised = {metric for metric in item.skeleton_fails if item.criterion(metric).where == "simulator"}
    assert failed == promised, done.out
    assert CORRECT not in failed, "a skeleton runs and is right: what it lacks is what the chapter teaches"
    for metric in promised:
        hint = item.criterion(metric).hint
        assert " ".join(label("fr", hint).split()[:6]) in " ".join(done.out.split())


@pytest.mark.parametrize("exercise_id, path, caught_by", mistakes(), ids=lambda v: getattr(v, "name", None))
def test_a_plausible_mistake_is_caught_by_its_criterion(exercise_id, path, caught_by):
    item = exercises()[exercise_id]
    report = check(item, path, path.name)
    if caught_by == "error":
        assert report.error and report.error.startswith(f"{path.name}:"), report
    elif caught_by == "nothing in the simulator":
        assert report.error is None and report.passed, report
        assert re.search(r"^Caught on the GPU by: \w+", path.read_text(), re.MULTILINE)
    else:
        assert report.error is None, report.error
        assert caught_by in {v.metric for v in report.failed()}, report.verdicts


@pytest.mark.parametrize("item", EXERCISES, ids=lambda item: item.id)
def test_each_criterion_sends_to_a_section_that_exists_in_both_languages(item):
    for lang in ("fr", "zh"):
        page = (DOCS / lang / item.chapter).read_text(encoding="utf-8")
        assert page.count(f"/// exercise | {item.id}") == 1, f"docs/{lang}/{item.chapter} lacks the block"
        for criterion in item.criteria:
            assert f"{{#{criterion.section}}}" in page, (lang, criterion.section)
    assert (REPO_ROOT / item.learner_file).is_file() and (SOLUTIONS / f"{item.solution}.py").is_file()


def test_learner_mistakes_are_one_line_naming_the_line(tmp_path, capsys):
    item = exercises()["01-fuse"]
    skeleton = (REPO_ROOT / item.learner_file).read_text(encoding="utf-8")
    cases = {
        "syntax": (skeleton.replace("def run(a, x, y, out, tmp):", "def run(a, x, y, out, tmp)"),
                   r"^syntax\.py:\d+: (expected ':'|invalid syntax)"),
        "signature": (skeleton.replace("def run(a, x, y, out, tmp):", "def run(x, y, out):"),
                      r"^signature\.py: `run` takes \(x, y, out\), the exercise calls it with \(a, x, y, out, tmp\)"),
        "missing": (skeleton.replace("def run(", "def go("), r"^missing\.py: defines no `run`"),
        "exception": (skeleton.replace("out[i] = max(tmp[i], 0.0)", "out[i] = max(tmp[i + 1], 0.0)"),
                      r"^exception\.py:\d+: IndexError \(thread \([\d, ]+\) of block \([\d, ]+\)\): index \d+ is out "
                      r"of bounds .*\[out\[i\] = max\(tmp\[i \+ 1\], 0\.0\)\]$"),
        "shape": (skeleton.replace("@cuda.jit\ndef", "@cuda.jit\ndef unused():\n    cuda.shared.array(THREADS + 1, float32)\n\n\n@cuda.jit\ndef", 1),
                  r"^shape\.py:\d+: a shared array's shape must be known when the kernel compiles: .*`THREADS \+ 1`"),
        "import": (skeleton.replace("THREADS = 256", "THREADS = 256 / undefined_name"),
                   r"^import\.py:\d+: NameError: name 'undefined_name' is not defined"),
    }
    for name, (source, expected) in cases.items():
        path = tmp_path / f"{name}.py"
        path.write_text(source, encoding="utf-8")
        report = check(item, path, path.name)
        assert report.error and re.search(expected, report.error) and "\n" not in report.error, (name, report.error)
        # the command, in this process (the learner's code runs in a child process either way)
        assert main(["check", "01-fuse", "--file", str(path)]) == 1
        printed = capsys.readouterr()
        assert "Traceback" not in printed.out + printed.err, printed


def test_a_compiler_error_names_the_line_that_did_not_compile(tmp_path):
    """On a GPU, Numba compiles at the launch: the line reported is the one the compiler quotes
    (here a shape that is not a compile-time constant), not the launch; no colour codes. Numba's CPU
    compiler raises the same kind of error without a GPU."""
    from labkit.exercises.learner import describe

    path = tmp_path / "shape.py"
    path.write_text("import numba\nimport numpy as np\n\n\n@numba.njit\ndef body(x):\n"
                    "    return np.zeros((x.size, x.size + 0.5))\n\n\ndef run(x):\n    return body(x)\n",
                    encoding="utf-8")
    spec = importlib.util.spec_from_file_location("shape_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(Exception) as raised:
        module.run(np.ones(3))
    line = describe(raised.value, path, "shape.py")
    assert re.fullmatch(r"shape\.py:7: TypingError: No implementation of function .*zeros.* found for signature: "
                        r"zeros\(Tuple\(int64, float64\)\)  \[return np\.zeros\(\(x\.size, x\.size \+ 0\.5\)\)\]", line), line


def test_an_unknown_exercise_is_one_line():
    done = subprocess.run([sys.executable, "-m", "labkit.cli", "check", "09-nothing"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stdout.strip().splitlines() == [
        "labkit: no exercise '09-nothing': the exercises are " + ", ".join(exercises())]


def test_the_report_names_the_section_to_reread_in_each_language():
    item = exercises()["01-fuse"]
    report = check(item, REPO_ROOT / item.learner_file, item.learner_file)
    french = "\n".join(report_lines(item, report, DOCS, "fr"))
    chinese = "\n".join(report_lines(item, report, DOCS, "zh"))
    assert "relire le chapitre 1, « L'intensité arithmétique » (/performance/01-roofline/#intensity)" in french
    assert "重读第 1 章“算术强度”（/zh/performance/01-roofline/#intensity）" in chinese


def test_a_learner_error_is_not_raised_for_labkit_s_own_bugs(tmp_path):
    """An exception whose traceback never passes through the learner's file is labkit's: it propagates."""
    from labkit.exercises.learner import learner_code

    with pytest.raises(ZeroDivisionError):
        with learner_code(tmp_path / "mine.py", "mine.py"):
            1 / 0
    assert issubclass(LearnerError, Exception)


def test_the_simulator_step_in_a_fresh_interpreter_says_the_same(tmp_path, monkeypatch):
    """On a GPU machine the simulator step cannot be a fork (the parent may hold a GPU context): it
    runs in a fresh interpreter with NUMBA_ENABLE_CUDASIM=1; same verdicts, same mistakes."""
    from labkit.exercises import isolated
    from labkit.exercises.check import judged_in_simulator

    monkeypatch.setattr(isolated, "_may_fork", lambda: False)
    item = exercises()["01-fuse"]
    step = isolated.Step("simulator", item.id, str(REPO_ROOT / item.learner_file), item.learner_file, seed=3)
    verdicts = [v.model_dump() for v in judged_in_simulator(item, 3, isolated.run_step(step), item.learner_file)]
    assert [(v["metric"], v["status"], v["value"]) for v in verdicts] == [
        ("correct", "pass", None), ("host_written", "pass", 0.0), ("inputs_unread", "pass", 0.0),
        ("dram_bytes_per_element", "fail", 20.0), ("launches", "shown", 2.0)]
    broken = tmp_path / "broken.py"
    broken.write_text("def run(a, x, y, out, tmp)\n", encoding="utf-8")
    with pytest.raises(LearnerError, match=r"^broken\.py:1: "):
        isolated.run_step(isolated.Step("simulator", item.id, str(broken), "broken.py"))


def test_json_for_scripts():
    import json

    done = subprocess.run([sys.executable, "-m", "labkit.cli", "check", "01-reduce", "--json"], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=300)
    report = json.loads(done.stdout)
    assert done.returncode == 1 and report["exercise"] == "01-reduce" and report["backend"] == "simulator"
    assert {v["metric"]: v["status"] for v in report["verdicts"]} == {
        "correct": "pass", "host_written": "pass", "inputs_unread": "pass", "atomics_per_element": "fail",
        "dram_bytes_per_element": "shown", "time_ratio": "skipped"}


def test_on_a_gpu_machine_the_simulator_step_runs_in_a_child(monkeypatch):
    """The path a GPU machine takes (the backend says cuda): the simulator step in a child process,
    then, with --simulator, the GPU criteria skipped; the report's backend is 'gpu' or 'simulator'."""
    import labkit.exercises.check
    import labkit.gpu.backend
    from labkit.exercises import isolated
    from labkit.exercises.verdicts import Verdict

    monkeypatch.setattr(labkit.gpu.backend, "select_backend", lambda: "cuda")
    run_step, simulator_answers = labkit.exercises.check.run_step, []

    def simulator_step_kept(step, *args):
        assert step.where == "simulator" and not isolated._may_fork(), "a fresh interpreter, as on a GPU machine"
        simulator_answers.append(run_step(step, *args))
        return simulator_answers[-1]

    monkeypatch.setattr(labkit.exercises.check, "run_step", simulator_step_kept)
    item = exercises()["01-reduce"]
    report = check(item, REPO_ROOT / item.learner_file, item.learner_file, simulator_only=True, seed=5)
    assert report.backend == "simulator" and report.error is None
    assert {v.metric: (v.status, v.note) for v in report.verdicts if v.where == "gpu"} == {
        "time_ratio": ("skipped", "gpu_only")}
    assert [v.metric for v in report.failed()] == ["atomics_per_element"]

    called = []
    small = dataclasses.replace(item, gpu_elements=4096)   # the GPU step's arrays, judged here, at a test's size

    def gpu_step_stands_in(step, *args):
        """The GPU step's child as an honest one answers: 01-reduce's skeleton is right, 40 times slower."""
        if step.where == "simulator":
            return simulator_answers[-1]    # what the child said above, for the same file
        called.append(step)
        buffers(Path(step.hand_over), small, step.seed)
        return {"gpu": "NVIDIA H200", "rounds": rounds(40.0, 41.0, 39.0), "resources": {}}

    monkeypatch.setattr(labkit.exercises.check, "run_step", gpu_step_stands_in)
    report = check(small, REPO_ROOT / item.learner_file, item.learner_file, seed=5)   # the answer above's inputs
    assert called and report.backend == "gpu" and report.complete
    assert [v.metric for v in report.failed()] == ["atomics_per_element", "time_ratio"]
    assert not Path(called[0].hand_over).exists(), "the GPU step's folder is removed after it is judged"

    def forged(step, *args):
        """A hostile child's GPU step: passing verdicts, no data."""
        if step.where == "simulator":
            return simulator_answers[-1]
        return {"verdicts": [Verdict(metric="time_ratio", where="gpu", status="pass", value=1.0).model_dump()],
                "gpu_run": None}

    monkeypatch.setattr(labkit.exercises.check, "run_step", forged)
    report = check(small, REPO_ROOT / item.learner_file, item.learner_file, seed=5)
    assert not report.passed and report.error.startswith(f"{item.learner_file}: the arrays that came back on the "
                                                         "check's channel are not what the check's own code sends")


def test_device_functions_are_not_counted_as_kernels():
    """A ``cuda.jit(device=True)`` helper has no registers of its own (it is inlined): reading them
    crashed 03-tail's check on the H200. Only kernels are asked for their resources."""
    from types import SimpleNamespace

    from labkit.exercises.on_gpu import _kernels

    kernel = SimpleNamespace(get_regs_per_thread=lambda: 32, targetoptions={}, overloads={"sig": None})
    helper = SimpleNamespace(get_regs_per_thread=lambda: 0, targetoptions={"device": True}, overloads={"sig": None})
    module = SimpleNamespace(kernel=kernel, helper=helper, THREADS=256)
    assert _kernels(lambda: None, module) == [kernel]
    assert _kernels(kernel, module) == [kernel]


def test_an_exercise_of_one_entry_is_called_by_its_parameters_and_one_of_two_must_say_how():
    """Exercise.call by default (issue 34): the one entry, with the arguments its parameters name, in order."""
    import types

    item = exercises()["02-transpose"]
    seen = []
    module = types.SimpleNamespace(run=lambda source, target: seen.append((source, target)))
    item.call(module, {"target": "t", "source": "s"})
    assert seen == [("s", "t")]
    two = dict(item.entries, extra=("n",))
    with pytest.raises(ValueError, match="02-transpose: 2 entries, so it must say how to call them"):
        dataclasses.replace(item, entries=two, call=None)
