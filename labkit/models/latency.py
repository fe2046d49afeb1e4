"""Latency hiding by Little's law: how much work must be in flight to keep a resource busy.

Little's law: items in a system = arrival rate x time each spends there. For a GPU, bytes in
flight = bandwidth x latency, and independent instructions in flight = issue rate x latency.
The time a warp's request spends in the memory system is not the latency alone: the bytes a
warp asks for at once also have to come through its SM's share of the bandwidth, which the copy
functions below count (operational analysis's asymptotic bounds: delay + service demand).
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


def share_transfer_seconds(bytes_: float, bandwidth_gbps: float, sm_count: int) -> float:
    """The time ``bytes_`` take to come through one SM's share of a bandwidth shared by all SMs:
    bytes x SMs / bandwidth (e.g. 16 KiB at 4250 GB/s over 132 SMs: 0.51 us)."""
    _positive(bytes_=bytes_, bandwidth_gbps=bandwidth_gbps, sm_count=sm_count)
    return bytes_ * sm_count / (bandwidth_gbps * 1e9)


def copy_round_trip_seconds(read_bytes_per_warp: float, latency_seconds: float, ceiling_gbps: float,
                            sm_count: int) -> float:
    """One trip of a copy's warp at best: its loads wait the latency, and the bytes it moves (its
    reads and as many writes) come through its SM's share of the copy bandwidth C:
    latency + 2 x read bytes x SMs / C. The second term is the service demand D of operational
    analysis (Lazowska et al., Quantitative System Performance, ch. 5), the first its delay Z."""
    _positive(read_bytes_per_warp=read_bytes_per_warp, latency_seconds=latency_seconds)
    return latency_seconds + share_transfer_seconds(2 * read_bytes_per_warp, ceiling_gbps, sm_count)


def copy_latency_warps_per_sm(ceiling_gbps: float, read_bytes_per_warp: float, latency_seconds: float,
                              sm_count: int) -> float:
    """Little's law with the latency alone: the warps per SM whose reads in flight cover the read
    bandwidth x latency, (C / 2) x latency / SMs / read bytes per warp (Z / D above)."""
    _positive(read_bytes_per_warp=read_bytes_per_warp)
    return bytes_in_flight_per_sm(ceiling_gbps / 2, latency_seconds, sm_count) / read_bytes_per_warp


def copy_knee_warps_per_sm(ceiling_gbps: float, read_bytes_per_warp: float, latency_seconds: float,
                           sm_count: int) -> float:
    """The warps per SM where a copy reaches C: Little's law with each warp's whole round trip,
    (C / SMs) x round trip / bytes moved per warp = Little's warps for the latency alone + 1.

    The extra warp is the one whose bytes are coming through while the others wait: it is the
    knee N* = (Z + D) / D of operational analysis's asymptotic bounds for one SM (delay Z, the
    latency; service demand D, a warp's bytes at the SM's share of C). It is a lower bound: the
    measured knee lies above it when the latency under load exceeds the unloaded one."""
    return copy_latency_warps_per_sm(ceiling_gbps, read_bytes_per_warp, latency_seconds, sm_count) + 1


def copy_read_bytes_per_warp_for_knee(ceiling_gbps: float, latency_seconds: float, sm_count: int,
                                      knee_warps_per_sm: float) -> float:
    """The inverse of copy_knee_warps_per_sm: the read bytes each warp must have in flight for a
    copy to reach C at ``knee_warps_per_sm`` warps per SM, (C / 2) x latency / SMs / (knee - 1)
    (one warp of the knee is the one whose bytes are coming through)."""
    if knee_warps_per_sm <= 1:
        raise ValueError(f"knee_warps_per_sm must exceed 1 (one warp is the transfer's), got {knee_warps_per_sm}")
    return bytes_in_flight_per_sm(ceiling_gbps / 2, latency_seconds, sm_count) / (knee_warps_per_sm - 1)


def copy_gbps(warps_per_sm: float, read_bytes_per_warp: float, latency_seconds: float, ceiling_gbps: float,
              sm_count: int) -> float:
    """A copy's bandwidth (bytes read + written) by the asymptotic bound: each warp moves its bytes
    once per round trip (:func:`copy_round_trip_seconds`), capped by C:
    min(C, 2 x warps x read bytes per warp x SMs / round trip) = C x min(1, warps / knee)."""
    _positive(warps_per_sm=warps_per_sm)
    knee = copy_knee_warps_per_sm(ceiling_gbps, read_bytes_per_warp, latency_seconds, sm_count)
    return ceiling_gbps * min(1.0, warps_per_sm / knee)


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
