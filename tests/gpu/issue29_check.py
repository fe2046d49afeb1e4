"""One H200 run for issue 29 (not a test: a script that checks, times and prints): the timer's
measured SM clock against NVML's on an SIMT kernel (both should read ~1 980 MHz) and under dense
tensor-core load (cuBLAS FP16, where they part), its noise, stopping rule and throttle flags; and lab
04's paired ablation three times, fresh each time, with its ranks and intervals.

    python3 tests/gpu/issue29_check.py   # from the repo root, on a GPU; prints JSON lines and a table
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


def show(what: str, timing, flops: float | None = None, peak_at=None) -> dict:
    row = {"what": what, "median_ms": timing.median_seconds * 1e3, "repeats": timing.repeats,
           "noise": timing.relative_noise, "stopped_by": timing.stopped_by, "ran_mhz": timing.sm_clock_ran_mhz,
           "nvml_mhz": timing.sm_clock_mhz, "throttled": timing.throttled_repeats, "reasons": timing.throttle_reasons}
    if flops:
        row["tflops"] = flops / timing.median_seconds / 1e12
        if peak_at:
            for name, clock in (("of_peak_ran", timing.sm_clock_ran_mhz), ("of_peak_nvml", timing.sm_clock_mhz)):
                row[name] = row["tflops"] * 1e3 / peak_at(clock) if clock else None
    print(json.dumps(row), flush=True)
    return row


def timer_checks() -> None:
    from labkit.gpu import cuda
    from labkit.gpu.device import fp32_peak_gflops, read_device_facts
    from labkit.gpu.timing import time_gpu, time_interleaved
    from labkit.kernels import roofline_kernels as rk
    from labkit.labs import ceilings
    from labkit.labs.base import Bench
    from labkit.models.tensor_cores import tensor_peak_gflops

    facts = read_device_facts()
    bench = Bench(facts, time_gpu, time_interleaved, Path(tempfile.mkdtemp()), lambda step: None)
    copy = ceilings.measure(bench)
    show(f"copy ceiling {copy.gbps:.0f} GB/s", copy.timing)
    blocks, threads, trips = facts.sm_count * 8, 256, 1024
    out = cuda.device_array(blocks * threads, dtype=np.float32)
    fma = time_gpu(lambda: rk.fma_peak_f32[blocks, threads](out, trips, np.float32(0.999), np.float32(0.001)),
                   warmup=3, repeats=20)
    show("fp32 fma chains", fma, rk.fma_peak_flops(blocks * threads, trips),
         lambda mhz: fp32_peak_gflops(facts.sm_count, facts.compute_capability, mhz))
    short = time_gpu(lambda: rk.fma_peak_f32[facts.sm_count, 32](out, 4, np.float32(0.999), np.float32(0.001)),
                     warmup=3, repeats=50)
    show("a 1-warp-per-SM kernel of a few microseconds", short)
    import cupy

    from labkit.kernels import gemm_cublas

    n = 8192
    rng = cupy.random.default_rng(11)
    a = rng.random((n, n), dtype=cupy.float32).astype(cupy.float16)
    b = rng.random((n, n), dtype=cupy.float32).astype(cupy.float16)
    c = cupy.empty((n, n), dtype=cupy.float16)
    for _ in range(2):
        gemm = time_gpu(lambda: gemm_cublas.gemm(a, b, c, "fp16"), warmup=5, repeats=20)
        show("cuBLAS FP16 8192^3", gemm, 2.0 * n**3,
             lambda mhz: tensor_peak_gflops(facts.sm_count, facts.compute_capability, "fp16", mhz))


def ablations(runs: int) -> None:
    from labkit.labs.lab04 import LAB
    from labkit.labs.lab04.program import chronometer
    from labkit.labs.lab04.results import Lab04Results

    for run in range(runs):
        start = time.perf_counter()
        totals, rows = chronometer(LAB.gpu_sizes, seed=4 + run)
        results = Lab04Results.model_construct(ablation=rows, totals=totals)
        ranks = results.ranks()
        print(json.dumps({"ablation_run": run, "seconds": round(time.perf_counter() - start, 1),
                          "faulty_ms": totals.faulty.median_seconds * 1e3,
                          "repaired_ms": totals.repaired.median_seconds * 1e3,
                          "ranking": [f"{ranks[r.fault]}:{r.fault}" for r in sorted(rows, key=results.saved_seconds,
                                                                                      reverse=True)],
                          "saved_ms": {r.fault: [round(1e3 * v, 3) for v in (results.saved_range_seconds(r)[0],
                                                                              results.saved_seconds(r),
                                                                              results.saved_range_seconds(r)[1])]
                                       for r in rows}}), flush=True)


if __name__ == "__main__":
    timer_checks()
    ablations(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
