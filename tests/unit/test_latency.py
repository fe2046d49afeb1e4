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


def test_bytes_in_flight_per_warp():
    assert latency.bytes_in_flight_per_warp(8, 16) == 4096
    assert latency.bytes_in_flight_per_warp(1, 4) == 128


def test_a_copy_moves_twice_what_its_reads_in_flight_bring_per_latency():
    # one warp per SM with 512 bytes in flight, 500 ns, 100 SMs: 2 x 512 x 100 / 500e-9 = 204.8 GB/s
    assert latency.copy_gbps(1, 512, 500e-9, 100) == pytest.approx(204.8)
    assert latency.copy_gbps(4, 512, 500e-9, 100) == pytest.approx(4 * 204.8)


def test_at_the_copy_knee_littles_bandwidth_is_the_ceiling():
    knee = latency.copy_knee_warps_per_sm(4000, 4096, 600e-9, 132)
    assert latency.copy_gbps(knee, 4096, 600e-9, 132) == pytest.approx(4000)
    # (4000 / 2) GB/s x 600 ns / 132 SMs = 9091 bytes per SM: 2.2 warps of 4096 bytes
    assert knee == pytest.approx(2000e9 * 600e-9 / 132 / 4096)


def test_issue_share_and_its_knee():
    # 4-cycle latency, one instruction per cycle per scheduler, 4 schedulers: 16 warps of one chain
    assert latency.issue_knee_warps_per_sm(1, 4, 1) == 16
    assert latency.issue_knee_warps_per_sm(2, 4, 1) == 8
    assert latency.issue_knee_warps_per_sm(8, 4, 1) == 2
    assert latency.issue_share(4, 1, 4, 1) == 0.25
    assert latency.issue_share(8, 1, 4, 1) == 0.5
    assert latency.issue_share(16, 1, 4, 1) == 1.0
    assert latency.issue_share(64, 1, 4, 1) == 1.0
    assert latency.issue_share(4, 2, 4, 1) == 0.5


@pytest.mark.parametrize("call", [
    lambda: latency.bytes_in_flight_per_warp(0, 16),
    lambda: latency.copy_gbps(0, 512, 1e-6, 132),
    lambda: latency.copy_gbps(1, 512, 0, 132),
    lambda: latency.issue_share(4, 0, 4, 1),
    lambda: latency.issue_knee_warps_per_sm(1, 4, 0),
])
def test_little_predictions_refuse_non_positive_inputs(call):
    with pytest.raises(ValueError, match="must be positive"):
        call()
