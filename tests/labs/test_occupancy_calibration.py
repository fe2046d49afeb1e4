"""labkit.occupancy against the CUDA driver, as recorded on the H200 by
``python -m labkit.probes.occupancy_probe`` (labs/03-occupancy/calibration/occupancy_calibration.json):
at least 1000 configurations, and today's calculator equal to the driver on every one."""

import dataclasses
import json

import pytest

from labkit import occupancy
from labkit.probes import occupancy_probe as probe
from tests.conftest import REPO_ROOT

RESULTS = REPO_ROOT / "labs" / "03-occupancy" / "calibration" / probe.RESULTS_FILE

pytestmark = pytest.mark.skipif(
    not RESULTS.exists(),
    reason=f"{RESULTS.relative_to(REPO_ROOT)} not recorded yet (python -m labkit.probes.occupancy_probe OUTDIR on a GPU)")


@pytest.fixture(scope="module")
def recorded():
    return json.loads(RESULTS.read_text())


@pytest.fixture(scope="module")
def results(recorded):
    return recorded["results"]


@pytest.fixture(scope="module")
def arch(results):
    return occupancy.architecture(tuple(int(p) for p in results["device"]["compute_capability"].split(".")))


def test_provenance(recorded):
    prov = recorded["provenance"]
    assert not prov["simulated"] and prov["compute_capability"] == "9.0"
    assert len(prov["git_commit"].removesuffix("+dirty")) == 40


def test_the_device_reports_labkits_table(results, arch):
    assert results["device_mismatches"] == []
    assert probe.device_mismatches(results["device"], arch) == []
    assert results["architecture"] == dataclasses.asdict(arch) | {
        "compute_capability": list(arch.compute_capability), "shared_carveouts_bytes": list(arch.shared_carveouts_bytes)}


def test_every_kernel_compiled_and_every_setting_was_accepted(results):
    assert results["errors"] == []
    assert len(results["kernels"]) == len(probe.kernel_specs())


def test_at_least_1000_configurations_and_the_calculator_equals_the_driver_on_all(results, arch):
    rows = probe.rows_of(results)
    assert len(rows) >= 1000
    differing = [(row, probe.calculator_blocks(probe.launch_of(row), arch)) for row in rows
                 if probe.calculator_blocks(probe.launch_of(row), arch) != row["driver_blocks"]]
    assert not differing, (f"{len(differing)} of {len(rows)} configurations differ; the first: {differing[0][0]} "
                           f"(labkit now answers {differing[0][1]})")


def test_the_grid_spans_the_rules_it_calibrates(results):
    rows = probe.rows_of(results)
    registers = {r["registers_per_thread"] for r in rows}
    assert min(registers) <= 16 and max(registers) == 255 and len(registers) >= 15
    assert any(r["static_shared_bytes"] % 128 for r in rows)
    assert any(r["static_shared_bytes"] + r["dynamic_shared_bytes"] > 48 * 1024 for r in rows)
    assert any(r["threads_per_block"] % 32 for r in rows)
    assert {r["carveout_percent"] for r in rows} >= {None, 0, 100}
    answers = {r["driver_blocks"] for r in rows}
    assert 0 in answers and 32 in answers


def test_edge_cases_bear_the_calculator_out(results, arch):
    for edge in results["edges"]:
        assert probe.edge_agrees(edge) is not False, f"edge case {edge['case']!r}: {edge}"
        now = None if edge["calculator_blocks"] is None else probe.calculator_blocks(probe.launch_of(edge), arch)
        if isinstance(now, int):
            assert now == edge["calculator_blocks"], f"edge case {edge['case']!r}: labkit now answers {now}"
        elif now is not None:
            assert str(edge["calculator_blocks"]).startswith("refused: "), f"edge case {edge['case']!r}: {now}"


def test_the_probe_took_under_a_minute(results):
    assert results["probe_seconds"] < 60
