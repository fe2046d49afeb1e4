"""Every lab's measurement path, run in the simulator at its smallest sizes with a stand-in timer
(each lab on a simulated part: tests/labs/conftest.py): it completes, calls its progress steps, and
gives results that validate, survive a round trip through a results file, and render in every
language. No course folder accepts such a file."""

from __future__ import annotations

import xml.etree.ElementTree as etree

import pytest

from labkit.gpu.backend import select_backend
from labkit.records.files import ResultsError, ResultsFile, provenance, read_results, to_json
from labkit.report.labels import label
from labkit.report.tables import format_cell
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.skipif(select_backend() != "simulator", reason="runs in the Numba CUDA simulator only")


def test_measure_calls_each_progress_step(measured):
    lab, _, _, steps = measured
    assert len(steps) == lab.program().steps, steps


def round_trip_and_render(lab, facts, results, tmp_path) -> None:
    """The results as a simulated results file: read back equal (device facts held to what the
    part's compute capability allows), every table and figure rendered in every language; refused
    where a GPU record is expected."""
    prov = provenance(facts.name, facts.compute_capability, facts.driver_version, None, None, REPO_ROOT,
                      simulated=True)
    document = ResultsFile[lab.results_type](schema=2, lab=lab.id, provenance=prov, results=results)
    path = tmp_path / "simulated.json"
    path.write_text(to_json(document), encoding="utf-8")
    loaded = read_results(path, lab.results_type, lab.id, canonical=False, allow_simulated=True)
    assert loaded == document
    for lang in ("en", "fr", "zh"):
        for table in lab.tables(loaded.results):
            for row in table.rows:
                assert len(row) == len(table.columns), table.id
                cells = [format_cell(value, column.kind, lang, lambda key: label(lang, key))
                         for value, column in zip(row, table.columns)]
                assert all(cells), (table.id, row)
        for figure in lab.figures(loaded.results, lang):
            assert "nan" not in etree.tostring(figure, encoding="unicode").lower()
    with pytest.raises(ResultsError, match="a simulator run is not a GPU record"):
        read_results(path, lab.results_type, lab.id, canonical=False)


def test_a_simulated_results_file_round_trips_and_renders(measured, tmp_path):
    lab, facts, results, _ = measured
    round_trip_and_render(lab, facts, results, tmp_path)
