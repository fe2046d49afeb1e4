"""Lab 05's sizes on a given GPU (see labkit.labs.planning): pure, the H200's are ``LAB.gpu_sizes``.

- kernel_g's walkers fill the GPU once at full occupancy: SMs x the warps an SM holds (8 448 on the
  H200's 132 x 64), so its planted flaw, registers that cap the resident warps, costs what it costs
  on that GPU; the list holds enough nodes that no two walks meet.
- Every kernel's arrays are allocated at once (program.Inputs): the streams and the FP64 mystery's
  vector are halved until they fit in the memory budget (about 0.8 GB on the H200's sizes).
"""

from __future__ import annotations

from labkit.gpu.device import DeviceFacts
from labkit.kernels import mysteries as m
from labkit.labs.lab05.results import THREADS, Sizes
from labkit.labs.planning import memory_budget_bytes
from labkit.models.occupancy import architecture

FLOAT32 = 4
NODE_BYTES = m.NODE_WORDS * 4


def footprint_bytes(sizes: Sizes) -> int:
    """program.Inputs: the matrix and its output, the vector and its output, the slices and their
    output, x, y and the copy's output, the histogram's values and counts, the list's nodes."""
    return (FLOAT32 * (2 * sizes.matrix_side ** 2 + 2 * sizes.elements + 2 * sizes.slices * sizes.slice_elements
                       + 3 * sizes.stream_elements + m.HIST_ITEMS * sizes.hist_threads + m.BINS * sizes.hist_threads)
            + NODE_BYTES * sizes.list_nodes + FLOAT32 * m.NODE_WORDS * sizes.walk_warps)


def sizes_for(facts: DeviceFacts, reference: Sizes) -> Sizes:
    warps = facts.sm_count * architecture(facts.compute_capability).max_warps_per_sm
    walk_warps = warps - warps % (THREADS // 32)
    nodes = reference.list_nodes
    while nodes // walk_warps < reference.walk_steps:
        nodes *= 2
    sizes = reference.model_copy(update={"walk_warps": walk_warps, "list_nodes": nodes})
    budget = memory_budget_bytes(facts)
    while footprint_bytes(sizes) > budget and sizes.stream_elements > 1 << 20:
        sizes = sizes.model_copy(update={"stream_elements": sizes.stream_elements // 2,
                                         "elements": sizes.elements // 2})
    return Sizes.model_validate(sizes.model_dump())
