"""The timer's pure parts: no GPU needed (tests/gpu times real kernels)."""

import pytest
from pydantic import ValidationError

from labkit import timing
from labkit.backend import NoGPUError
from labkit.timing import Timing


def test_summarize_gives_median_min_max():
    assert timing.summarize_seconds([3e-3, 1e-3, 2e-3]) == (2e-3, 1e-3, 3e-3)
    assert timing.summarize_seconds([4.0, 1.0, 2.0, 3.0]) == (2.5, 1.0, 4.0)


def test_summarize_resists_one_outlier():
    median, _, maximum = timing.summarize_seconds([1.0] * 9 + [100.0])
    assert median == 1.0 and maximum == 100.0


def test_summarize_refuses_no_samples():
    with pytest.raises(ValueError, match="no samples"):
        timing.summarize_seconds([])


@pytest.mark.parametrize(
    "repeats, expected", [(120, [50, 50, 20]), (100, [50, 50]), (1, [1]), (50, [50])]
)
def test_repetition_chunks(repeats, expected):
    assert timing.repetition_chunks(repeats, 50) == expected


def _timing(median_seconds: float, **changes) -> Timing:
    fields = dict(median_seconds=median_seconds, min_seconds=median_seconds / 2, max_seconds=median_seconds * 2,
                  repeats=100, warmup=10, l2_flushed=True, sm_clock_mhz=1980.0, mem_clock_mhz=3201.0,
                  back_to_back=True)
    return Timing(**{**fields, **changes})


def test_bandwidth_is_bytes_over_the_median():
    assert _timing(1e-3).gbps(4e9) == pytest.approx(4000.0)


def test_arithmetic_rate_is_flops_over_the_median():
    assert _timing(1e-3).gflops(6e10) == pytest.approx(60000.0)


@pytest.mark.parametrize("changes, message", [
    ({"min_seconds": 2e-3}, "min 0.002 <= median 0.001 <= max 0.002 does not hold"),
    ({"max_seconds": 5e-4}, "min 0.0005 <= median 0.001 <= max 0.0005 does not hold"),
    ({"min_seconds": 0.0}, "greater than 0"),
    ({"repeats": 0}, "greater than or equal to 1"),
    ({"sm_clock_mhz": float("nan")}, "finite number"),
])
def test_an_impossible_timing_is_refused(changes, message):
    with pytest.raises(ValidationError, match=message):
        _timing(1e-3, **changes)


def test_no_timing_in_the_simulator(monkeypatch):
    import labkit.gpu

    monkeypatch.setattr(labkit.gpu, "SIMULATED", True)
    with pytest.raises(NoGPUError, match="no timing in the Numba CUDA simulator"):
        timing.time_gpu(lambda: None)


def test_repeats_must_be_positive():
    with pytest.raises(ValueError, match="repeats >= 1"):
        timing.time_gpu(lambda: None, repeats=0)
