"""`labkit diagnose` on exports no ncu run writes, and output that cannot be written: one line and an
exit code each, naming the file (and the launch), never "internal error" or a traceback (the
audit's cases 126-150)."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import pytest

from labkit.cli import main
from tests.conftest import REPO_ROOT

RAW = REPO_ROOT / "labs/04-profiling/results/nvidia-h200/ncu_raw.csv"


def _rows() -> list[list[str]]:
    return list(csv.reader(io.StringIO(RAW.read_text(encoding="utf-8"), newline="")))


def _written(path: Path, rows: list[list[str]], encoding: str = "utf-8") -> Path:
    out = io.StringIO(newline="")
    csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    path.write_text(out.getvalue(), encoding=encoding, newline="")
    return path


def _with_duration(path: Path, value: str) -> Path:
    rows = _rows()
    at = rows[0].index("gpu__time_duration.sum")
    for row in rows[2:]:
        row[at] = value
    return _written(path, rows)


@pytest.mark.parametrize("value", ["0", "-0.005"])
def test_a_duration_no_run_gives_is_one_line_naming_the_file_and_launch(tmp_path, capsys, value):
    path = _with_duration(tmp_path / "raw.csv", value)
    assert main(["diagnose", str(path)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"labkit: {path}: launch 0 (transpose_naive): field "), lines
    assert "not a value ncu measures" in lines[0] and "internal error" not in lines[0]


def test_a_field_over_128_kb_is_read(tmp_path, capsys):
    """A C++ template kernel's name can pass csv's default field limit (131072 characters)."""
    rows = _rows()
    rows[2][rows[0].index("Kernel Name")] = "transpose_naive<" + "float, " * 30_000 + "int>"
    path = _written(tmp_path / "raw.csv", rows)
    assert main(["diagnose", str(path), "--top", "1"]) == 0
    assert "internal error" not in capsys.readouterr().out


def test_a_kernel_name_of_200_kb_is_cut_in_its_heading_at_once(tmp_path, capsys):
    """The audit's case 128 ran past 300 s: the heading cut the name one character at a time,
    measuring it again each time."""
    import time

    rows = _rows()
    rows[2][rows[0].index("Kernel Name")] = "kernel_" + "x" * 200_000
    path = _written(tmp_path / "raw.csv", rows)
    started = time.monotonic()
    assert main(["diagnose", str(path)]) == 0
    assert time.monotonic() - started < 30
    heading = capsys.readouterr().out.splitlines()[0]
    assert heading.startswith("━━ kernel_xxx") and "… · ID " in heading and len(heading) < 200


def test_an_error_after_streamed_launches_is_a_line_of_its_own(tmp_path, capsys):
    """The first launch is written as soon as it is diagnosed; a broken second row then was glued
    to its last line (``…Est. Speedup)labkit: …``)."""
    text = RAW.read_text(encoding="utf-8").splitlines(keepends=True)
    text[3] = text[3].replace('","', '"x"', 1)   # row 4 loses a field
    path = tmp_path / "raw.csv"
    path.write_text("".join(text), encoding="utf-8")
    assert main(["diagnose", str(path)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("━━ transpose_naive · ID 0")
    assert lines[-1].startswith(f"labkit: {path}: ncu raw CSV row 4 has "), lines[-1]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-8-sig"])
def test_an_export_in_utf16_or_with_a_bom_is_read(tmp_path, capsys, encoding):
    """What `>` writes in Windows PowerShell 5 (UTF-16), or an editor's BOM: it was "not an Nsight
    Compute CSV export"."""
    path = _written(tmp_path / "raw.csv", _rows(), encoding)
    assert main(["diagnose", str(path), "--kernel", "^scale_add$"]) == 0, capsys.readouterr().out
    assert "scale_add" in capsys.readouterr().out


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("command", [["diagnose", str(RAW)], ["results"]])
def test_output_that_cannot_be_written_is_one_line_on_stderr(command):
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "labkit.cli", *command], cwd=REPO_ROOT, stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip() == ("labkit: writing the output failed (No space left on device): free some disk space, "
                                   "or send the output elsewhere"), done.stderr
