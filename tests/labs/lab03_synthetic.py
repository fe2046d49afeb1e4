"""A lab-03 record made from a model of an H200, not from a GPU: for testing what the record derives
(plateaus, knees, Little's-law predictions, the bars' predicates), what it refuses, and that its
tables and figures render. Nothing here is a measurement; no course folder would accept it (the
tests never write it anywhere but a temporary folder).

The model: dependent loads of 32 cycles (L1), 270 cycles (L2) and ``HBM_NS`` (HBM) at 1980 MHz; a
copy whose bandwidth follows Little's law with each warp's round trip (that latency + its bytes at
its SM's share of ``COPY_GBPS``) up to ``COPY_GBPS``, the corner rounded
(a p-norm of the two asymptotes, p = ``SHARPNESS``); FMA chains of 4 cycles, one warp instruction
per scheduler per cycle; register variants slower with spills; waves of equal blocks.
"""

from __future__ import annotations

import math

from labkit.kernels import chase, ilp, register_pressure
from labkit.labs.base import Check
from labkit.labs.lab03 import LAB
from labkit.labs.lab03.program import FMA_THREADS, capped_launch, copy_shape, fma_trips, wave_grid
from labkit.models import latency, occupancy
from labkit.models.access import WARP_LANES
from labkit.labs.lab03.results import (LOAD_BYTES, ArithmeticStep, ChasePoint, Device, DriverStep, FmaKernel,
                                       FmaPoint, Lab03Results, LatencyStep, MemoryStep, RegisterStep, RegisterVariant,
                                       StreamKernel, StreamPoint, Unavailable, WavePoint, WaveStep)
from labkit.gpu.timing import Timing

SMS, CLOCK_MHZ, L2_BYTES = 132, 1980.0, 60 << 20
COPY_GBPS, HBM_NS = 4100.0, 600.0
SHARPNESS = 4.0
FMA_LATENCY = 4.0
COPY_REGISTERS = {1: 14, 2: 20, 4: 30, 8: 48, 16: 80}
FMA_REGISTERS = {1: 16, 2: 18, 4: 20, 8: 25}
MIX = {None: (80, 0), 72: (72, 72), 64: (64, 96), 56: (56, 232), 48: (48, 320), 40: (40, 384), 32: (32, 432)}


def timing(seconds: float, sm_clock_mhz: float | None = CLOCK_MHZ) -> Timing:
    return Timing(median_seconds=seconds, min_seconds=seconds * 0.99, max_seconds=seconds * 1.02, repeats=7, warmup=1,
                  l2_flushed=False, sm_clock_mhz=sm_clock_mhz, mem_clock_mhz=3201.0, back_to_back=True)


def load_cycles(working_set: int) -> float:
    """L1 up to 192 KiB, L2 up to 50 MiB, HBM above, with L2 hits fading as 1 - L2 / working set."""
    if working_set <= 192 << 10:
        return 32.0
    hbm = HBM_NS * CLOCK_MHZ / 1e3
    if working_set <= 50 << 20:
        return 270.0
    hit = min(1.0, (50 << 20) / working_set)
    return hit * 270.0 + (1 - hit) * hbm


def copy_gbps(loads: int, warps: int, sharpness: float = SHARPNESS) -> float:
    """Little's law's rising line (each warp's round trip: latency + its bytes at its SM's share of
    the copy bandwidth) and the copy bandwidth, joined by a p-norm."""
    knee = latency.copy_knee_warps_per_sm(COPY_GBPS, latency.bytes_in_flight_per_warp(loads, LOAD_BYTES, WARP_LANES),
                                          HBM_NS * 1e-9, SMS)
    rising = COPY_GBPS * warps / knee
    return (rising ** -sharpness + COPY_GBPS ** -sharpness) ** (-1 / sharpness)


def results(copy_sharpness: float = SHARPNESS, checks_pass: bool = True, **changes) -> Lab03Results:
    sizes = LAB.gpu_sizes
    arch = occupancy.SM90
    points = [ChasePoint(working_set_bytes=ws, steps=sizes.chase_steps,
                         cycles=round(load_cycles(ws) * sizes.chase_steps),
                         nanoseconds=round(load_cycles(ws) * sizes.chase_steps * 1e3 / CLOCK_MHZ))
              for ws in sizes.chase_working_sets]
    elements = sizes.stream_bytes // 4
    moved = ilp.stream_bytes_moved(elements)
    stream_points = []
    for loads in sizes.stream_loads:
        for warps in sizes.stream_warps:
            launch = capped_launch(*copy_shape(warps), COPY_REGISTERS[loads], arch)
            if launch is not None:
                stream_points.append(StreamPoint(loads=loads, launch=launch, moved_bytes=moved,
                                                 timing=timing(moved / copy_gbps(loads, warps, copy_sharpness) / 1e9)))
    fma_points = []
    for chains in sizes.fma_chains:
        for warps in sizes.fma_warps:
            launch = capped_launch(FMA_THREADS, warps // 4, FMA_REGISTERS[chains], arch)
            threads = SMS * launch.blocks_per_sm * FMA_THREADS
            flops = ilp.fma_flops(threads, fma_trips(sizes, chains), chains)
            peak = SMS * 128 * 2 * CLOCK_MHZ * 1e6 * 0.97
            rate = peak * latency.issue_share(warps, chains, FMA_LATENCY, 1.0)
            fma_points.append(FmaPoint(chains=chains, launch=launch, flops=flops, timing=timing(flops / rate)))
    mix_threads = SMS * sizes.register_blocks_per_sm * sizes.register_threads
    mix_flops = register_pressure.mix_flops(mix_threads, sizes.register_rounds)
    variants = [RegisterVariant(max_registers=cap, registers_per_thread=MIX[cap][0],
                                local_bytes_per_thread=MIX[cap][1], flops=mix_flops,
                                timing=timing(mix_flops / 60e12 * (1 + MIX[cap][1] / 100)))
                for cap in sizes.register_caps]
    wave_launch = capped_launch(sizes.wave_threads, sizes.wave_blocks_per_sm, FMA_REGISTERS[1], arch)
    slots = SMS * sizes.wave_blocks_per_sm
    block_seconds = sizes.wave_trips * ilp.FMAS_PER_TRIP * FMA_LATENCY / (CLOCK_MHZ * 1e6)
    wave_points = [WavePoint(grid_blocks=grid, timing=timing(math.ceil(grid / slots) * block_seconds + 3e-6))
                   for grid in sorted({wave_grid(q, e, slots) for q, e in sizes.wave_grids})]
    record = dict(
        sizes=sizes, checks=[Check(name="synthetic", passed=checks_pass)],
        device=Device(name="NVIDIA H200", compute_capability=(9, 0), sm_count=SMS, max_sm_clock_mhz=CLOCK_MHZ,
                      hbm_peak_gbps=4800.0, l2_bytes=L2_BYTES, fp32_lanes_per_sm=128),
        latency=LatencyStep(stride_bytes=chase.STRIDE_BYTES, points=points, sm_clock_mhz=CLOCK_MHZ),
        memory=MemoryStep(copy_bytes=moved, reference=timing(moved / COPY_GBPS / 1e9), reference_is="cupy_copyto",
                          kernels=[StreamKernel(loads=n, registers_per_thread=COPY_REGISTERS[n])
                                   for n in sizes.stream_loads], points=stream_points),
        arithmetic=ArithmeticStep(latency_fmas=sizes.fma_latency_trips * ilp.FMAS_PER_TRIP,
                                  latency_cycles=round(FMA_LATENCY * sizes.fma_latency_trips * ilp.FMAS_PER_TRIP),
                                  kernels=[FmaKernel(chains=c, registers_per_thread=FMA_REGISTERS[c])
                                           for c in sizes.fma_chains], points=fma_points, sm_clock_mhz=CLOCK_MHZ),
        registers=RegisterStep(threads_per_block=sizes.register_threads, variants=variants),
        waves=WaveStep(launch=wave_launch, registers_per_thread=FMA_REGISTERS[1], points=wave_points),
        ncu=Unavailable(status="unavailable", reason="synthetic"),
        driver=DriverStep(status="ok", kernels=52, configurations=3860, equal=3860, edge_cases=9,
                          edge_cases_agreeing=8, edge_cases_not_modelled=1, device_mismatches=[], errors=[],
                          seconds=17.0),
        seconds=80.0)
    record.update(changes)
    return Lab03Results(**record)
