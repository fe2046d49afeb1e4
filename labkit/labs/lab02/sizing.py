"""Lab 02's sizes on a given GPU (see labkit.labs.planning): pure, the H200's are ``LAB.gpu_sizes``.

Every buffer of the lab is allocated at once (program.Buffers): the global sweep's span (its widest
point, plan.sweep_buffer_bytes), the particles in both layouts
and the matrix with its transpose. On a GPU with less memory, the sweep's threads, the particles
and the matrix's side are halved until the whole fits in the memory budget. The shared-memory
sweep's grid is SMs x shared_blocks_per_sm (program), whatever the SMs.
"""

from __future__ import annotations

from labkit.gpu.device import DeviceFacts
from labkit.kernels.coalescing_cuda import SWEEP_LOADS, THREADS, TILE
from labkit.labs.lab02 import plan as lp
from labkit.labs.lab02.results import Sizes
from labkit.labs.planning import memory_budget_bytes

FLOAT32 = 4
PARTICLE_FIELDS = 8


def sweep_span_bytes(sizes: Sizes) -> int:
    """The sweep buffer of ``sizes`` (program.Buffers): plan.sweep_buffer_bytes of its launches."""
    return lp.sweep_buffer_bytes(lp.launches(sizes, 1))


def footprint_bytes(sizes: Sizes) -> int:
    """program.Buffers: the sweep's span, the particles as AoS and SoA, the matrix and its transpose."""
    particles = 2 * PARTICLE_FIELDS * FLOAT32 * sizes.particles
    return sweep_span_bytes(sizes) + particles + 2 * FLOAT32 * sizes.matrix_side ** 2


def sizes_for(facts: DeviceFacts, reference: Sizes) -> Sizes:
    budget = memory_budget_bytes(facts)
    sizes = reference
    while footprint_bytes(sizes) > budget and sizes.sweep_elements > 1 << 16:
        shares = {"sweep_elements": sweep_span_bytes(sizes),
                  "particles": 2 * PARTICLE_FIELDS * FLOAT32 * sizes.particles,
                  "matrix_side": 2 * FLOAT32 * sizes.matrix_side ** 2}
        largest = max(shares, key=shares.get)
        sizes = sizes.model_copy(update={largest: getattr(sizes, largest) // 2})
    for field, unit in (("sweep_elements", 4 * THREADS * SWEEP_LOADS), ("particles", 4 * THREADS), ("matrix_side", TILE)):
        if getattr(sizes, field) % unit:
            raise ValueError(f"lab-02's plan: {field} {getattr(sizes, field)} is not a multiple of {unit}")
    return sizes
