"""Every table the CLI prints shows every value whole, at 80 columns and wider."""

import io

import pytest
from rich.console import Console

from labkit.labs.base import labs
from labkit.project import Project
from labkit.records.files import read_results
from labkit.records.files import recorded_paths
from labkit.report.terminal import cells, show_tables
from tests.conftest import REPO_ROOT


def recorded_tables():
    for lab in labs().values():
        for path in recorded_paths(lab.lab_dir(Project(REPO_ROOT)), str):
            results = read_results(path, lab.results_type, lab.id).results
            for table in lab.tables(results):
                yield pytest.param(table, id=f"{lab.id}-{table.id}")


@pytest.mark.parametrize("width", [80, 200])
@pytest.mark.parametrize("table", list(recorded_tables()))
def test_every_value_appears_whole(table, width):
    out = io.StringIO()
    show_tables([table], Console(file=out, width=width, color_system=None))
    text = out.getvalue()
    lines = text.splitlines()
    missing = [cell for row in cells(table) for cell in row if not any(cell in line for line in lines)]
    assert not missing, f"cut or split at width {width}: {missing[:5]}"
    assert "…" not in text
