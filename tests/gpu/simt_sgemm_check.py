"""One H200 batch for issue 33's SIMT bar (not a test: a script that checks, times and records):
the warp-tiled FP32 kernel of labkit.kernels.gemm_cuda (``sgemm_warptile``) and a few other
instantiations of its template (CANDIDATES: lane grid, slice of K, thread tile, block tile), each
checked against NumPy at 512^3 and on a non-square shape (chapter 6's FP32 tolerance,
labkit.kernels.gemm_accuracy), then timed beside cuBLAS SGEMM and step 4 (``sgemm_pipelined``) at
4096^3 and 8192^3 by labkit.gpu.timing.time_gpu (CUDA events, warm-up 3, at least 20 repeats, median,
min and max, the SM clock measured while each ran), cuBLAS timed first and last at each size; each
kernel's ratio is to the mean of those two cuBLAS timings. Registers and local memory (spills) as
the driver reports them. JSON out.

    python3 tests/gpu/simt_sgemm_check.py --out simt_sgemm.json [--only registered] [--names a,b]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

CHECK_SHAPES = ((512, 512, 512), (768, 512, 272))
SIZES = (4096, 8192)
#: Exploration only: instantiations of the sgemm_warptile template beside the registered one,
#: name -> (BM, BN, BK, WARPS_M, WARPS_N, TM, TN, LN, PREFETCH, STAGES, min blocks per SM).
#: ``ln16``: step 4's lane grid (2 x 16 lanes, a warp tile of 16 x 128), ``ln8`` 4 x 8 lanes;
#: ``_pf``: the fragments of the next row read while this one is multiplied; ``as_..._sS``: S
#: shared buffers filled by cp.async (STAGES 0: step 4's staging through registers). The records
#: (tests/gpu/recorded/nvidia-h200/simt_sgemm*.json) were taken with subsets of these, in two runs;
#: their candidate ``wt_8x16_128x256`` is the kernel now registered as ``sgemm_warptile_128x256``
#: (same template arguments and launch bounds, the same SASS from nvcc 13.0).
CANDIDATES = {
    "wt_ln16_bk8": (128, 128, 8, 8, 1, 8, 8, 16, 0, 0, 2),
    "wt_ln16_bk8_pf": (128, 128, 8, 8, 1, 8, 8, 16, 1, 0, 2),
    "wt_ln4_bk8": (128, 128, 8, 2, 4, 8, 8, 4, 0, 0, 2),
    "wt_ln8_bk8_pf": (128, 128, 8, 4, 2, 8, 8, 8, 1, 0, 2),
    "wt_ln4_bk8_pf": (128, 128, 8, 2, 4, 8, 8, 4, 1, 0, 2),
    "wt_ln8_bk16": (128, 128, 16, 4, 2, 8, 8, 8, 0, 0, 2),
    "wt_ln8_bk16_1blk": (128, 128, 16, 4, 2, 8, 8, 8, 0, 0, 1),
    "wt_ln8_bk16_pf_1blk": (128, 128, 16, 4, 2, 8, 8, 8, 1, 0, 1),
    "wt_8x16_128thr": (128, 128, 8, 4, 1, 8, 16, 8, 0, 0, 2),
    "wt_8x16_128thr_pf": (128, 128, 8, 4, 1, 8, 16, 8, 1, 0, 2),
    "wt_8x16_128x256_pf": (128, 256, 8, 4, 2, 8, 16, 8, 1, 0, 1),
    "wt_16x8_256x128": (256, 128, 8, 2, 4, 16, 8, 4, 0, 0, 1),
    "as_ln16_s2_bk8": (128, 128, 8, 8, 1, 8, 8, 16, 0, 2, 2),
    "as_ln16_s3_bk8": (128, 128, 8, 8, 1, 8, 8, 16, 0, 3, 2),
    "as_ln16_s4_bk8": (128, 128, 8, 8, 1, 8, 8, 16, 0, 4, 2),
    "as_ln16_s5_bk8": (128, 128, 8, 8, 1, 8, 8, 16, 0, 5, 2),
    "as_ln8_s4_bk8": (128, 128, 8, 4, 2, 8, 8, 8, 0, 4, 2),
    "as_ln4_s4_bk8": (128, 128, 8, 2, 4, 8, 8, 4, 0, 4, 2),
    "as_ln16_s2_bk16": (128, 128, 16, 8, 1, 8, 8, 16, 0, 2, 2),
    "as_ln8_s3_bk8": (128, 128, 8, 4, 2, 8, 8, 8, 0, 3, 2),
    "as_ln8_s2_bk16": (128, 128, 16, 4, 2, 8, 8, 8, 0, 2, 2),
    "as_ln16_s3_bk8_pf": (128, 128, 8, 8, 1, 8, 8, 16, 1, 3, 2),
    "as_8x16_128x256_s3": (128, 256, 8, 4, 2, 8, 16, 8, 0, 3, 1),
    "as_8x16_128x256_s2": (128, 256, 8, 4, 2, 8, 16, 8, 0, 2, 1),
}


def candidate_source(name: str, p: tuple[int, ...]) -> str:
    bm, bn, bk, wm, wn, tm, tn, ln, prefetch, stages, blocks = p
    return (f'extern "C" __global__ void __launch_bounds__({32 * wm * wn}, {blocks})\n'
            f"{name}(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,"
            f" int M, int N, int K)\n"
            f"{{ sgemm_warptile<{bm}, {bn}, {bk}, {wm}, {wn}, {tm}, {tn}, {ln}, {'true' if prefetch else 'false'}, {stages}>"
            f"(A, B, C, M, N, K); }}\n")


def say(row: dict) -> None:
    print(json.dumps(row), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--only", choices=("all", "registered"), default="all",
                        help="registered: the KERNELS entries only (a second run of the chosen kernel)")
    parser.add_argument("--names", default="", help="comma-separated: time only these kernels (and cuBLAS)")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    import cupy as cp
    import numpy as np

    from labkit.gpu.device import read_device_facts
    from labkit.gpu.timing import time_gpu
    from labkit.kernels import gemm_accuracy, gemm_cublas, gemm_cuda
    from labkit.records.files import git_commit

    facts = read_device_facts()
    results: dict = {"git_commit": git_commit(Path(__file__).resolve().parents[2]), "gpu": facts.name,
                     "sm_count": facts.sm_count, "candidates": {} if args.only == "registered" else CANDIDATES,
                     "compile": {}, "checks": [], "timings": []}

    def save() -> None:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)

    # ----- the kernels: the registered SIMT ones, and the candidates in one module of their own -----
    kernels: dict = {}   # name -> (function, tile_m, tile_n, k_step, threads)
    for name, spec in gemm_cuda.KERNELS.items():
        if spec.module == "simt":
            kernels[name] = (gemm_cuda.function(name), spec.tile_m, spec.tile_n, spec.k_step, spec.threads)
    if args.only == "all":
        start = time.monotonic()
        text = gemm_cuda.SIMT_SOURCE + "".join(candidate_source(n, p) for n, p in CANDIDATES.items())
        module = cp.RawModule(code=text, options=gemm_cuda.options("simt"))
        for name, (bm, bn, bk, wm, wn, *_rest) in CANDIDATES.items():
            kernels[name] = (module.get_function(name), bm, bn, bk, 32 * wm * wn)
        say({"candidates_compiled_s": round(time.monotonic() - start, 2)})
    for name, (f, *_rest) in kernels.items():
        results["compile"][name] = {"registers": int(f.num_regs), "local_bytes": int(f.local_size_bytes),
                                    "static_shared": int(f.shared_size_bytes)}
    say({"compile": results["compile"]})
    save()

    def launch(name, a, b, c) -> None:
        f, bm, bn, bk, threads = kernels[name]
        m, k = a.shape
        n = b.shape[1]
        if m % bm or n % bn or k % bk:
            raise ValueError(f"{name}: {m} x {n} x {k} is not a multiple of {bm} x {bn} x {bk}")
        f(((m // bm) * (n // bn),), (threads,), (a, b, c, np.int32(m), np.int32(n), np.int32(k)))

    # ----- checks against NumPy (FP64 product of the same FP32 inputs) -----
    rng = np.random.default_rng(33)
    for m, n, k in CHECK_SHAPES:
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        reference = a.astype(np.float64) @ b.astype(np.float64)
        abs_product = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
        da, db = cp.asarray(a), cp.asarray(b)
        for name, (_f, bm, bn, bk, _t) in kernels.items():
            if m % bm or n % bn or k % bk:
                continue
            c = cp.full((m, n), cp.nan, dtype=cp.float32)
            try:
                launch(name, da, db, c)
                agree = gemm_accuracy.agreement(cp.asnumpy(c), reference, abs_product, k, "fp32")
                row = {"check": name, "shape": [m, n, k], "passed": agree.passed, "worst_ratio": agree.worst_ratio,
                       "max_abs_error": agree.max_abs_error, "nonfinite": agree.nonfinite}
            except Exception as exc:
                row = {"check": name, "shape": [m, n, k], "passed": False, "error": repr(exc)[:2000]}
            results["checks"].append(row)
            say(row)
        save()
    failed = {r["check"] for r in results["checks"] if not r["passed"]}
    good = [name for name in kernels if name not in failed and name != "sgemm_regtile"]
    if args.names:
        good = [name for name in good if name in args.names.split(",")]

    # ----- timings: cuBLAS first and last at each size -----
    for side in SIZES:
        flops = 2.0 * side**3
        a = cp.random.default_rng(side).random((side, side), dtype=cp.float32) * 2 - 1
        b = cp.random.default_rng(side + 1).random((side, side), dtype=cp.float32) * 2 - 1
        c = cp.empty((side, side), dtype=cp.float32)
        items = [("cublas", lambda: gemm_cublas.gemm(a, b, c, "fp32"))]
        items += [(name, lambda name=name: launch(name, a, b, c)) for name in good]
        items.append(("cublas_again", items[0][1]))
        for what, fn in items:
            timing = time_gpu(fn, warmup=3, repeats=args.repeats)
            row = {"time": what, "side": side, "median_ms": timing.median_seconds * 1e3,
                   "min_ms": timing.min_seconds * 1e3, "max_ms": timing.max_seconds * 1e3,
                   "repeats": timing.repeats, "tflops": flops / timing.median_seconds / 1e12,
                   "ran_mhz": timing.sm_clock_ran_mhz, "nvml_mhz": timing.sm_clock_mhz,
                   "noise": timing.relative_noise, "throttled_repeats": timing.throttled_repeats,
                   "throttle_reasons": timing.throttle_reasons}
            results["timings"].append(row)
            say(row)
            save()
        del a, b, c
        cp.get_default_memory_pool().free_all_blocks()

    # ----- the table: each kernel against the mean of its size's two cuBLAS timings -----
    table = []
    for side in SIZES:
        rows = [r for r in results["timings"] if r["side"] == side]
        ref = [r["tflops"] for r in rows if r["time"].startswith("cublas")]
        cublas = sum(ref) / len(ref)
        for r in rows:
            if not r["time"].startswith("cublas"):
                table.append({"kernel": r["time"], "side": side, "tflops": round(r["tflops"], 2),
                              "cublas_tflops": round(cublas, 2), "cublas_spread": [round(x, 2) for x in ref],
                              "ratio": round(r["tflops"] / cublas, 4),
                              "ratio_min_max": [round(flops_ratio, 4) for flops_ratio in
                                                (r["median_ms"] / r["max_ms"] * r["tflops"] / cublas,
                                                 r["median_ms"] / r["min_ms"] * r["tflops"] / cublas)],
                              "ran_mhz": r["ran_mhz"], **results["compile"][r["time"]]})
    results["table"] = table
    save()
    for r in table:
        print(f"{r['side']:>5} {r['kernel']:<20} {r['tflops']:>6.2f} TFLOP/s  cuBLAS {r['cublas_tflops']:>6.2f}"
              f" {r['cublas_spread']}  ratio {r['ratio']:.3f}  at {r['ran_mhz']} MHz  {r['registers']} regs"
              f"  {r['local_bytes']} B local", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
