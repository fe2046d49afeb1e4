"""Lab 06's results recorded on the H200, held to issue 23's bars: the best FP32 SIMT step at 0.80 of
cuBLAS SGEMM or more, the best FP16 tensor-core step at 0.50 of cuBLAS FP16 or more, both at the
same size in the same run; every step checked against NumPy and timed; and what `labkit diagnose`
puts first on each profiled step is the lever chapter 6 says the next step pulls."""

import pytest

from labkit.lab import lab
from labkit.labs.lab06.results import (CUBLAS, DIAGNOSED_FIRST, SIMT_BAR, STEP_KEYS, STEPS, TENSOR_BAR,
                                       step)
from labkit.profiling import checklist
from labkit.project import Project
from labkit.results import read_results
from tests.conftest import REPO_ROOT

LAB = lab("lab-06")
RESULTS = LAB.lab_dir(Project(REPO_ROOT)) / "results/nvidia-h200.json"

pytestmark = pytest.mark.skipif(not RESULTS.exists(), reason="lab 06 is not recorded yet: run `make lab-06` on the H200")


@pytest.fixture(scope="module")
def recorded():
    return read_results(RESULTS, LAB.results_type, LAB.id)


def test_provenance_names_a_real_gpu_run(recorded):
    prov = recorded.provenance
    assert prov.gpu == "NVIDIA H200" and prov.simulated is False


def test_every_step_and_precision_ran_and_was_checked(recorded):
    results = recorded.results
    assert results.unavailable == {}
    assert {c.name for c in results.checks} == set(STEP_KEYS) | {f"cublas_{p}" for p in CUBLAS}
    for key in STEP_KEYS:
        assert results.run(key) is not None, key


@pytest.mark.parametrize("large", [False, True], ids=["side", "large_side"])
def test_the_best_simt_step_reaches_the_bar(recorded, large):
    results = recorded.results
    best = results.best("fp32", large)
    assert best is not None and step(best).language == "cuda"
    assert results.versus_cublas(best, large) >= SIMT_BAR


@pytest.mark.parametrize("large", [False, True], ids=["side", "large_side"])
def test_the_best_tensor_core_step_reaches_the_bar(recorded, large):
    results = recorded.results
    best = results.best("fp16", large)
    assert results.versus_cublas(best, large) >= TENSOR_BAR


def test_cublas_is_below_its_peaks_and_not_far_from_them(recorded):
    """Physics both ways: no precision above its units' peak at the clock read, none absurdly low."""
    results = recorded.results
    for precision in CUBLAS:
        share = results.cublas_of_peak(precision)
        assert 0.3 < share <= 1.0, (precision, share)


@pytest.mark.parametrize("key", sorted(DIAGNOSED_FIRST))
def test_the_diagnosis_names_the_lever_the_next_step_pulls(recorded, key):
    profile = recorded.results.profile(key)
    assert profile is not None, f"{key} was not profiled"
    assessment = checklist.assess(profile.diagnosis())
    first = assessment.items[0].item if assessment.items else None
    assert first == DIAGNOSED_FIRST[key], (key, [i.item for i in assessment.items])


def test_every_step_was_profiled(recorded):
    assert all(recorded.results.profile(s.key) is not None for s in STEPS)


def test_the_tensor_core_gains_reach_the_checklist(recorded):
    gains = {g.context: g.ratio for g in LAB.gains(recorded.results)}
    assert gains["gain.lab06.cublas_tf32"] > 2 and gains["gain.lab06.mma"] > 2
    assert gains["gain.lab06.padding"] > 1
