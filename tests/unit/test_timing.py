"""The timer's pure parts: no GPU needed (tests/gpu times real kernels)."""

import pytest

from labkit import timing
from labkit.device import NoGPUError
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


def _timing(median_seconds: float) -> Timing:
    return Timing(median_seconds, median_seconds / 2, median_seconds * 2, 100, 10, True, 1980.0, 3201.0, True)


def test_bandwidth_is_bytes_over_the_median():
    assert _timing(1e-3).gbps(4e9) == pytest.approx(4000.0)


def test_to_dict_keeps_every_field():
    d = _timing(1e-3).to_dict()
    assert d["median_seconds"] == 1e-3 and d["l2_flushed"] is True and d["sm_clock_mhz"] == 1980.0
    assert set(d) == {f for f in Timing.__dataclass_fields__}


def test_no_timing_in_the_simulator(monkeypatch):
    monkeypatch.setattr(timing, "select_backend", lambda: "simulator")
    with pytest.raises(NoGPUError, match="no timing in the Numba CUDA simulator"):
        timing.time_gpu(lambda: None)


def test_repeats_must_be_positive():
    with pytest.raises(ValueError, match="repeats >= 1"):
        timing.time_gpu(lambda: None, repeats=0)
