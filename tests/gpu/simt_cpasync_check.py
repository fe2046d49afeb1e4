"""One H200 batch for issue 33's SIMT bar, multistage cp.async kernels (not a test: a script that
checks, times and records): the registered ``sgemm_cpasync_*`` kernels of labkit.kernels.gemm_cuda
and other instantiations of their template ``sgemm_cpasync`` (CANDIDATES: block tile, slice of K,
warps, thread tile, lane grid, stages, A's layout in shared memory), with step 4
(``sgemm_pipelined``) as the baseline; each checked against NumPy at 512^3 and on a non-square shape
(chapter 6's FP32 tolerance, labkit.kernels.gemm_accuracy), then timed call for call beside cuBLAS
SGEMM (labkit.gpu.timing.time_interleaved, warm-up 3, 20 repeats, median) at 4096^3 and 8192^3; each
ratio is to the cuBLAS timing of the same interleaved pair. Registers and local memory (spills) as
the driver reports them. JSON out.

    python3 tests/gpu/simt_cpasync_check.py --out simt_cpasync.json [--names a,b] [--no-candidates]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

CHECK_SHAPES = ((512, 512, 512), (768, 512, 256))
SIZES = (4096, 8192)
#: Exploration only: name -> (BM, BN, BK, WARPS_M, WARPS_N, TM, TN, LM, STAGES, AROW, min blocks per SM[, PF]);
#: PF (default 1, k-major A only): the fragments of row k + 1 read while row k is multiplied.
CANDIDATES = {
    "cp_256x128_s2": (256, 128, 8, 4, 2, 16, 8, 4, 2, 0, 1),
    "cp_256x128_s4": (256, 128, 8, 4, 2, 16, 8, 4, 4, 0, 1),
    "cp_256x128_bk16_s3": (256, 128, 16, 4, 2, 16, 8, 4, 3, 0, 1),
    "cp_256x128_8x16_s3": (256, 128, 8, 4, 2, 8, 16, 8, 3, 0, 1),
    "cp_256x128_8x16_lm4_s3": (256, 128, 8, 8, 1, 8, 16, 4, 3, 0, 1),
    "cp_256x128_8x16_s4": (256, 128, 8, 4, 2, 8, 16, 8, 4, 0, 1),
    "cp_256x128_8x16_lm4_s4": (256, 128, 8, 8, 1, 8, 16, 4, 4, 0, 1),
    "cp_128x256_8x16_s3": (128, 256, 8, 2, 4, 8, 16, 8, 3, 0, 1),
    "cp_128x256_s4": (128, 256, 8, 2, 4, 16, 8, 4, 4, 0, 1),
    "cp_256x128_lm8_s3": (256, 128, 8, 2, 4, 16, 8, 8, 3, 0, 1),
    "cp_128x256_s3": (128, 256, 8, 2, 4, 16, 8, 4, 3, 0, 1),
    "cp_128x128_s3": (128, 128, 8, 2, 2, 16, 8, 4, 3, 0, 2),
    "cp_128x128_8x8_s3": (128, 128, 8, 4, 2, 8, 8, 4, 3, 0, 2),
    "cp_128x128_8x8_ln16_s3": (128, 128, 8, 8, 1, 8, 8, 2, 3, 0, 2),
    "cp_256x128_s3_nopf": (256, 128, 8, 4, 2, 16, 8, 4, 3, 0, 1, 0),
    "cp_256x128_bk16_s3_nopf": (256, 128, 16, 4, 2, 16, 8, 4, 3, 0, 1, 0),
    "cp_128x256_8x16_s3_nopf": (128, 256, 8, 2, 4, 8, 16, 8, 3, 0, 1, 0),
    "cp_128x256_8x16_bk16_s3": (128, 256, 16, 2, 4, 8, 16, 8, 3, 0, 1),
    "cp_128x256_8x16_s2": (128, 256, 8, 2, 4, 8, 16, 8, 2, 0, 1),
    "cp_128x128_s4": (128, 128, 8, 2, 2, 16, 8, 4, 4, 0, 2),
    "cp_128x128_8x8_ln16_s2": (128, 128, 8, 8, 1, 8, 8, 2, 2, 0, 2),
    "cp_128x128_8x8_ln16_s3_nopf": (128, 128, 8, 8, 1, 8, 8, 2, 3, 0, 2, 0),
    "cp_128x128_8x8_s3_nopf": (128, 128, 8, 4, 2, 8, 8, 4, 3, 0, 2, 0),
    "cpr_256x128_s3": (256, 128, 8, 4, 2, 16, 8, 4, 3, 1, 1),
    "cpr_256x128_bk16_s3": (256, 128, 16, 4, 2, 16, 8, 4, 3, 1, 1),
    "cpr_256x128_s4": (256, 128, 8, 4, 2, 16, 8, 4, 4, 1, 1),
    "cpr_256x128_8x16_s3": (256, 128, 8, 4, 2, 8, 16, 8, 3, 1, 1),
    "cpr_128x128_s3": (128, 128, 8, 2, 2, 16, 8, 4, 3, 1, 2),
}


def shared_bytes(p: tuple[int, ...]) -> int:
    """The template's dynamic shared memory (gemm_cuda.cpasync_shared_bytes)."""
    from labkit.kernels.gemm_cuda import cpasync_shared_bytes

    bm, bn, bk, _wm, _wn, _tm, _tn, _lm, stages, arow, _blocks, *_pf = p
    return cpasync_shared_bytes(bm, bn, bk, stages, bool(arow))


def candidate_source(name: str, p: tuple[int, ...]) -> str:
    bm, bn, bk, wm, wn, tm, tn, lm, stages, arow, blocks, *pf = p
    prefetch = pf[0] if pf else 1
    return (f'extern "C" __global__ void __launch_bounds__({32 * wm * wn}, {blocks})\n'
            f"{name}(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,"
            f" int M, int N, int K)\n"
            f"{{ sgemm_cpasync<{bm}, {bn}, {bk}, {wm}, {wn}, {tm}, {tn}, {lm}, {stages}, {'true' if arow else 'false'}, {'true' if prefetch else 'false'}>"
            f"(A, B, C, M, N, K); }}\n")


def say(row: dict) -> None:
    print(json.dumps(row), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--names", default="", help="comma-separated: time only these kernels")
    parser.add_argument("--no-candidates", action="store_true", help="the registered kernels only")
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    import cupy as cp
    import numpy as np

    from labkit.gpu.device import read_device_facts
    from labkit.gpu.timing import time_interleaved
    from labkit.kernels import gemm_accuracy, gemm_cublas, gemm_cuda
    from labkit.records.files import git_commit

    facts = read_device_facts()
    candidates = {} if args.no_candidates else CANDIDATES
    results: dict = {"git_commit": git_commit(Path(__file__).resolve().parents[2]), "gpu": facts.name,
                     "sm_count": facts.sm_count, "candidates": candidates, "compile": {}, "checks": [],
                     "timings": []}

    def save() -> None:
        with open(args.out, "w") as handle:
            json.dump(results, handle, indent=1)

    # name -> (function, tile_m, tile_n, k_step, threads, dynamic shared bytes)
    kernels: dict = {}
    for name, spec in gemm_cuda.KERNELS.items():
        if spec.module == "simt" and (name == "sgemm_pipelined" or name.startswith("sgemm_cpasync")):
            kernels[name] = (gemm_cuda.function(name), spec.tile_m, spec.tile_n, spec.k_step, spec.threads,
                             spec.dynamic_shared_bytes)
    if candidates:
        start = time.monotonic()
        text = gemm_cuda.SIMT_SOURCE + "".join(candidate_source(n, p) for n, p in candidates.items())
        module = cp.RawModule(code=text, options=gemm_cuda.options("simt"))
        for name, p in candidates.items():
            f = module.get_function(name)
            dyn = shared_bytes(p)
            if dyn > 48 * 1024:
                f.max_dynamic_shared_size_bytes = dyn
            kernels[name] = (f, p[0], p[1], p[2], 32 * p[3] * p[4], dyn)
        say({"candidates_compiled_s": round(time.monotonic() - start, 2)})
    for name, (f, *_rest) in kernels.items():
        results["compile"][name] = {"registers": int(f.num_regs), "local_bytes": int(f.local_size_bytes),
                                    "static_shared": int(f.shared_size_bytes), "dynamic_shared": kernels[name][5]}
    say({"compile": results["compile"]})
    save()

    def launch(name, a, b, c) -> None:
        f, bm, bn, bk, threads, dyn = kernels[name]
        m, k = a.shape
        n = b.shape[1]
        if m % bm or n % bn or k % bk:
            raise ValueError(f"{name}: {m} x {n} x {k} is not a multiple of {bm} x {bn} x {bk}")
        f(((m // bm) * (n // bn),), (threads,), (a, b, c, np.int32(m), np.int32(n), np.int32(k)), shared_mem=dyn)

    rng = np.random.default_rng(33)
    for m, n, k in CHECK_SHAPES:
        a = rng.uniform(-1, 1, (m, k)).astype(np.float32)
        b = rng.uniform(-1, 1, (k, n)).astype(np.float32)
        reference = a.astype(np.float64) @ b.astype(np.float64)
        abs_product = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
        da, db = cp.asarray(a), cp.asarray(b)
        for name, (_f, bm, bn, bk, *_r) in kernels.items():
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
    good = [name for name in kernels if name not in failed]
    if args.names:
        good = [name for name in good if name in args.names.split(",")]

    table = []
    for side in SIZES:
        flops = 2.0 * side**3
        a = cp.random.default_rng(side).random((side, side), dtype=cp.float32) * 2 - 1
        b = cp.random.default_rng(side + 1).random((side, side), dtype=cp.float32) * 2 - 1
        c = cp.empty((side, side), dtype=cp.float32)
        c_ref = cp.empty((side, side), dtype=cp.float32)
        gemm_cublas.gemm(a, b, c_ref, "fp32")
        for name in good:
            try:
                ours, theirs = time_interleaved((lambda name=name: launch(name, a, b, c),
                                                 lambda: gemm_cublas.gemm(a, b, c_ref, "fp32")),
                                                warmup=3, repeats=args.repeats)
            except Exception as exc:
                row = {"time": name, "side": side, "error": repr(exc)[:2000]}
                results["timings"].append(row)
                say(row)
                continue
            scale = float(cp.abs(c_ref).max())
            differs = float(cp.abs(c - c_ref).max()) / scale
            for what, timing in ((name, ours), ("cublas", theirs)):
                row = {"time": what, "pair": name, "side": side, "median_ms": timing.median_seconds * 1e3,
                       "min_ms": timing.min_seconds * 1e3, "max_ms": timing.max_seconds * 1e3,
                       "repeats": timing.repeats, "tflops": flops / timing.median_seconds / 1e12,
                       "ran_mhz": timing.sm_clock_ran_mhz, "nvml_mhz": timing.sm_clock_mhz,
                       "noise": timing.relative_noise, "throttled_repeats": timing.throttled_repeats}
                results["timings"].append(row)
                say(row)
            table.append({"kernel": name, "side": side, "tflops": round(flops / ours.median_seconds / 1e12, 2),
                          "cublas_tflops": round(flops / theirs.median_seconds / 1e12, 2),
                          "ratio": round(theirs.median_seconds / ours.median_seconds, 4),
                          "max_rel_diff_vs_cublas": differs, "ran_mhz": ours.sm_clock_ran_mhz,
                          "cublas_ran_mhz": theirs.sm_clock_ran_mhz, **results["compile"][name]})
            results["table"] = table
            save()
        del a, b, c, c_ref
        cp.get_default_memory_pool().free_all_blocks()
    for r in table:
        print(f"{r['side']:>5} {r['kernel']:<24} {r['tflops']:>6.2f} TFLOP/s  cuBLAS {r['cublas_tflops']:>6.2f}"
              f"  ratio {r['ratio']:.3f}  at {r['ran_mhz']}/{r['cublas_ran_mhz']} MHz  {r['registers']} regs"
              f"  {r['local_bytes']} B local", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
