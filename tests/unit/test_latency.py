"""Little's law helpers: bytes and instructions in flight."""

import pytest

from labkit import latency


def test_bytes_in_flight_is_bandwidth_times_latency():
    assert latency.bytes_in_flight(4800, 600e-9) == pytest.approx(2.88e6)
    assert latency.bytes_in_flight(1000, 1e-6) == pytest.approx(1e6)


def test_bytes_in_flight_per_sm_divides_by_the_sms():
    assert latency.bytes_in_flight_per_sm(4800, 600e-9, 132) == pytest.approx(2.88e6 / 132)


def test_instructions_in_flight_is_latency_times_issue_rate():
    assert latency.instructions_in_flight(4, 1) == 4
    assert latency.instructions_in_flight(280, 0.5) == 140


@pytest.mark.parametrize("call", [
    lambda: latency.bytes_in_flight(0, 1e-6),
    lambda: latency.bytes_in_flight(100, -1e-9),
    lambda: latency.bytes_in_flight_per_sm(100, 1e-6, 0),
    lambda: latency.instructions_in_flight(4, 0),
])
def test_non_positive_inputs_are_refused_by_name(call):
    with pytest.raises(ValueError, match="must be positive"):
        call()
