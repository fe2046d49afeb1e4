"""One H200 batch for issue 33's TMA steps (not a test: a script that checks, times and prints):
every TMA kernel of labkit.kernels.gemm_cuda checked against cuBLAS in its precision (chapter 6's
tolerance, labkit.kernels.gemm_accuracy, cuBLAS's result as the reference) on a square and a
non-square shape, then timed beside cuBLAS FP16 and BF16 (and the wgmma and mma.sync steps) at
4096^3 and 8192^3 by labkit.gpu.timing.time_gpu (median of >= 20, the SM clock measured while each ran).

A kernel that deadlocks (an mbarrier that never completes) is caught: each first launch is polled
for WATCHDOG_S seconds, and the script exits with status 3 naming it, so that the caller reruns it
with ``--skip NAME``.

    python3 tests/gpu/tma_gemm_check.py --out tma.json [--skip a,b] [--sizes 4096,8192]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

WATCHDOG_S = 10.0
CHECK_SHAPES = ((4096, 4096, 4096), (1536, 1280, 320))
REFERENCE_STEPS = ("hgemm_wgmma_128x256", "bgemm_mma_128x128")


def gemm_operands(m: int, n: int, k: int, precision: str, rng):
    """A (m x k) and B (k x n) drawn uniform in [-1, 1) by the CuPy generator ``rng`` (A first), in
    ``precision`` (FP16, or BF16 as its bits in uint16), Bᵀ contiguous for the kernels that read B
    K-major, and the function that reads a matrix of that precision back as FP32."""
    import cupy as cp

    from labkit.kernels import gemm_cublas

    a32 = rng.random((m, k), dtype=cp.float32) * 2 - 1
    b32 = rng.random((k, n), dtype=cp.float32) * 2 - 1
    if precision == "fp16":
        a, b = a32.astype(cp.float16), b32.astype(cp.float16)
        as32 = lambda x: x.astype(cp.float32)  # noqa: E731
    else:
        a, b = gemm_cublas.bf16_bits(a32, cp), gemm_cublas.bf16_bits(b32, cp)
        as32 = lambda x: gemm_cublas.from_bf16_bits(x, cp)  # noqa: E731
    return a, b, cp.ascontiguousarray(b.T), as32


def say(row: dict) -> None:
    print(json.dumps(row), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--skip", default="")
    parser.add_argument("--only", default="")
    parser.add_argument("--sizes", default="4096,8192")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    import cupy as cp

    from labkit.gpu.timing import time_gpu
    from labkit.kernels import gemm_accuracy, gemm_cublas, gemm_cuda

    skip = {s for s in args.skip.split(",") if s}
    names = [n for n, k in gemm_cuda.KERNELS.items() if k.module == "tma" and n not in skip]
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    results: dict = {"skipped": sorted(skip), "checks": [], "timings": [], "compile": {}}

    def save() -> None:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)

    start = time.monotonic()
    for name in names + list(REFERENCE_STEPS):
        f = gemm_cuda.function(name)
        results["compile"][name] = {"registers": int(f.num_regs), "local_bytes": int(f.local_size_bytes),
                                    "static_shared": int(f.shared_size_bytes)}
    say({"compiled_s": round(time.monotonic() - start, 2), "kernels": results["compile"]})
    try:
        from cuda.bindings import driver as cu

        for name in names:
            spec = gemm_cuda.KERNELS[name]
            if spec.cluster_m == 1:
                continue
            config = cu.CUlaunchConfig()
            config.gridDimX, config.gridDimY, config.gridDimZ = 132, 1, 1
            config.blockDimX, config.blockDimY, config.blockDimZ = spec.threads, 1, 1
            config.sharedMemBytes = spec.dynamic_shared_bytes
            err, clusters = cu.cuOccupancyMaxActiveClusters(cu.CUfunction(gemm_cuda.function(name).kernel.ptr), config)
            results.setdefault("max_active_clusters", {})[name] = [err.name, int(clusters)]
        say({"max_active_clusters": results.get("max_active_clusters")})
    except Exception as exc:  # informative only
        say({"max_active_clusters_error": repr(exc)})
    save()

    rng = cp.random.default_rng(33)

    def operands(m, n, k, precision):
        a, b, bt, as32 = gemm_operands(m, n, k, precision, rng)
        return a, b, bt, cp.empty((m, n), dtype=a.dtype), as32

    def first_launch(name, a, bt, c) -> None:
        gemm_cuda.launch(name, a, bt, c)
        done = cp.cuda.Event()
        done.record()
        waited = time.monotonic()
        while not done.done:
            if time.monotonic() - waited > WATCHDOG_S:
                say({"hang": name})
                results["hang"] = name
                save()
                sys.stdout.flush()
                os._exit(3)
            time.sleep(0.01)

    # ----- checks against cuBLAS -----
    for m, n, k in CHECK_SHAPES:
        for precision in ("fp16", "bf16"):
            a, b, bt, c, as32 = operands(m, n, k, precision)
            ref = cp.empty((m, n), dtype=a.dtype)
            gemm_cublas.gemm(a, b, ref, precision)
            reference = as32(ref)
            abs_product = cp.abs(as32(a)) @ cp.abs(as32(b))
            for name in names + list(REFERENCE_STEPS):
                spec = gemm_cuda.KERNELS[name]
                if spec.precision != precision:
                    continue
                try:
                    spec.tiles(m, n, k)
                except ValueError:
                    continue
                c.fill(cp.nan if precision == "fp16" else 0x7FC0)   # poisoned: NaN in FP16, a BF16 NaN
                operand_b = bt if name in gemm_cuda.TAKES_B_TRANSPOSED else b
                try:
                    first_launch(name, a, operand_b, c)
                    cp.cuda.Device().synchronize()
                    agree = gemm_accuracy.agreement(as32(c), reference, abs_product, k, precision, xp=cp)
                    row = {"check": name, "shape": [m, n, k], "passed": agree.passed,
                           "worst_ratio": agree.worst_ratio, "max_abs_error": agree.max_abs_error,
                           "rel_frobenius": agree.relative_frobenius_error, "nonfinite": agree.nonfinite}
                except Exception as exc:
                    row = {"check": name, "shape": [m, n, k], "passed": False, "error": repr(exc)[:2000]}
                results["checks"].append(row)
                say(row)
                save()
            del a, b, bt, c, ref, reference, abs_product
            cp.get_default_memory_pool().free_all_blocks()

    passed = {r["check"] for r in results["checks"] if r["passed"]}
    failed = {r["check"] for r in results["checks"] if not r["passed"]}
    good = [n for n in names + list(REFERENCE_STEPS) if n in passed and n not in failed]

    # ----- timings -----
    for side in [int(s) for s in args.sizes.split(",") if s]:
        flops = 2.0 * side**3
        for precision in ("fp16", "bf16"):
            a, b, bt, c, _ = operands(side, side, side, precision)
            items = [("cublas", lambda: gemm_cublas.gemm(a, b, c, precision))]
            for name in good:
                if gemm_cuda.KERNELS[name].precision == precision:
                    operand_b = bt if name in gemm_cuda.TAKES_B_TRANSPOSED else b
                    items.append((name, lambda name=name, operand_b=operand_b: gemm_cuda.launch(name, a, operand_b, c)))
            items.append(("cublas_again", items[0][1]))
            for what, fn in items:
                timing = time_gpu(fn, warmup=5, repeats=args.repeats)
                row = {"time": what, "precision": precision, "side": side,
                       "median_ms": timing.median_seconds * 1e3, "min_ms": timing.min_seconds * 1e3,
                       "max_ms": timing.max_seconds * 1e3, "repeats": timing.repeats,
                       "tflops": flops / timing.median_seconds / 1e12, "ran_mhz": timing.sm_clock_ran_mhz,
                       "nvml_mhz": timing.sm_clock_mhz, "noise": timing.relative_noise}
                results["timings"].append(row)
                say(row)
                save()
            del a, b, bt, c
            cp.get_default_memory_pool().free_all_blocks()

    # ----- the table: each kernel against the mean of the two cuBLAS timings of its block -----
    table = []
    for side in {r["side"] for r in results["timings"]}:
        for precision in ("fp16", "bf16"):
            rows = [r for r in results["timings"] if r["side"] == side and r["precision"] == precision]
            ref = [r["tflops"] for r in rows if r["time"].startswith("cublas")]
            if not ref:
                continue
            cublas = sum(ref) / len(ref)
            for r in rows:
                if not r["time"].startswith("cublas"):
                    table.append({"kernel": r["time"], "side": side, "tflops": round(r["tflops"], 1),
                                  "cublas_tflops": round(cublas, 1), "ratio": round(r["tflops"] / cublas, 3),
                                  "ran_mhz": r["ran_mhz"]})
    results["table"] = sorted(table, key=lambda r: (r["side"], r["kernel"]))
    save()
    for r in results["table"]:
        print(f"{r['side']:>5} {r['kernel']:<36} {r['tflops']:>7.1f} TFLOP/s  cuBLAS {r['cublas_tflops']:>7.1f}"
              f"  ratio {r['ratio']:.3f}  at {r['ran_mhz']} MHz", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
