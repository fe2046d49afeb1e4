"""Lab 01's sizes on a given GPU (see labkit.labs.planning): pure, the H200's are ``LAB.gpu_sizes``.

- The copy ceiling's buffers (2 x copy_bytes), the sweep's array (4 x sweep_elements) and the
  placement's buffers (SAXPY's two vectors, the GEMM's three matrices, the stencil's two grids,
  all allocated together) each fit in the memory budget: halved until they do.
- The FMA ceilings run one wave of full SMs: as many 256-thread blocks per SM as its resident
  threads allow (8 on 2048-thread SMs, 6 on 1536, 4 on 1024).
- Each FP64 FMA call takes at most FP64_CALL_SECONDS at the part's FP64 peak: on a 1:64 part the
  chains are shortened (fewer trips), for both precisions, since they share the size.
"""

from __future__ import annotations

from labkit.gpu.device import DeviceFacts, fma_peak_gflops, fp64_lanes_per_sm
from labkit.kernels import roofline_kernels as rk
from labkit.labs.lab01.results import Sizes
from labkit.labs.planning import FP64_CALL_SECONDS, halve_until, memory_budget_bytes, resident_threads_per_sm

FLOAT32 = 4


def copy_footprint_bytes(sizes: Sizes) -> int:
    return 2 * sizes.copy_bytes


def sweep_footprint_bytes(sizes: Sizes) -> int:
    return FLOAT32 * sizes.sweep_elements


def placement_footprint_bytes(sizes: Sizes) -> int:
    """SAXPY's x and y, the GEMM's a, b, c, the stencil's grid and out (program.sample_launchers)."""
    return FLOAT32 * (2 * sizes.vector_elements + 3 * sizes.gemm_n ** 2 + 2 * sizes.stencil_n ** 2)


def footprint_bytes(sizes: Sizes) -> int:
    """The most the lab's buffers hold at once: its steps run one after the other."""
    return max(copy_footprint_bytes(sizes), sweep_footprint_bytes(sizes), placement_footprint_bytes(sizes))


def fp64_call_seconds(sizes: Sizes, facts: DeviceFacts) -> float:
    """One FP64 FMA-chain call's time at the part's FP64 peak (its maximum SM clock)."""
    threads = facts.sm_count * sizes.fma_blocks_per_sm * sizes.fma_threads
    peak = fma_peak_gflops(facts.sm_count, fp64_lanes_per_sm(facts.compute_capability), facts.max_sm_clock_mhz)
    return rk.fma_peak_flops(threads, sizes.fma_trips) / (peak * 1e9)


def sizes_for(facts: DeviceFacts, reference: Sizes) -> Sizes:
    budget = memory_budget_bytes(facts)
    sweep_unit = rk.SWEEP_THREADS * rk.SWEEP_ELEMENTS_PER_THREAD
    sizes = reference.model_copy(update={
        "fma_blocks_per_sm": min(reference.fma_blocks_per_sm, resident_threads_per_sm(facts) // reference.fma_threads),
        "copy_bytes": halve_until(reference.copy_bytes, lambda b: 2 * b <= budget, 1 << 20),
        "sweep_elements": halve_until(reference.sweep_elements, lambda n: FLOAT32 * n <= budget, sweep_unit),
    })
    while placement_footprint_bytes(sizes) > budget and sizes.vector_elements > 1 << 20:
        # halve the larger of SAXPY's vectors and the stencil's grid (its side by two: a quarter)
        if 2 * sizes.vector_elements >= 2 * sizes.stencil_n ** 2:
            sizes = sizes.model_copy(update={"vector_elements": sizes.vector_elements // 2})
        else:
            sizes = sizes.model_copy(update={"stencil_n": sizes.stencil_n // 2})
    trips = halve_until(sizes.fma_trips, lambda t: fp64_call_seconds(sizes.model_copy(update={"fma_trips": t}), facts)
                        <= FP64_CALL_SECONDS, 16)
    return sizes.model_copy(update={"fma_trips": trips})
