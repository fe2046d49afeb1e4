"""The `labkit` command without a GPU: the simulator path and every error path, one line each."""

import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


def labkit(*args, cwd=REPO_ROOT, python=(sys.executable,), **env):
    return subprocess.run([*python, "-m", "labkit.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "COLUMNS": "200", **env}, timeout=600)


def tree(folder):
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_lab_04_in_the_simulator_checks_kernels_and_records_nothing():
    before = tree(REPO_ROOT / "labs")
    done = labkit("run", "lab-04", "--record")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "simulator" in done.stdout and "no timing" in done.stdout
    assert "--record ignored" in done.stdout
    assert done.stdout.count("ok  ") == 7 and "FAIL" not in done.stdout
    assert "RECORDED on NVIDIA H200" in done.stdout
    assert tree(REPO_ROOT / "labs") == before


@pytest.mark.parametrize("args, line", [
    (("run", "lab-99"), "labkit: unknown lab 'lab-99': choose one of lab-01, lab-04, lab-05"),
    (("run", "lab-04", "--threads", "2048"), "labkit: threads per block: 2048 requested, this GPU allows at most 1024"),
    (("run", "lab-04", "--threads", "0"), "labkit: lab-04: sizes field threads_per_block: Input should be greater "
                                          "than 0 (it holds 0)"),
    (("run", "lab-01", "--threads", "512"), "labkit: lab-01 has no adjustable threads_per_block"),
    (("translations", "--mark-fresh", "docs/fr/index.md"),
     "labkit: docs/fr/index.md: not a translated page: --mark-fresh takes a page of docs/zh/ (docs/fr/ holds the "
     "sources)"),
    (("translations", "--mark-fresh", "README.md"), "labkit: README.md: not a page of docs/: --mark-fresh takes a "
                                                    "translated page, e.g. docs/zh/index.md"),
])
def test_a_mistake_is_one_line_and_changes_nothing(args, line):
    before = tree(REPO_ROOT / "docs") | tree(REPO_ROOT / "labs")
    done = labkit(*args)
    assert done.returncode == 1
    assert done.stdout.strip().splitlines()[-1] == line
    assert "Traceback" not in done.stderr and "ok  " not in done.stdout
    assert tree(REPO_ROOT / "docs") | tree(REPO_ROOT / "labs") == before


def test_outside_the_course_is_one_line(tmp_path):
    done = labkit("results", cwd=tmp_path, PYTHONPATH=str(REPO_ROOT))
    assert done.returncode == 1
    assert done.stdout.strip() == (f"labkit: {tmp_path} is not inside the course (no mkdocs.yml beside a labs/ "
                                   "folder here or above): run labkit from the course's folder, or set LABKIT_PROJECT")


def test_a_python_without_labkits_packages_is_told_which_is_missing():
    """`make lab-04 PY=python3` with a Python that lacks the packages: -S hides site-packages."""
    done = labkit("run", "lab-04", python=(sys.executable, "-S"))
    assert done.returncode == 1
    line = done.stdout.strip()
    assert line.startswith(f"labkit: {sys.executable} has no module '") and "which labkit needs" in line, line
    assert "Traceback" not in done.stderr


def test_the_traceback_is_there_when_asked_for():
    done = labkit("run", "lab-99", LABKIT_DEBUG="1")
    assert done.returncode == 1 and "Traceback" in done.stderr and "UnknownLabError" in done.stderr
