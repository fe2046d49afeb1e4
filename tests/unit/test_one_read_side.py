"""One read side for records (issue 34): after a re-recording, in one process, a chapter's figure and
the lab block read the same record, the new one (before, the figures' cache kept the old value:
4 265 GB/s in `[[lab01.copy_gbps]]` beside 4 062 in the lab block)."""

import shutil

from labkit.figures import FIGURES
from labkit.lab import lab
from labkit.project import Project
from labkit.site.recorded import read_recorded
from tests.conftest import REPO_ROOT

FIRST_PASS = REPO_ROOT / "tests/fixtures/h200-first-pass/labs/01-roofline/results"


def test_a_figure_and_the_lab_block_show_the_same_record_after_a_re_recording(tmp_path, monkeypatch):
    shutil.copy(REPO_ROOT / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copytree(REPO_ROOT / "labs", tmp_path / "labs")
    monkeypatch.setenv("LABKIT_PROJECT", str(tmp_path))
    project, lab01 = Project(tmp_path), lab("lab-01")
    record = tmp_path / "labs/01-roofline/results/nvidia-h200.json"

    def both() -> tuple[float, float]:
        figure = FIGURES["lab01.copy_gbps"].value()
        block = read_recorded(lab01, record, project).results.bandwidth_gbps
        return figure, round(block, FIGURES["lab01.copy_gbps"].decimals)

    before = both()
    assert before[0] == before[1]
    shutil.rmtree(record.parent)                 # the lab re-recorded: another run's record and raw files
    shutil.copytree(FIRST_PASS, record.parent)
    after = both()
    assert after[0] == after[1]
    assert after != before
