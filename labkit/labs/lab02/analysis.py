"""The access analyzer on lab 02's kernels: each launch traced in the simulator, scaled to its grid.

For each :class:`~labkit.labs.lab02.plan.Launch`, the kernel (a Numba kernel, or the simulated
twin of a CUDA C kernel, labkit.kernels.coalescing_twins) runs in Numba's CUDA simulator on the
launch's first blocks (plan.traced_grid) with the launch's own parameters (stride, offset,
iterations, block shape), its every element access recorded (labkit.simulator.trace); the
analyzer counts each warp-level access, and labkit.simulator.trace.scale_to_grid multiplies one
block's counts by the grid's blocks after checking that every traced block repeats the first
one moved in memory. The DRAM bytes of 1-D launches come from the same trace under the 64-byte
fetch model (labkit.models.access.fetched_bytes).

Runs in the simulator only. On a GPU machine the lab starts it as a separate process
(``python -m labkit.labs.lab02.analysis PLAN.json OUT.json``, NUMBA_ENABLE_CUDASIM=1), whose
workers trace the launches in parallel while the GPU measures.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import numpy as np

from labkit.labs.lab02.plan import DT, SENTINEL, Launch, sweep_elements, traced_grid
from labkit.labs.lab02.results import METRICS, Counts
from labkit.lifetime import process_pool
from labkit.models.access import NCU_METRICS, Op, Space
from labkit.simulator.trace import GridCounts, scale_to_grid, trace_launch

#: Each count of :class:`Counts` the analyzer predicts: (space, op, Totals field), through the ncu
#: metric it stands for (labkit.models.access.NCU_METRICS), and the shared instructions, which no counter
#: there holds.
_FIELDS = {
    **{name: NCU_METRICS[metric] for name, metric in METRICS.items() if metric in NCU_METRICS},
    "shared_ld_instructions": (Space.SHARED, Op.LOAD, "instructions"),
    "shared_st_instructions": (Space.SHARED, Op.STORE, "instructions"),
}


def counts_of(grid: GridCounts) -> Counts:
    """The record's Counts from scaled analyzer totals."""
    values = {name: float(getattr(grid.counts.of(space, op), field)) for name, (space, op, field) in _FIELDS.items()}
    dram = grid.dram_fetched_bytes
    return Counts(**values, dram_read_bytes=None if dram is None else float(dram))


def trace(launch: Launch):
    """Run the launch's first blocks in the simulator, recording its accesses (a KernelTrace).

    The buffers have the launch's full size (NumPy zeros: untouched pages cost no memory), so
    the addresses of the traced blocks, rows of a matrix or fields of a structure of arrays
    apart, are those of the real launch.
    """
    from labkit.kernels import coalescing, coalescing_twins as twins
    from labkit.kernels.coalescing_cuda import TILE

    grid = traced_grid(launch)
    block = launch.block[0]
    threads = launch.blocks * launch.block[0] * launch.block[1]
    if launch.step == "sweep":
        span = sweep_elements(launch) * launch.stride + launch.offset
        if launch.element_bytes == 16:
            return trace_launch(twins.strided_read_16, grid[0], block, np.zeros(span, twins.UINT4),
                                np.zeros(1, np.uint32), np.int64(launch.stride), np.int64(launch.offset),
                                np.uint32(SENTINEL))
        dtype = np.float32 if launch.element_bytes == 4 else np.float64
        return trace_launch(coalescing.strided_read, grid[0], block, np.zeros(span, dtype), np.zeros(1, dtype),
                            launch.stride, launch.offset, dtype(-1.0))
    if launch.step == "particles":
        dt = np.float32(DT)
        if launch.kernel == "drift_aos":
            return trace_launch(coalescing.drift_aos, grid[0], block, np.zeros((threads, 8), np.float32), dt)
        if launch.kernel == "drift_soa":
            return trace_launch(coalescing.drift_soa, grid[0], block, np.zeros((8, threads), np.float32), dt)
        if launch.kernel == "drift_aos_vector":
            return trace_launch(twins.drift_aos_vector, grid[0], block, np.zeros(2 * threads, twins.FLOAT4), dt)
        return trace_launch(twins.drift_soa_vector, grid[0], block, np.zeros(8 * threads, twins.FLOAT4), dt,
                            np.int32(4 * threads))
    if launch.step == "shared":
        return trace_launch(twins.TWINS[launch.kernel], grid[0], block, np.zeros(threads, np.uint32),
                            np.int32(launch.stride), np.int32(launch.iterations))
    n = launch.grid[0] * TILE
    return trace_launch(twins.TWINS[launch.kernel], grid, launch.block, np.zeros(n * n, np.float32),
                        np.zeros(n * n, np.float32), np.int32(n))


def predict(launch: Launch) -> Counts:
    """The analyzer's counts for the whole launch."""
    return counts_of(scale_to_grid(trace(launch), launch.blocks))


def predict_all(plan: list[Launch], workers: int = 1) -> dict[str, Counts]:
    """Every launch's predicted counts, by launch name; ``workers`` > 1 traces in parallel processes."""
    if workers <= 1:
        return {launch.name: predict(launch) for launch in plan}
    with process_pool(workers) as pool:
        return dict(zip([launch.name for launch in plan], pool.map(predict, plan, chunksize=1)))


def main(argv: list[str] | None = None) -> int:
    """``analysis PLAN.json OUT.json``: predictions for every launch of PLAN (run with NUMBA_ENABLE_CUDASIM=1)."""
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 2:
        print("usage: NUMBA_ENABLE_CUDASIM=1 python -m labkit.labs.lab02.analysis PLAN.json OUT.json", file=sys.stderr)
        return 2
    from labkit.gpu.backend import select_backend

    if select_backend() != "simulator":
        print("labkit.labs.lab02.analysis: set NUMBA_ENABLE_CUDASIM=1 (the analyzer traces kernels in the "
              "simulator)", file=sys.stderr)
        return 2
    plan = [Launch.from_dict(d) for d in json.loads(Path(argv[0]).read_text())]
    predictions = predict_all(plan, workers=min(len(plan), os.cpu_count() or 1))
    Path(argv[1]).write_text(json.dumps({name: counts.model_dump() for name, counts in predictions.items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
