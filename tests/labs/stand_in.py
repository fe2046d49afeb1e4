"""Stand-ins for what only a GPU gives, so that each lab's measurement code runs in the simulator.

The device facts describe a small Hopper part (2 SMs, so the simulator's grids stay small); the
timers run each function once and report a fixed time. Nothing measured with them is a GPU
result: results files made from them say ``simulated: true`` and no course folder accepts them.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from labkit.gpu.device import DeviceFacts
from labkit.gpu.timing import Timing
from labkit.labs.base import Bench
from labkit.specs.profiles import PROFILES

FACTS = DeviceFacts(name="Simulated GPU", compute_capability=(9, 0), sm_count=2, max_sm_clock_mhz=1980.0,
                    max_mem_clock_mhz=3201.0, memory_bus_width_bits=6016, l2_bytes=60 << 20,
                    max_threads_per_block=1024, max_shared_bytes_per_block_optin=227 << 10,
                    shared_bytes_per_sm=228 << 10, registers_per_sm=65536, driver_version="13.0",
                    memory_bytes=1 << 30)
STAND_IN_SECONDS = 1e-3


def stand_in_timer(fn, *, warmup: int = 10, repeats: int = 100, flush_l2: bool = False) -> Timing:
    """Runs ``fn`` once (in the simulator) and says it took STAND_IN_SECONDS."""
    fn()
    return Timing(median_seconds=STAND_IN_SECONDS, min_seconds=STAND_IN_SECONDS, max_seconds=STAND_IN_SECONDS,
                  repeats=repeats, warmup=warmup, l2_flushed=flush_l2, sm_clock_mhz=None, mem_clock_mhz=None,
                  back_to_back=True)


def stand_in_interleaved(fns, *, warmup: int = 10, repeats: int = 100, flush_l2: bool = False) -> tuple[Timing, ...]:
    """Runs each function once, in order, and says each took STAND_IN_SECONDS."""
    return tuple(stand_in_timer(fn, warmup=warmup, repeats=repeats, flush_l2=flush_l2) for fn in fns)


def simulated_facts(profile: str) -> DeviceFacts:
    """A common part's facts (labkit.specs.profiles) with 2 SMs, so that the simulator's grids stay
    small: its compute capability, limits, clocks, bus and memory as the driver reports them. Named
    "Simulated <part>": a record with 2 SMs is no record of the part itself, and is held to what its
    compute capability allows (labkit.records.plausibility)."""
    facts = PROFILES[profile]
    return dataclasses.replace(facts, name=f"Simulated {facts.name}", sm_count=2)


def stand_in_bench(work_dir: Path, steps: list[str] | None = None, facts: DeviceFacts = FACTS) -> Bench:
    """A simulated bench on ``facts``; ``steps`` collects the progress calls."""
    return Bench(facts, stand_in_timer, stand_in_interleaved, work_dir, (steps.append if steps is not None else lambda step: None),
                 simulated=True)
