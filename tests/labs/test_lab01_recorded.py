"""Lab 01's results recorded on the H200: valid, consistent with labkit's arithmetic, and held
to the issue's bars (copy vs cupy.copyto, FP32 vs the peak at the clock read, every sweep point on
the measured roof within the tolerance)."""

import pytest

from labkit import roofline, workloads
from labkit.labs import load_lab
from labkit.results import load_results

LAB = load_lab("lab-01")
RESULTS = LAB.LAB_DIR / "results" / "nvidia-h200.json"


@pytest.fixture(scope="module")
def recorded():
    return load_results(RESULTS, "lab-01", LAB.RESULTS_SCHEMA)


def test_provenance(recorded):
    prov = recorded["provenance"]
    assert prov["gpu"] == "NVIDIA H200" and not prov["simulated"]
    assert len(prov["git_commit"].removesuffix("+dirty")) == 40


def test_copy_kernel_reaches_cupy_copyto(recorded):
    hbm = recorded["results"]["ceilings"]["hbm"]
    assert hbm["reference_is"] == "cupy_copyto"
    assert hbm["ratio"] >= 0.97


def test_fp32_fma_reaches_the_peak_at_the_clock_read(recorded):
    fp32 = recorded["results"]["ceilings"]["fp32"]
    device = recorded["results"]["device"]
    assert fp32["reference"] == pytest.approx(device["sm_count"] * device["fp32_lanes_per_sm"] * 2 * fp32["sm_clock_mhz"] / 1e3)
    assert fp32["ratio"] >= 0.92


def test_sweep_spans_one_eighth_to_256_and_is_judged_against_the_measured_roof(recorded):
    results = recorded["results"]
    peak, bandwidth = results["ceilings"]["fp32"]["measured"], results["ceilings"]["hbm"]["measured"]
    points = results["sweep"]
    assert points[0]["intensity"] == pytest.approx(1 / 8) and points[-1]["intensity"] >= 256
    for point in points:
        assert point["roof_gflops"] == pytest.approx(roofline.attainable_gflops(point["intensity"], peak, bandwidth))
        assert point["of_roof"] == pytest.approx(point["gflops"] / point["roof_gflops"])
        assert point["within_tolerance"] == (point["of_roof"] >= 1 - LAB.ROOF_TOLERANCE)
    below = [(p["intensity"], round(p["of_roof"], 3)) for p in points if not p["within_tolerance"]]
    assert not below, f"sweep points below {1 - LAB.ROOF_TOLERANCE:.0%} of the measured roof: {below}"


def test_placement_is_labkits_arithmetic(recorded):
    results = recorded["results"]
    peak, bandwidth = results["ceilings"]["fp32"]["measured"], results["ceilings"]["hbm"]["measured"]
    sizes = results["sizes"]
    expected = {"saxpy": workloads.saxpy(sizes["vector_elements"]),
                "reduction": workloads.reduction(sizes["vector_elements"]),
                "gemm_tile32": workloads.gemm_tiled(sizes["gemm_n"], 32),
                "stencil_5pt": workloads.stencil_5pt(sizes["stencil_n"])}
    for row in results["placement"]:
        work = expected[row["kernel"]]
        t_min = roofline.t_min_seconds(work.flops, work.bytes_, peak, bandwidth)
        assert row["t_min_seconds"] == pytest.approx(t_min)
        assert row["verdict"] == roofline.verdict(row["t_real_seconds"], t_min).value
        assert row["intensity"] == pytest.approx(work.intensity)
