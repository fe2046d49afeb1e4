"""Lab 04's sizes on a given GPU (see labkit.labs.planning): pure, the H200's are ``LAB.gpu_sizes``.

- The timer check's two working sets follow L2: one that fits in it (a third of L2, at most 20 MB)
  and one far above it (six times L2, at least 400 MB): on an H200 (60 MiB of L2) 20 MB and 400 MB,
  on a T4 (4 MiB) 1 MB and 400 MB, on a B200 (126 MiB) 20 MB and 800 MB.
- The chronometer keeps six versions of the program alive at once, each with two batches and the
  resident matrix and its transpose: the matrix's side is halved until they fit in the budget.
"""

from __future__ import annotations

from labkit.gpu.device import DeviceFacts
from labkit.labs.lab04.results import CUPYX_COPY_BYTES, FAULTS, Sizes
from labkit.labs.planning import halve_until, memory_budget_bytes

FLOAT32 = 4
MB = 1_000_000
#: The working set that must fit in L2 takes at most this share of it (the rest: other lines, and
#: a set-associative cache's conflicts); the one that must not, at least this many times L2.
L2_FITTING_SHARE = 3
HBM_SET_TIMES_L2 = 6
#: Versions of the program the chronometer keeps alive at once: faulty, repaired, each fault alone.
CHRONOMETER_PIPELINES = 2 + len(FAULTS)


def pipeline_bytes(sizes: Sizes) -> int:
    """One version of the program (program.Pipeline): two device batches, the matrix and its transpose."""
    return 2 * sizes.batch_bytes + 2 * FLOAT32 * sizes.state_side ** 2


def footprint_bytes(sizes: Sizes) -> int:
    """The most held at once: the chronometer's six pipelines, or the timer check's two working sets
    beside cupyx's 1 GiB copy (source and target)."""
    return max(CHRONOMETER_PIPELINES * pipeline_bytes(sizes),
               sizes.l2_set_bytes + sizes.hbm_set_bytes + 2 * CUPYX_COPY_BYTES)


def sizes_for(facts: DeviceFacts, reference: Sizes) -> Sizes:
    budget = memory_budget_bytes(facts)
    fitting = facts.l2_bytes // L2_FITTING_SHARE
    l2_set = min(reference.l2_set_bytes, fitting // MB * MB if fitting >= MB else fitting // 4096 * 4096)
    hbm_set = max(reference.hbm_set_bytes, -(-HBM_SET_TIMES_L2 * facts.l2_bytes // (100 * MB)) * 100 * MB)
    sizes = reference.model_copy(update={"l2_set_bytes": l2_set, "hbm_set_bytes": hbm_set})
    side = halve_until(sizes.state_side, lambda s: CHRONOMETER_PIPELINES * pipeline_bytes(
        sizes.model_copy(update={"state_side": s})) <= budget, 512)
    return sizes.model_copy(update={"state_side": side})
