"""Latency hiding by Little's law: how much work must be in flight to keep a resource busy.

Little's law: items in a system = arrival rate x time each spends there. For a GPU, bytes in
flight = bandwidth x latency, and independent instructions in flight = issue rate x latency.
Pure functions; units in the names (``gbps`` = 10^9 bytes/s, ``seconds``, ``cycles``).
"""

from __future__ import annotations


def _positive(**values: float) -> None:
    for name, value in values.items():
        if value <= 0:
            raise ValueError(f"{name} must be positive, got {value}")


def bytes_in_flight(bandwidth_gbps: float, latency_seconds: float) -> float:
    """Bytes that must be requested and not yet arrived to sustain a bandwidth:
    bandwidth x latency (e.g. 4800 GB/s x 600 ns = 2.88 MB over the whole GPU)."""
    _positive(bandwidth_gbps=bandwidth_gbps, latency_seconds=latency_seconds)
    return bandwidth_gbps * 1e9 * latency_seconds


def bytes_in_flight_per_sm(bandwidth_gbps: float, latency_seconds: float, sm_count: int) -> float:
    """The same, shared among the SMs: bandwidth x latency / SMs (e.g. 2.88 MB / 132 = 21.8 kB)."""
    _positive(sm_count=sm_count)
    return bytes_in_flight(bandwidth_gbps, latency_seconds) / sm_count


def instructions_in_flight(latency_cycles: float, issue_per_cycle: float) -> float:
    """Independent instructions needed in flight to issue every cycle: latency x issue rate
    (e.g. a 4-cycle latency at 1 instruction per cycle needs 4 independent instructions, from
    4 warps or from one warp's independent chains)."""
    _positive(latency_cycles=latency_cycles, issue_per_cycle=issue_per_cycle)
    return latency_cycles * issue_per_cycle
