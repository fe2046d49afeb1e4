"""The `labkit` command without a GPU: the simulator path and every error path, one line each."""

import contextlib
import io
import json
import os
import subprocess
import sys
import traceback

import pytest

from labkit import cli
from labkit.gpu.backend import select_backend
from labkit.labs.base import labs

from tests.conftest import REPO_ROOT


def labkit(*args, cwd=REPO_ROOT, python=None, **env):
    """`labkit ARGS` run from ``cwd`` with ``env`` added, in the simulator: what it printed and its
    exit status. In this process (labkit.cli.main, what `python -m labkit.cli` and the `labkit`
    script call) when this process runs kernels in the simulator, so nothing can reach a GPU; else,
    or with another ``python``, in a child process with NUMBA_ENABLE_CUDASIM=1."""
    env = {"NUMBA_ENABLE_CUDASIM": "1", "COLUMNS": "200", **env}
    if python is None and select_backend() == "simulator":
        return _in_process(list(args), cwd, env)
    return subprocess.run([*(python or (sys.executable,)), "-m", "labkit.cli", *args], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, **env}, timeout=600)


def _in_process(args: list[str], cwd, env: dict[str, str]) -> subprocess.CompletedProcess:
    """labkit.cli.main(args) with stdout and stderr captured, ``cwd`` and ``env`` in force and then
    put back; an exception that escapes (LABKIT_DEBUG=1) is printed as the interpreter would."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    out, err = io.StringIO(), io.StringIO()
    os.environ.update(env)
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(args)
            except SystemExit as exc:      # argparse's usage errors
                status = exc.code if isinstance(exc.code, int) else 1
            except Exception:               # noqa: BLE001 (LABKIT_DEBUG=1 lets it through, as asked)
                traceback.print_exc()
                status = 1
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
    return subprocess.CompletedProcess(["labkit", *args], status, out.getvalue(), err.getvalue())


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
    (("run", "lab-99"), f"labkit: unknown lab 'lab-99': choose one of {', '.join(labs())}"),
    (("run", "lab-04", "--threads", "2048"), "labkit: threads per block: 2048 requested, this GPU allows at most 1024"),
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


def test_results_as_json_for_scripts():
    done = labkit("results", "--json")
    assert done.returncode == 0, done.stderr
    listing = json.loads(done.stdout)
    assert {(row["lab"], row["valid"]) for row in listing} >= {("lab-01", True), ("lab-04", True)}
    assert all(row["provenance"]["gpu"] == "NVIDIA H200" for row in listing if row["lab"] in ("lab-01", "lab-04"))


def test_run_as_json_keeps_stdout_for_the_json():
    done = labkit("run", "lab-04", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["backend"] == "simulator" and report["measured"] is None
    assert len(report["checks"]) == 7 and all(check["passed"] for check in report["checks"])
    assert report["recorded"][0]["provenance"]["gpu"] == "NVIDIA H200"
    assert "simulator" in done.stderr


def test_a_mistake_with_json_goes_to_stderr():
    done = labkit("run", "lab-99", "--json")
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip() == f"labkit: unknown lab 'lab-99': choose one of {', '.join(labs())}"


@pytest.mark.parametrize("threads", ["0", "-32"])
def test_threads_below_one_names_the_option(capsys, threads):
    """It named the field threads_per_block, not the option the user typed."""
    from labkit.cli import main

    with pytest.raises(SystemExit):
        main(["run", "lab-04", "--threads", threads])
    assert f"argument --threads: {int(threads)} is not at least 1" in capsys.readouterr().err
