"""Lab 04's results recorded on the H200: valid, meeting the issue's bars, and reproducible from
the raw profiler outputs recorded beside them (so the parsers run on real output)."""

import pytest

from labkit.labs import load_lab
from labkit.profiling import diagnosis, ncu, sass
from labkit.results import load_results

LAB = load_lab("lab-04")
RESULTS = LAB.LAB_DIR / "results" / "nvidia-h200.json"
RAW = RESULTS.with_suffix("")


@pytest.fixture(scope="module")
def recorded():
    return load_results(RESULTS, "lab-04", LAB.RESULTS_SCHEMA)


def test_provenance_names_a_real_gpu_run(recorded):
    prov = recorded["provenance"]
    assert prov["gpu"] == "NVIDIA H200" and prov["compute_capability"] == "9.0"
    assert prov["simulated"] is False
    assert prov["clocks_mhz"]["sm"] > 1000
    assert len(prov["git_commit"].removesuffix("+dirty")) == 40
    assert {"numpy", "numba-cuda", "nvtx"} <= prov["versions"].keys()


def test_repaired_program_is_at_least_three_times_faster(recorded):
    totals = recorded["results"]["totals"]
    assert totals["faulty"]["median_seconds"] / totals["repaired"]["median_seconds"] >= 3
    assert totals["speedup"] == pytest.approx(totals["faulty"]["median_seconds"] / totals["repaired"]["median_seconds"])


def test_each_fault_has_a_measured_cost(recorded):
    costs = {row["fault"]: row for row in recorded["results"]["ablation"]}
    assert set(costs) == set(LAB.FAULTS)
    assert all(row["saved_seconds"] > 0 for row in costs.values()), costs


def test_the_timeline_says_which_source_ran(recorded):
    assert recorded["results"]["timeline"]["source"] == "labkit-events"


def test_ncu_diagnosis_is_what_the_raw_csv_says(recorded):
    kernels = recorded["results"]["ncu"]["kernels"]
    profiles = ncu.merge_profiles(ncu.parse_raw_csv((RAW / "ncu_raw.csv").read_text()),
                                  ncu.parse_details_csv((RAW / "ncu_details.csv").read_text()))
    assert [diagnosis.diagnose(p).to_dict() for p in profiles] == kernels


def test_ncu_sees_the_uncoalesced_writes(recorded):
    by_name = {k["kernel"]: k for k in recorded["results"]["ncu"]["kernels"]}
    naive, tiled = by_name["transpose_naive"], by_name["transpose_tiled"]
    assert naive["memory"]["store_sectors_per_request"] == pytest.approx(32, rel=0.01)  # one sector per thread
    assert tiled["memory"]["store_sectors_per_request"] == pytest.approx(4, rel=0.01)  # 32 threads x 4 bytes
    assert naive["rules"][0]["name"] == "UncoalescedGlobalAccess"
    assert naive["speed_of_light"]["duration_seconds"] > 3 * tiled["speed_of_light"]["duration_seconds"]


def test_sass_facts_are_what_the_raw_sass_says(recorded):
    facts = recorded["results"]["sass"]
    assert set(facts) == set(LAB.PROFILED_KERNELS)
    for name, recorded_facts in facts.items():
        assert sass.read_sass((RAW / f"sass_{name}.txt").read_text()).to_dict() == recorded_facts
    assert not any(f["spills"] for f in facts.values())


def test_the_timer_agrees_with_cupyx_within_three_percent(recorded):
    """On the compute-bound kernel; on the 1 GiB copy, cupyx's isolated calls read longer."""
    comparisons = {c["kernel"]: c for c in recorded["results"]["timer"]["cupyx"] or ()}
    assert comparisons, "cupy was not installed on the recording machine"
    assert comparisons["fma_chains"]["ratio"] == pytest.approx(1.0, abs=0.03)
    assert 1.0 <= comparisons["copy_1gib"]["ratio"] <= 1.06


def test_rule_five_l2_effect(recorded):
    """A 20 MB working set: faster unflushed than flushed; re-read in one launch, above the HBM
    peak (it comes from L2); the same reads over 400 MB, and the flushed single read, below it."""
    timer = recorded["results"]["timer"]
    rows = {row["measurement"]: row for row in timer["l2"]}
    assert rows["l2_once_warm"]["gbps"] > 1.2 * rows["l2_once_flushed"]["gbps"]
    assert rows["l2_once_flushed"]["of_hbm_peak"] < 1
    assert rows["l2_passes_warm"]["of_hbm_peak"] > 1
    assert rows["hbm_passes"]["of_hbm_peak"] < 1


def test_where_nsys_ran_its_kernel_summary_is_shown(recorded):
    """nsys is absent on our H200: its path is exercised with the format sample of the parser tests."""
    from labkit.profiling import nsys
    from tests.conftest import REPO_ROOT

    results = dict(recorded["results"])
    sample = (REPO_ROOT / "tests/fixtures/nsys/cuda_gpu_kern_sum.csv").read_text()
    results["timeline"] = {**results["timeline"], "source": "nsys",
                           "nsys_kernels": [row.to_dict() for row in nsys.parse_kern_sum(sample)]}
    table = next(t for t in LAB.tables(results) if t.id == "lab04.nsys")
    assert [row[0] for row in table.rows] == [row.name for row in nsys.parse_kern_sum(sample)]
