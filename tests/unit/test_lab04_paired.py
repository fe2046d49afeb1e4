"""Lab 04's paired ablation off the GPU (issue 29): each saving's interval is a bootstrap of the
median paired difference, ranks tie where intervals overlap, old records keep their rule."""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from labkit.labs.lab04.results import FAULTS, AblationRow, Lab04Results, Totals, paired_interval_seconds
from labkit.records import Spread


def _spread(values) -> Spread:
    return Spread(median_seconds=float(np.median(values)), min_seconds=min(values), max_seconds=max(values),
                  repeats=len(values))


def _results(savings_ms: dict[str, float], noise_ms: float, pairs: int = 25, paired: bool = True,
             seed: int = 1) -> Lab04Results:
    """An ablation whose pairs differ by ``savings_ms`` plus Gaussian noise; only what ranks() reads."""
    rng = np.random.default_rng(seed)
    faulty = list(6e-3 + rng.normal(0, 0.5e-3, pairs))
    rows = []
    for fault in FAULTS:
        differences = list(savings_ms[fault] * 1e-3 + rng.normal(0, noise_ms * 1e-3, pairs))
        alone = [f - d for f, d in zip(faulty, differences)]
        rows.append(AblationRow(fault=fault, with_only_this_repaired=_spread(alone),
                                paired_saved_seconds=differences if paired else None))
    totals = Totals(faulty=_spread(faulty), repaired=_spread([4e-4] * pairs))
    return Lab04Results.model_construct(ablation=rows, totals=totals)


def test_the_interval_holds_the_median_and_narrows_with_more_pairs():
    rng = np.random.default_rng(3)
    few, many = list(rng.normal(1.0, 0.2, 10)), list(rng.normal(1.0, 0.2, 400))
    low, high = paired_interval_seconds(few)
    assert low <= statistics.median(few) <= high
    low_many, high_many = paired_interval_seconds(many)
    assert high_many - low_many < (high - low) / 3


def test_the_interval_is_deterministic_and_ignores_a_few_wild_pairs():
    values = [1.0] * 20 + [50.0, 80.0]
    assert paired_interval_seconds(values) == paired_interval_seconds(list(values))
    assert paired_interval_seconds(values) == (1.0, 1.0)


def test_overlapping_intervals_tie_and_separated_ones_do_not():
    results = _results({"pageable_transfer": 2.4, "tiny_kernels": 2.45, "uncoalesced": 0.9, "host_sync": 0.3},
                       noise_ms=0.2)
    assert results.paired
    assert results.ranks() == {"tiny_kernels": 1, "pageable_transfer": 1, "uncoalesced": 3, "host_sync": 4}


def test_savings_far_apart_in_noise_smaller_than_the_old_rule_are_not_tied():
    """0.2 ms apart on a 6 ms program is under the old 5 % rule (0.3 ms) but far outside quiet pairs' intervals."""
    savings = {"pageable_transfer": 2.2, "tiny_kernels": 2.4, "uncoalesced": 0.9, "host_sync": 0.3}
    assert _results(savings, noise_ms=0.01).ranks()["pageable_transfer"] == 2
    assert _results(savings, noise_ms=0.01, paired=False).ranks()["pageable_transfer"] == 1


def test_the_saving_is_the_median_paired_difference():
    results = _results({"pageable_transfer": 2.4, "tiny_kernels": 2.0, "uncoalesced": 0.9, "host_sync": 0.3},
                       noise_ms=0.1)
    row = results.ablation[0]
    assert results.saved_seconds(row) == pytest.approx(statistics.median(row.paired_saved_seconds))
    assert results.saved_range_seconds(row) == row.paired_interval_seconds


def _recorded_before_issue_29() -> dict:
    """The course's lab 04 record as a record made before issue 29 holds it: no paired differences."""
    import json

    from tests.conftest import REPO_ROOT

    document = json.loads((REPO_ROOT / "labs/04-profiling/results/nvidia-h200.json").read_text())["results"]
    for row in document["ablation"]:
        row.pop("paired_saved_seconds", None)
    return document


def test_a_record_from_before_issue_29_is_read_with_its_old_tie_rule():
    results = Lab04Results.model_validate(_recorded_before_issue_29())
    assert not results.paired
    assert sorted(results.ranks().values())[0] == 1


def test_pairs_for_some_faults_only_are_refused():
    from pydantic import ValidationError

    document = _recorded_before_issue_29()
    document["ablation"][0]["paired_saved_seconds"] = [1e-3, 2e-3]
    with pytest.raises(ValidationError, match=r"ablation: paired differences for \['pageable_transfer'\] only"):
        Lab04Results.model_validate(document)
    for row in document["ablation"]:
        row["paired_saved_seconds"] = [1e-3, 2e-3]
    assert Lab04Results.model_validate(document).paired
