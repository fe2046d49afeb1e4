"""Issue 33: step 4 in Numba (labkit.kernels.gemm_simt.gemm_pipelined), its k loop unrolled by
literal_unroll, against the same kernel with a range loop (rebuilt from the same source), step 4 in
CUDA C and cuBLAS SGEMM: registers, SASS counts, checks against NumPy, timings at 4096^3 and 8192^3.

    python3 tests/gpu/numba_pipelined_check.py OUT.json SASS_DIR   (on a GPU with CuPy)
"""
import importlib.util
import json
import re
import sys
import traceback

import numpy as np
out = {}
try:
    from labkit.gpu import cuda
    from labkit.gpu.timing import time_gpu
    from labkit.kernels import gemm_simt, gemm_cuda, gemm_cublas, gemm_accuracy
    from labkit.kernels.compiled import resources
    import cupy as cp
    source = open(gemm_simt.__file__).read().replace("for k in literal_unroll(PL_KS):", "for k in range(RT_BK):")
    spec = importlib.util.spec_from_loader("gemm_simt_range", loader=None)
    ranged = importlib.util.module_from_spec(spec); ranged.__file__ = gemm_simt.__file__
    exec(compile(source, gemm_simt.__file__, "exec"), ranged.__dict__)
    variants = {"unrolled": gemm_simt.gemm_pipelined, "range": ranged.gemm_pipelined}
    SIG = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"
    for name, kern in variants.items():
        try:
            r = resources(kern, SIG)
        except Exception:
            out.setdefault("compile_error", {})[name] = traceback.format_exc()[-1500:]
            continue
        try:
            sass = kern.inspect_sass()
            sass = next(iter(sass.values())) if isinstance(sass, dict) else sass
        except Exception as e:
            sass = f"no sass: {e}"
        counts = {op: len(re.findall(rf"\b{op}\b", sass)) for op in ("FFMA", "LDS.128", "LDS", "LDG.E.128", "STS", "BAR.SYNC", "BRA", "IMAD.WIDE", "LDL", "STL")}
        out.setdefault("compiled", {})[name] = {"registers": r.registers_per_thread, "local": r.local_bytes_per_thread, "sass": counts}
        open(f"{sys.argv[2]}/sass_{name}.txt", "w").write(sass)
    # checks at 512 and 384x256x136
    for (m, n, k) in ((512, 512, 512), (384, 256, 136)):
        rng = np.random.default_rng(1)
        a = (rng.random((m, k), dtype=np.float32) * 2 - 1); b = (rng.random((k, n), dtype=np.float32) * 2 - 1)
        exact = a.astype(np.float64) @ b.astype(np.float64); absprod = np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))
        for name, kern in variants.items():
            if name not in out.get("compiled", {}): continue
            da, db = cuda.to_device(a), cuda.to_device(b); dc = cuda.to_device(np.full((m, n), np.nan, np.float32))
            kern[(n // 128, m // 128), 256](da, db, dc); cuda.synchronize()
            v = gemm_accuracy.agreement(dc.copy_to_host(), exact, absprod, k, "fp32")
            out.setdefault("checks", {})[f"{name}@{m}x{n}x{k}"] = bool(v.passed)
    for side in (4096, 8192):
        rng = np.random.default_rng(2)
        a = (rng.random((side, side), dtype=np.float32) * 2 - 1); b = (rng.random((side, side), dtype=np.float32) * 2 - 1)
        ca, cb = cp.asarray(a), cp.asarray(b); cc = cp.empty((side, side), cp.float32)
        da, db, dc = cuda.as_cuda_array(ca), cuda.as_cuda_array(cb), cuda.as_cuda_array(cc)
        fns = {"cublas": lambda: gemm_cublas.gemm(ca, cb, cc, "fp32"),
               "sgemm_pipelined": lambda: gemm_cuda.launch("sgemm_pipelined", ca, cb, cc)}
        for name, kern in variants.items():
            if name in out.get("compiled", {}):
                fns[name] = (lambda kern=kern: kern[(side // 128, side // 128), 256](da, db, dc))
        fns["cublas_again"] = fns["cublas"]
        for name, fn in fns.items():
            t = time_gpu(fn, warmup=3, repeats=20)
            out.setdefault("timings", {})[f"{name}@{side}"] = {"tflops": 2 * side**3 / t.median_seconds / 1e12,
                "clock": t.sm_clock_ran_mhz, "noise": t.relative_noise, "min": t.min_seconds, "max": t.max_seconds,
                "median": t.median_seconds}
except Exception:
    out["error"] = traceback.format_exc()
json.dump(out, open(sys.argv[1], "w"), indent=1, default=str)
print(json.dumps({k: v for k, v in out.items()}, indent=1, default=str)[:5000])
