"""One H200 batch for issue 33's Numba tensor-core kernel (not a test: a script that checks, times
and records): labkit.kernels.gemm_numba_mma compiled three ways (LTO with at most 128 registers, the
default; LTO unbounded; ``cuda.jit(lto=False)``, which numba-cuda 0.30.4 built with LTO all the same
on the H200: tests/gpu/numba_mma_lto_probe.py), each one's registers, local memory
and SASS (is the foreign function inlined: no CALL to it; are the accumulators in registers: no
local loads or stores in the K loop), each checked against NumPy (chapter 6's FP16 tolerance) at
512^3 and on a shape with a partial group of tile rows and an odd number of K slices, then timed
at 4096^3 and 8192^3 beside cuBLAS FP16 (before and after) and lab 06's CUDA C mma.sync step, by
labkit.gpu.timing.time_gpu (warm-up 3, at least 20 repeats, median and spread, the SM clock measured
on the GPU around each call).

    python3 tests/gpu/numba_mma_check.py --out DIR    (writes DIR/numba_mma.json and DIR/sass_*.txt)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

#: (name, min_blocks, lto): the builds compared; the first is the module's default. "no_lto" is
#: what was asked for, not what numba-cuda 0.30.4 did (its SASS is the first build's).
BUILDS = (("lto_128_registers", 2, None), ("lto_unbounded", 1, None), ("no_lto", 2, False))
CHECK_SHAPES = ((512, 512, 512), (1152, 1280, 352))
SIDES = (4096, 8192)
CUDA_C_STEP = "hgemm_mma_128x128"   # lab 06's step "mma"


def say(row: dict) -> None:
    print(json.dumps(row), flush=True)


def sass_of(kernel) -> str:
    """The kernel's SASS: numba-cuda's inspect_sass (nvdisasm), else cuobjdump on its cubin."""
    try:
        return next(iter(kernel.inspect_sass().values()))
    except Exception as exc:  # nvdisasm not found: fall back on the cubin
        library = next(iter(kernel.overloads.values())).library
        cubin = library.get_cubin()
        data = getattr(cubin, "code", cubin)
        with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as handle:
            handle.write(bytes(data))
        done = subprocess.run(["cuobjdump", "-sass", handle.name], capture_output=True, text=True)
        return f"// inspect_sass failed ({exc!r}); cuobjdump -sass:\n" + done.stdout + done.stderr


def opcodes(lines: list[str]) -> list[str]:
    ops = []
    for line in lines:
        m = re.match(r"\s*/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", line)
        if m:
            ops.append(m.group(1))
    return ops


def k_loop(sass: str) -> list[str]:
    """The SASS of the K loop: from the label that the first backward branch after the last HMMA
    jumps to (a label before the first HMMA) to that branch."""
    lines = sass.splitlines()
    hmma = [i for i, line in enumerate(lines) if "HMMA" in line]
    labels = {m.group(1): i for i, line in enumerate(lines) for m in [re.match(r"\s*(\.L_x_\d+):", line)] if m}
    for i in range(hmma[-1] if hmma else len(lines), len(lines)):
        m = re.search(r"BRA\s+`\((\.L_x_\d+)\)", lines[i])
        if m and labels.get(m.group(1), len(lines)) < hmma[0]:
            return lines[labels[m.group(1)]:i + 1]
    return []


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)

    import cupy as cp
    import numba_cuda
    from numba import cuda

    from labkit.gpu.timing import time_gpu
    from labkit.kernels import gemm_cublas, gemm_cuda
    from labkit.kernels import gemm_numba_mma as g

    results: dict = {"commit": os.environ.get("LABKIT_GIT_COMMIT"), "utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                     "device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
                     "numba_cuda": numba_cuda.__version__, "nvjitlink": cuda.cudadrv.driver._have_nvjitlink(),
                     "tile": {"bm": g.BM, "bn": g.BN, "bk": g.BK, "threads": g.THREADS, "warp_tile": [g.WARP_M, g.WARP_N],
                              "static_shared_bytes": g.SHARED_BYTES},
                     "builds": {}, "checks": [], "timings": []}
    out_json = os.path.join(args.out, "numba_mma.json")

    def save() -> None:
        with open(out_json, "w") as handle:
            json.dump(results, handle, indent=1)

    # ----- compile, resources, SASS; checks -----
    good = []
    for name, min_blocks, lto in BUILDS:
        row: dict = {"min_blocks": min_blocks, "lto": lto}
        try:
            start = time.monotonic()
            for m, n, k in CHECK_SHAPES:
                agree = g.check_against_numpy(m, n, k, min_blocks=min_blocks, lto=lto)
                check = {"build": name, "shape": [m, n, k], "passed": agree.passed, "worst_ratio": agree.worst_ratio,
                         "max_abs_error": agree.max_abs_error, "rel_frobenius": agree.relative_frobenius_error,
                         "nonfinite": agree.nonfinite}
                results["checks"].append(check)
                say(check)
            row["compile_and_check_s"] = round(time.monotonic() - start, 2)
            kernel = g.compiled(min_blocks, lto)
            row["registers"] = int(next(iter(kernel.get_regs_per_thread().values())))
            row["local_bytes"] = int(next(iter(kernel.get_local_mem_per_thread().values())))
            row["shared_bytes"] = int(next(iter(kernel.get_shared_mem_per_block().values())))
            sass = sass_of(kernel)
            loop = k_loop(sass)
            calls = [line.strip() for line in sass.splitlines() if re.search(r"\bCALL\b", line)]
            loop_ops = opcodes(loop)
            row.update({
                "calls": calls,
                "foreign_function_called": any(g.FOREIGN_FUNCTION in c for c in calls),
                "foreign_function_in_sass": g.FOREIGN_FUNCTION in sass,
                "k_loop_instructions": len(loop_ops),
                "k_loop_counts": {op: sum(1 for o in loop_ops if o.split(".")[0] == op)
                                  for op in ("HMMA", "LDSM", "LDG", "STS", "LDL", "STL", "BAR", "CALL")},
                "local_in_sass": sum(1 for o in opcodes(sass.splitlines()) if o.split(".")[0] in ("LDL", "STL")),
            })
            with open(os.path.join(args.out, f"sass_{name}.txt"), "w") as handle:
                handle.write(sass)
            with open(os.path.join(args.out, f"sass_{name}_k_loop.txt"), "w") as handle:
                handle.write("\n".join(loop) + "\n")
            if all(c["passed"] for c in results["checks"] if c["build"] == name):
                good.append((name, min_blocks, lto))
        except Exception as exc:
            row["error"] = repr(exc)[:3000]
        results["builds"][name] = row
        say({"build": name, **{k: v for k, v in row.items() if k != "calls"}})
        save()

    # ----- timings: cuBLAS FP16, the CUDA C mma.sync step, each build, cuBLAS again -----
    rng = cp.random.default_rng(33)
    for side in SIDES:
        flops = 2.0 * side**3
        a = (rng.random((side, side), dtype=cp.float32) * 2 - 1).astype(cp.float16)
        b = (rng.random((side, side), dtype=cp.float32) * 2 - 1).astype(cp.float16)
        c = cp.empty((side, side), dtype=cp.float16)
        items = [("cublas_fp16", lambda: gemm_cublas.gemm(a, b, c, "fp16")),
                 (CUDA_C_STEP, lambda: gemm_cuda.launch(CUDA_C_STEP, a, b, c))]
        for name, min_blocks, lto in good:
            if lto is False and side > SIDES[0]:
                continue
            items.append((f"numba_mma_{name}", g.launcher(a, b, c, min_blocks, lto)))
        items.append(("cublas_fp16_again", items[0][1]))
        for what, fn in items:
            try:
                timing = time_gpu(fn, warmup=3, repeats=args.repeats)
            except Exception as exc:
                say({"time": what, "side": side, "error": repr(exc)[:2000]})
                continue
            row = {"time": what, "side": side, "median_ms": timing.median_seconds * 1e3,
                   "min_ms": timing.min_seconds * 1e3, "max_ms": timing.max_seconds * 1e3,
                   "repeats": timing.repeats, "tflops": flops / timing.median_seconds / 1e12,
                   "sm_clock_ran_mhz": timing.sm_clock_ran_mhz, "nvml_sm_mhz": timing.sm_clock_mhz,
                   "noise": timing.relative_noise, "throttled_repeats": timing.throttled_repeats,
                   "throttle_reasons": timing.throttle_reasons, "back_to_back": timing.back_to_back}
            results["timings"].append(row)
            say(row)
            save()
        del a, b, c
        cp.get_default_memory_pool().free_all_blocks()

    # ----- the table: each kernel against the mean of its side's two cuBLAS timings -----
    table = []
    for side in SIDES:
        rows = [r for r in results["timings"] if r["side"] == side]
        ref = [r["tflops"] for r in rows if r["time"].startswith("cublas")]
        if not ref:
            continue
        cublas = sum(ref) / len(ref)
        for r in rows:
            if not r["time"].startswith("cublas"):
                table.append({"kernel": r["time"], "side": side, "tflops": round(r["tflops"], 1),
                              "cublas_fp16_tflops": round(cublas, 1), "ratio": round(r["tflops"] / cublas, 3),
                              "sm_clock_ran_mhz": r["sm_clock_ran_mhz"]})
    results["table"] = table
    save()
    for r in table:
        print(f"{r['side']:>5} {r['kernel']:<32} {r['tflops']:>7.1f} TFLOP/s  cuBLAS FP16 {r['cublas_fp16_tflops']:>7.1f}"
              f"  ratio {r['ratio']:.3f}  at {r['sm_clock_ran_mhz']} MHz", flush=True)
    return 0 if good else 1


if __name__ == "__main__":
    sys.exit(main())
