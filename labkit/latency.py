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


def bytes_in_flight_per_warp(loads_per_thread: int, bytes_per_load: int, warp_size: int = 32) -> int:
    """Bytes a warp has requested and not yet received when each thread has ``loads_per_thread``
    independent loads of ``bytes_per_load`` in flight (8 loads of 16 bytes: 4096 bytes)."""
    _positive(loads_per_thread=loads_per_thread, bytes_per_load=bytes_per_load, warp_size=warp_size)
    return loads_per_thread * bytes_per_load * warp_size


def copy_gbps(warps_per_sm: float, bytes_per_warp: float, latency_seconds: float, sm_count: int) -> float:
    """A copy's bandwidth (bytes read + written) when each warp keeps ``bytes_per_warp`` of loads in
    flight and waits ``latency_seconds`` for them: every latency, each SM reads warps x bytes per
    warp and writes as much (the stores do not make the warp wait). Little's law, with no ceiling:
    2 x warps x bytes per warp x SMs / latency."""
    _positive(warps_per_sm=warps_per_sm, bytes_per_warp=bytes_per_warp, latency_seconds=latency_seconds,
              sm_count=sm_count)
    return 2 * warps_per_sm * bytes_per_warp * sm_count / latency_seconds / 1e9


def copy_knee_warps_per_sm(ceiling_gbps: float, bytes_per_warp: float, latency_seconds: float,
                           sm_count: int) -> float:
    """The resident warps per SM at which :func:`copy_gbps` reaches ``ceiling_gbps``: the copy's
    reads (half its bytes) in flight per SM reach the read bandwidth x latency per SM,
    warps = (ceiling / 2) x latency / SMs / bytes per warp."""
    return bytes_in_flight_per_sm(ceiling_gbps / 2, latency_seconds, sm_count) / bytes_per_warp


def issue_share(warps_per_sm: float, chains_per_thread: int, latency_cycles: float, issue_per_cycle: float,
                schedulers_per_sm: int = 4) -> float:
    """The share of its peak issue rate a scheduler reaches on dependent chains: each of its
    warps (warps per SM / schedulers, spread evenly) offers ``chains_per_thread`` independent
    instructions per latency, and it can issue ``latency x issue rate`` of them (Little's law);
    min(1, warps per scheduler x chains / (latency x issue rate))."""
    _positive(warps_per_sm=warps_per_sm, chains_per_thread=chains_per_thread, schedulers_per_sm=schedulers_per_sm)
    offered = warps_per_sm / schedulers_per_sm * chains_per_thread
    return min(1.0, offered / instructions_in_flight(latency_cycles, issue_per_cycle))


def issue_knee_warps_per_sm(chains_per_thread: int, latency_cycles: float, issue_per_cycle: float,
                            schedulers_per_sm: int = 4) -> float:
    """The resident warps per SM at which :func:`issue_share` reaches 1:
    schedulers x latency x issue rate / chains (4 cycles, 1 per cycle, 1 chain: 16 warps)."""
    _positive(chains_per_thread=chains_per_thread, schedulers_per_sm=schedulers_per_sm)
    return schedulers_per_sm * instructions_in_flight(latency_cycles, issue_per_cycle) / chains_per_thread
