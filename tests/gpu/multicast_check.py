"""Why the TMA kernel in clusters of two CTAs sharing B by multicast runs slower than its persistent
twin (issue 33; chapter 6, step 5g's paragraph): not a test, a script that checks, times and prints.

Each ``_cluster`` kernel of labkit.kernels.gemm_cuda beside its ``_persistent`` twin: how many
clusters can be resident (cuOccupancyMaxActiveClusters), both checked against cuBLAS FP16, then
timed call for call (labkit.gpu.timing.time_interleaved) at 4096^3 and 8192^3. ``--ncu`` only launches
each kernel once at 4096^3, for Nsight Compute. Recorded on the H200 (2026-12-03) in
tests/gpu/recorded/nvidia-h200/multicast/ by, from the repo root (after the wheel install):

    OUT=folder python3 tests/gpu/multicast_check.py        # writes folder/multicast.json
    ncu --clock-control none --kernel-name regex:"tma_ws_(256x128|128x256)_(persistent|cluster)" \\
        --section SpeedOfLight --section LaunchStats --section Occupancy --section WarpStateStats \\
        --section SchedulerStats --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis \\
        --metrics smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,\\
    smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,sm__cycles_active.avg,\\
    sm__cycles_elapsed.avg,smsp__cycles_active.avg,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed,\\
    lts__t_sectors_srcunit_tex.sum,dram__bytes_read.sum,lts__t_sector_hit_rate.pct \\
        --page details --csv python3 tests/gpu/multicast_check.py --ncu > folder/ncu_details.csv
"""

from __future__ import annotations

import json
import os
import sys

PAIRS = (("hgemm_tma_ws_256x128_persistent", "hgemm_tma_ws_256x128_cluster"),
         ("hgemm_tma_ws_128x256_persistent", "hgemm_tma_ws_128x256_cluster"))


def max_active_clusters(name: str, sm_count: int) -> list:
    from cuda.bindings import driver as cu

    from labkit.kernels import gemm_cuda

    spec = gemm_cuda.KERNELS[name]
    config = cu.CUlaunchConfig()
    config.gridDimX, config.gridDimY, config.gridDimZ = sm_count, 1, 1
    config.blockDimX, config.blockDimY, config.blockDimZ = spec.threads, 1, 1
    config.sharedMemBytes = spec.dynamic_shared_bytes
    err, clusters = cu.cuOccupancyMaxActiveClusters(cu.CUfunction(gemm_cuda.function(name).kernel.ptr), config)
    return [err.name, int(clusters)]


def main() -> int:
    import cupy as cp

    from labkit.gpu.device import read_device_facts
    from labkit.gpu.timing import time_interleaved
    from labkit.kernels import gemm_cublas, gemm_cuda

    profiling = "--ncu" in sys.argv
    out: dict = {}
    if not profiling:
        sm_count = read_device_facts().sm_count
        out["max_active_clusters"] = {cluster: max_active_clusters(cluster, sm_count) for _, cluster in PAIRS}
        out["grid"] = {cluster: list(gemm_cuda.KERNELS[cluster].grid(4096, 4096, 4096, sm_count)) for _, cluster in PAIRS}
        print(out, flush=True)
    for side in (4096,) if profiling else (4096, 8192):
        rng = cp.random.default_rng(1)
        a = (rng.random((side, side), dtype=cp.float32) * 2 - 1).astype(cp.float16)
        b = (rng.random((side, side), dtype=cp.float32) * 2 - 1).astype(cp.float16)
        bt = cp.ascontiguousarray(b.T)
        reference = cp.empty((side, side), cp.float16)
        gemm_cublas.gemm(a, b, reference, "fp16")
        for pair in PAIRS:
            cs = [cp.empty((side, side), cp.float16) for _ in pair]
            fns = [lambda name=name, c=c: gemm_cuda.launch(name, a, bt, c) for name, c in zip(pair, cs)]
            for fn in fns:
                fn()
            cp.cuda.Device().synchronize()
            errors = [float(cp.abs(c.astype(cp.float32) - reference.astype(cp.float32)).max()) for c in cs]
            if profiling:
                continue
            timings = time_interleaved(fns, warmup=3, repeats=30)
            row = {name: {"max_abs_err": e, "ms": t.median_seconds * 1e3, "tflops": 2 * side**3 / t.median_seconds / 1e12,
                          "clock": t.sm_clock_ran_mhz, "noise": t.relative_noise, "n": t.repeats}
                   for name, e, t in zip(pair, errors, timings)}
            out.setdefault("timings", {}).setdefault(str(side), {}).update(row)
            print(side, json.dumps(row), flush=True)
    if not profiling:
        with open(os.path.join(os.environ["OUT"], "multicast.json"), "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
