"""Little's law helpers: bytes and instructions in flight."""

import pytest

from labkit.models import latency


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


def test_a_transfer_at_one_sms_share_takes_bytes_times_sms_over_bandwidth():
    # 16 KiB through one of 132 SMs' shares of 4250 GB/s: 16384 x 132 / 4.25e12 s
    assert latency.share_transfer_seconds(16384, 4250, 132) == pytest.approx(16384 * 132 / 4.25e12)
    assert latency.share_transfer_seconds(1000, 1000, 1) == pytest.approx(1e-9)


def test_a_copy_warps_round_trip_is_the_latency_plus_its_reads_and_writes_at_its_share():
    # 512 bytes read and 512 written by each warp, 100 SMs sharing 1000 GB/s: 1024 x 100 / 1e12 = 102.4 ns
    assert latency.copy_round_trip_seconds(512, 500e-9, 1000, 100) == pytest.approx(500e-9 + 102.4e-9)


def test_littles_warps_for_the_latency_alone_cover_the_read_bandwidth_times_latency():
    # (4000 / 2) GB/s x 600 ns / 132 SMs = 9091 bytes per SM: 2.2 warps of 4096 bytes
    assert latency.copy_latency_warps_per_sm(4000, 4096, 600e-9, 132) == pytest.approx(2000e9 * 600e-9 / 132 / 4096)


def test_the_copy_knee_is_one_warp_more_than_the_latency_alone_asks():
    alone = latency.copy_latency_warps_per_sm(4000, 4096, 600e-9, 132)
    knee = latency.copy_knee_warps_per_sm(4000, 4096, 600e-9, 132)
    assert knee == pytest.approx(alone + 1)
    # the same from the round trip: (C / SMs) x round trip / bytes moved per warp
    trip = latency.copy_round_trip_seconds(4096, 600e-9, 4000, 132)
    assert knee == pytest.approx(4000e9 / 132 * trip / (2 * 4096))


def test_the_bound_rises_by_one_round_trip_per_warp_and_stops_at_the_ceiling():
    trip = latency.copy_round_trip_seconds(512, 500e-9, 1000, 100)
    # one warp per SM below the knee: 1024 bytes per round trip per SM, 100 SMs
    assert latency.copy_gbps(1, 512, 500e-9, 1000, 100) == pytest.approx(1024 * 100 / trip / 1e9)
    assert latency.copy_gbps(2, 512, 500e-9, 1000, 100) == pytest.approx(2 * 1024 * 100 / trip / 1e9)
    knee = latency.copy_knee_warps_per_sm(1000, 512, 500e-9, 100)
    assert latency.copy_gbps(knee, 512, 500e-9, 1000, 100) == pytest.approx(1000)
    assert latency.copy_gbps(3 * knee, 512, 500e-9, 1000, 100) == 1000
    # the latency alone would put the knee one warp earlier: its line is steeper than the bound
    alone = latency.copy_latency_warps_per_sm(1000, 512, 500e-9, 100)
    assert latency.copy_gbps(alone, 512, 500e-9, 1000, 100) < 1000


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
    lambda: latency.copy_gbps(0, 512, 1e-6, 4000, 132),
    lambda: latency.copy_gbps(1, 512, 0, 4000, 132),
    lambda: latency.copy_round_trip_seconds(0, 1e-6, 4000, 132),
    lambda: latency.copy_latency_warps_per_sm(4000, 512, 1e-6, 0),
    lambda: latency.share_transfer_seconds(512, 0, 132),
    lambda: latency.issue_share(4, 0, 4, 1),
    lambda: latency.issue_knee_warps_per_sm(1, 4, 0),
])
def test_little_predictions_refuse_non_positive_inputs(call):
    with pytest.raises(ValueError, match="must be positive"):
        call()
