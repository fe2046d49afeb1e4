"""Lab 01's results recorded on the H200: valid, consistent with labkit's arithmetic, and held
to the bars both ways: the copy reaches cupy.copyto, FP32 its peak at the clock read, every sweep
point sits on the measured roof within the tolerance and none above it by more than noise."""

import pytest

from labkit import workloads
from labkit.lab import lab
from labkit.labs.lab01.results import ROOF_TOLERANCE
from labkit.project import Project
from labkit.results import read_results
from tests.conftest import REPO_ROOT

LAB = lab("lab-01")
RESULTS = LAB.lab_dir(Project(REPO_ROOT)) / "results/nvidia-h200.json"
#: Above the measured roof by more than this is not noise: the roof would be wrong.
ABOVE_ROOF_NOISE = 0.02


@pytest.fixture(scope="module")
def recorded():
    return read_results(RESULTS, LAB.results_type, LAB.id)


def test_provenance(recorded):
    prov = recorded.provenance
    assert prov.gpu == "NVIDIA H200" and not prov.simulated
    assert len(prov.git_commit.removesuffix("+dirty")) == 40
    assert prov.clocks_mhz.sm > 1000


def test_copy_kernel_reaches_cupy_copyto(recorded):
    hbm = recorded.results.ceilings.hbm
    assert hbm.reference_is == "cupy_copyto"
    assert 0.97 <= hbm.gbps / hbm.reference_gbps <= 1.03


def test_fp32_and_fp64_reach_their_peaks_at_the_clock_read(recorded):
    results = recorded.results
    device = results.device
    assert results.reference_gflops("fp32") == pytest.approx(
        device.sm_count * device.fp32_lanes_per_sm * 2 * results.ceilings.fp32.sm_clock_mhz / 1e3)
    assert 0.92 <= results.ceilings.fp32.gflops / results.reference_gflops("fp32") <= 1.0
    assert 0.92 <= results.ceilings.fp64.gflops / results.reference_gflops("fp64") <= 1.0


def test_sweep_spans_one_eighth_to_256_on_the_measured_roof(recorded):
    results = recorded.results
    points = results.sweep
    assert points[0].intensity == pytest.approx(1 / 8) and points[-1].intensity >= 256
    below = [(p.intensity, round(results.of_roof(p), 3)) for p in points if not results.on_roof(p)]
    assert not below, f"sweep points below {1 - ROOF_TOLERANCE:.0%} of the measured roof: {below}"
    above = [(p.intensity, round(results.of_roof(p), 3)) for p in points if results.of_roof(p) > 1 + ABOVE_ROOF_NOISE]
    assert not above, f"sweep points above the measured roof by more than noise: {above}"


def test_placement_is_labkits_arithmetic_and_no_kernel_beats_t_min(recorded):
    results = recorded.results
    sizes = results.sizes
    expected = {"saxpy": workloads.saxpy(sizes.vector_elements),
                "reduction": workloads.reduction(sizes.vector_elements),
                "gemm_tile32": workloads.gemm_tiled(sizes.gemm_n, 32),
                "stencil_5pt": workloads.stencil_5pt(sizes.stencil_n)}
    for row in results.placement:
        work = expected[row.kernel]
        assert (row.flops, row.moved_bytes) == (work.flops, work.bytes_)
        assert results.t_ratio(row) >= 1.0, f"{row.kernel} ran faster than t_min on the measured ceilings"
