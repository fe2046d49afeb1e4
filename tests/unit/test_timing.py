"""The timer's pure parts: no GPU needed (tests/gpu times real kernels)."""

import statistics

import pytest
from pydantic import ValidationError

from labkit.gpu import timing
from labkit.gpu.backend import NoGPUError
from labkit.gpu.timing import Timing


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
def test_the_first_chunks_reach_the_minimum_exactly(repeats, expected):
    done, chunks = 0, []
    while done < repeats:
        chunks.append(timing.next_chunk(done, repeats, 50))
        done += chunks[-1]
    assert chunks == expected


def test_past_the_minimum_whole_chunks_up_to_the_cap():
    assert timing.next_chunk(20, 20, 50) == 50
    assert timing.next_chunk(190, 20, 50) == 10          # cap: 10 x 20
    assert timing.next_chunk(200, 20, 50) == 0


def test_noise_is_nvbench_relative_standard_deviation():
    samples = [1.0, 2.0, 3.0, 4.0]
    assert timing.relative_noise(samples) == pytest.approx(statistics.stdev(samples) / 2.5)
    assert timing.noise_track(samples)[-1] == pytest.approx(timing.relative_noise(samples))
    assert timing.noise_track(samples)[0] == pytest.approx(statistics.stdev([1.0, 2.0]) / 1.5)
    assert timing.relative_noise([3.0]) == 0.0


def test_the_timer_stops_under_the_noise_target_only_after_the_minimum():
    quiet = [1.0, 1.001] * 10
    assert timing.stop_reason(quiet[:9], 10, 0.005) is None
    assert timing.stop_reason(quiet, 10, 0.005) == "noise"


def test_noise_that_settles_above_the_target_stops_the_timer():
    """nvbench's settled rule: a kernel 10 % noisy by nature stops once its noise stops moving."""
    noisy = [1.0, 1.2] * 60
    assert timing.stop_reason(noisy[:30], 10, 0.005) is None         # too few noise values yet
    assert timing.stop_reason(noisy, 10, 0.005) == "settled"


def test_noise_still_moving_does_not_stop_the_timer():
    drifting = [1.0 + 0.01 * i * i for i in range(80)]
    assert timing.stop_reason(drifting, 10, 0.005) is None


def test_the_clock_ran_at_is_cycles_over_nanoseconds_summed():
    # 1 000 ns at 1.98 GHz, then 3 000 ns at 1.5 GHz: (1 980 + 4 500) / 4 000 ns = 1 620 MHz
    stamps = [(10_000, 50_000, 11_000, 51_980), (20_000, 60_000, 23_000, 64_500)]
    assert timing.ran_at_mhz(stamps) == pytest.approx(1620.0)


def test_a_call_whose_stamps_did_not_land_is_left_out():
    stamps = [(0, 0, 11_000, 51_980), (20_000, 60_000, 23_000, 64_500), (5, 5, 5, 9)]
    assert timing.ran_at_mhz(stamps) == pytest.approx(1500.0)
    assert timing.ran_at_mhz([(0, 0, 0, 0)]) is None


def _state(reasons):
    from labkit.gpu.device import ClockState, Clocks

    return ClockState(clocks=Clocks(sm_mhz=1980.0, mem_mhz=3201.0), reasons=reasons)


def test_a_sample_under_a_power_cap_is_flagged_and_idle_is_not():
    windows = [timing.Window(0.0, 0.1), timing.Window(0.1, 0.2), timing.Window(0.2, 0.3)]
    readings = [(0.05, _state(0x1)), (0.15, _state(0x4)), (0.25, _state(0x0))]
    assert timing.throttled(windows, readings) == (1, ["sw_power_cap"])


def test_a_short_sample_takes_the_nearest_reading():
    windows = [timing.Window(0.5, 0.50001)]
    readings = [(0.0, _state(0x0)), (0.52, _state(0x40))]
    assert timing.throttled(windows, readings) == (1, ["hw_thermal_slowdown"])
    assert timing.throttled(windows, []) == (0, [])


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
    import labkit.gpu._numba

    monkeypatch.setattr(labkit.gpu._numba, "SIMULATED", True)
    with pytest.raises(NoGPUError, match="no timing in the Numba CUDA simulator"):
        timing.time_gpu(lambda: None)


def test_repeats_must_be_positive():
    with pytest.raises(ValueError, match="repeats >= 1"):
        timing.time_gpu(lambda: None, repeats=0)


def test_a_record_from_before_issue_29_is_read_and_says_its_clock_is_nvmls():
    """Decision: old records stay readable (no measured clock, no noise); their "% of peak" is at
    NVML's reading and clock_source says so, so a page can label it."""
    old = Timing.model_validate(dict(median_seconds=1e-3, min_seconds=1e-3, max_seconds=1e-3, repeats=20, warmup=5,
                                     l2_flushed=False, sm_clock_mhz=1980.0, mem_clock_mhz=3201.0, back_to_back=True))
    assert old.sm_clock_ran_mhz is None and old.relative_noise is None
    assert old.peak_clock_mhz == 1980.0 and old.clock_source == "nvml"


def test_a_measured_clock_is_the_clock_of_the_peak_and_both_are_kept():
    new = _timing(1e-3, sm_clock_ran_mhz=1560.0, relative_noise=0.01, throttled_repeats=3,
                  throttle_reasons=["sw_power_cap"], stopped_by="noise")
    assert new.peak_clock_mhz == 1560.0 and new.clock_source == "measured" and new.sm_clock_mhz == 1980.0
    assert Timing.model_validate_json(new.model_dump_json()) == new


@pytest.mark.parametrize("changes, message", [
    ({"relative_noise": -0.1}, "greater than or equal to 0"),
    ({"sm_clock_ran_mhz": 0.0}, "greater than 0"),
    ({"stopped_by": "luck"}, "Input should be"),
    ({"throttled_repeats": -1}, "greater than or equal to 0"),
])
def test_impossible_new_fields_are_refused(changes, message):
    with pytest.raises(ValidationError, match=message):
        _timing(1e-3, **changes)
