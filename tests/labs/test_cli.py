"""The `labkit` command without a GPU: the simulator path and every error path, one line each."""

import os
import subprocess
import sys

from labkit.labs import load_lab
from tests.conftest import REPO_ROOT


def labkit(*args, cwd=REPO_ROOT, **env):
    return subprocess.run([sys.executable, "-m", "labkit.cli", *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "COLUMNS": "200", **env}, timeout=600)


def test_lab_04_in_the_simulator_checks_kernels_and_records_nothing():
    lab = load_lab("lab-04")
    before = sorted(p.name for p in (lab.LAB_DIR / "results").rglob("*"))
    done = labkit("run", "lab-04", "--record")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "simulator" in done.stdout and "no timing" in done.stdout
    assert "--record ignored" in done.stdout
    assert done.stdout.count("ok  ") == 7 and "FAIL" not in done.stdout
    assert sorted(p.name for p in (lab.LAB_DIR / "results").rglob("*")) == before
    if before:
        assert "RECORDED on" in done.stdout


def test_unknown_lab_is_one_line():
    done = labkit("run", "lab-99")
    assert done.returncode == 1
    assert done.stdout.strip() == "labkit: unknown lab 'lab-99': choose one of lab-01, lab-04"
    assert "Traceback" not in done.stderr


def test_results_lists_and_validates():
    done = labkit("results")
    assert done.returncode == 0, done.stdout
    assert "lab-04" in done.stdout


def test_a_corrupt_results_file_is_named(tmp_path, monkeypatch, capsys):
    from labkit.cli import main

    lab = load_lab("lab-04")
    monkeypatch.setattr(lab, "LAB_DIR", tmp_path)
    (tmp_path / "results").mkdir()
    corrupt = tmp_path / "results" / "nvidia-h200.json"
    corrupt.write_text('{"schema": 1,')
    assert main(["results"]) == 1
    assert f"INVALID {corrupt}: not valid JSON" in capsys.readouterr().out.replace("\n", "")


def test_an_impossible_block_size_is_refused_before_launch():
    done = labkit("run", "lab-04", "--threads", "2048")
    assert done.returncode == 1
    assert done.stdout.strip().splitlines()[-1] == (
        "labkit: threads per block: 2048 requested, this GPU allows at most 1024")
    assert "ok  " not in done.stdout and "Traceback" not in done.stderr
