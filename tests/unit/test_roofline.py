import pytest

from labkit.models import roofline as r


def test_intensity_and_ridge():
    # SAXPY in fp32: 2 FLOP per element, 12 bytes per element.
    assert r.arithmetic_intensity(2, 12) == pytest.approx(1 / 6)
    assert r.ridge_point(67_000, 3350) == pytest.approx(20.0)


def test_bound_class_either_side_of_the_ridge():
    assert r.bound_class(1, 1, 67_000, 3350) is r.Bound.MEMORY
    assert r.bound_class(100, 1, 67_000, 3350) is r.Bound.COMPUTE


def test_t_min_is_the_larger_of_the_two_times():
    assert r.t_min_seconds(0, 40e6, 67_000, 3350) == pytest.approx(40e6 / 3350e9)
    assert r.t_min_seconds(67e12, 1, 67_000, 3350) == pytest.approx(1.0)


def test_attainable_is_the_roof():
    assert r.attainable_gflops(1, 67_000, 3350) == 3350
    assert r.attainable_gflops(1000, 67_000, 3350) == 67_000


@pytest.mark.parametrize(
    "ratio, expected",
    [(1.0, r.Verdict.STOP), (1.19, r.Verdict.STOP), (1.2, r.Verdict.FINE_TUNING),
     (2.0, r.Verdict.FINE_TUNING), (2.01, r.Verdict.STRUCTURAL)],
)
def test_verdict_bands(ratio, expected):
    assert r.verdict(ratio * 1e-6, 1e-6) is expected


def test_traffic_efficiency():
    t = r.traffic_from_bandwidth(2900, 45e-6, 40e6)
    assert t.moved_bytes == pytest.approx(130.5e6)
    assert t.excess_factor == pytest.approx(3.2625)
    assert t.efficiency == pytest.approx(40 / 130.5)


def test_zero_bytes_is_refused():
    with pytest.raises(ValueError, match="bytes_"):
        r.arithmetic_intensity(1, 0)


def test_workload_counts():
    from labkit.models import workloads as w

    assert w.saxpy(10).intensity == pytest.approx(2 / 12)
    assert w.reduction(10).intensity == pytest.approx(0.25)
    assert w.gemm_tiled(8192, 64).intensity == pytest.approx(64 / 4, rel=0.01)
    assert w.stencil_5pt(100).intensity == pytest.approx(6 / 8)
    assert w.stencil_5pt(100, reuse=False).intensity == pytest.approx(6 / 24)
