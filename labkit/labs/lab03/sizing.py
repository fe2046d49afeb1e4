"""Lab 03's sizes on a given GPU (see labkit.labs.planning): pure, the H200's are ``LAB.gpu_sizes``.

- The sweeps' resident warps per SM stop at what the SM holds (64, 48 or 32 warps: a point above is
  no launch at all), and so does the profiled copy at full occupancy (:func:`full_copy_warps`).
- The copy's two buffers fit in the memory budget (halved until they do); the register step reads
  its inputs from the copy's source, so its grid (SMs x register_blocks_per_sm blocks) shrinks to
  the largest divisor of 120 whose inputs that buffer holds: whole waves at every residency.
- The pointer chase keeps the working sets that fit in the budget (4 KiB up to 1 GiB).
"""

from __future__ import annotations

from labkit.gpu.device import DeviceFacts
from labkit.kernels.register_pressure import LIVE
from labkit.labs.lab03.results import Sizes
from labkit.labs.planning import halve_until, memory_budget_bytes
from labkit.models.occupancy import Architecture, architecture

FLOAT32 = 4
#: Blocks per SM of the register step's grid: divisors of 120, so that residencies of 1 to 6, and 8,
#: blocks per SM all run whole waves (the largest that the inputs allow is used).
REGISTER_GRIDS_PER_SM = (120, 60, 40, 24, 12, 8)
#: The profiled copy at full occupancy: one load per thread, every warp slot of the SM filled.
FULL_COPY_LOADS = 1


def full_copy_warps(arch: Architecture) -> int:
    """The warps per SM of the profiled copy at full occupancy (64 on the H200, 48 or 32 elsewhere)."""
    return arch.max_warps_per_sm


def register_inputs_bytes(sizes: Sizes, sm_count: int) -> int:
    return FLOAT32 * LIVE * sm_count * sizes.register_blocks_per_sm * sizes.register_threads


def footprint_bytes(sizes: Sizes) -> int:
    """The copy's source and target (the register step reads the source); the chase's largest working
    set is freed before them (program.Lab03Program.measure)."""
    return max(2 * sizes.stream_bytes, max(sizes.chase_working_sets))


def sizes_for(facts: DeviceFacts, reference: Sizes) -> Sizes:
    arch = architecture(facts.compute_capability)
    budget = memory_budget_bytes(facts)
    stream_bytes = halve_until(reference.stream_bytes, lambda b: 2 * b <= budget, 1 << 24)
    sizes = reference.model_copy(update={
        "stream_bytes": stream_bytes,
        "stream_warps": tuple(w for w in reference.stream_warps if w <= arch.max_warps_per_sm),
        "fma_warps": tuple(w for w in reference.fma_warps if w <= arch.max_warps_per_sm),
        "chase_working_sets": tuple(b for b in reference.chase_working_sets if b <= budget),
    })
    for blocks in REGISTER_GRIDS_PER_SM:
        candidate = sizes.model_copy(update={"register_blocks_per_sm": min(blocks, reference.register_blocks_per_sm)})
        if register_inputs_bytes(candidate, facts.sm_count) <= stream_bytes:
            return candidate
    raise ValueError(f"lab-03's plan: {stream_bytes} bytes cannot hold the register step's inputs on "
                     f"{facts.sm_count} SMs")
