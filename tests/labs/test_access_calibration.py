"""The access analyzer against Nsight Compute on the H200, pattern by pattern.

Reads the calibration recorded on the H200 by ``python -m labkit.calibration.access_probe OUTDIR``
(kept in labs/02-coalescing/calibration/)
and recomputes every prediction with the analyzer as it is now: a rule changed since the
recording is judged against the hardware, not against its old self.
"""

import json
from pathlib import Path

import pytest

from labkit.calibration.access_probe import CALIBRATION_FILE, COUNTER_METRICS, Pattern, patterns, predict
from labkit.models.access import DRAM_READ_METRIC

RECORDED = Path(__file__).resolve().parents[2] / "labs" / "02-coalescing" / "calibration" / CALIBRATION_FILE

pytestmark = pytest.mark.skipif(
    not RECORDED.exists(),
    reason="no H200 calibration recorded yet: run `python -m labkit.calibration.access_probe OUTDIR` on the GPU",
)


@pytest.fixture(scope="module")
def calibration():
    return json.loads(RECORDED.read_text())


def test_recorded_on_the_h200(calibration):
    prov = calibration["provenance"]
    assert prov["gpu"] == "NVIDIA H200" and prov["compute_capability"] == "9.0"
    assert prov["simulated"] is False


def test_every_pattern_of_the_current_plan_was_measured(calibration):
    assert [row["name"] for row in calibration["results"]["patterns"]] == [p.name for p in patterns()]


def test_ncu_counts_what_the_analyzer_predicts_for_every_pattern(calibration):
    differences = []
    for row in calibration["results"]["patterns"]:
        predicted = predict(Pattern.from_dict(row))
        differences += [
            f"{row['name']} {row['offsets']}: {metric} ncu {row['measured'][metric]:g}, analyzer {predicted[metric]}"
            for metric in COUNTER_METRICS if row["measured"][metric] != predicted[metric]
        ]
    assert not differences, f"{len(differences)} differences; first: " + "; ".join(differences[:5])


def test_dram_reads_reach_the_analyzers_floor(calibration):
    # Every sector a global load touches comes from DRAM at least once (ncu flushes caches per pass).
    short = [
        f"{row['name']}: {row['measured'][DRAM_READ_METRIC]:g} < {predict(Pattern.from_dict(row))[DRAM_READ_METRIC]}"
        for row in calibration["results"]["patterns"]
        if row["space"] == "global" and row["op"] == "load"
        and row["measured"][DRAM_READ_METRIC] < predict(Pattern.from_dict(row))[DRAM_READ_METRIC]
    ]
    assert not short, "; ".join(short[:5])
