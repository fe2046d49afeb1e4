"""Chapter 6 on a GPU, in one batch: compile, check, time and profile every matrix-multiply step,
and measure cuBLAS's ceilings (lab 01's tensor-core roofs) in the same run.

``python3 -m labkit.calibration.gemm_probe OUTDIR [--budget-seconds S] [--no-ncu] [--torch]`` writes

- ``OUTDIR/gemm_probe.json``: device, versions, and for each kernel its compilation (NVRTC and
  nvcc: registers, spills, SASS opcode counts), its checks against cuBLAS of its precision (1024^3
  and 4096^3, :mod:`labkit.kernels.gemm_accuracy`), its timings (4096^3, and 8192^3 for the fast
  ones) with the clocks read during them, cuBLAS's FP32, TF32, FP16, BF16 and FP64 rates at 4096^3,
  8192^3 and 16384^3 (with ``--torch``, FP8 through PyTorch's cuBLASLt too), and ``labkit check``
  of chapter 6's exercises on the GPU (skeleton and solution);
- ``OUTDIR/gemm_probe.log``: what it did, with every compiler error in full;
- ``OUTDIR/gemm_probe.tar.gz``: the ptxas reports and SASS of every kernel, ncu's raw and details
  CSV pages of one ``--set full`` profile of the kernels of NCU_STEPS and of cuBLAS's SGEMM and HGEMM
  at 4096^3, and the small inputs and outputs of any kernel that failed its check.

Timing follows the course's timer (:func:`labkit.gpu.timing.time_gpu`): warm-up, repeats, median with
min and max, clocks sampled during the repetitions. L2 is not flushed: a GEMM of 4096^3 reads its
192 MiB of operands hundreds of times from L2 and HBM in its own pattern, and the 48 MiB a flush
would evict is a small part of one call's traffic; cuBLAS is timed the same way. Every stage
catches its own failure, logs it, and the probe goes on; a deadline (``--budget-seconds``, 360 by
default) skips the optional parts (the larger sizes, PyTorch, ncu) when time runs short.

The plan (which kernels, sizes, repeats) and the SASS and ptxas parsers are pure functions,
tested on the CPU.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tarfile
import time
import traceback
from collections import Counter
from pathlib import Path

import numpy as np

from labkit.kernels.gemm_cublas import bf16_bits, from_bf16_bits

#: The Numba steps (labkit.kernels.gemm_simt) and the CUDA C ones (labkit.kernels.gemm_cuda).
NUMBA_STEPS = ("gemm_naive", "gemm_shared", "gemm_shared_padded", "gemm_regtile")
def _cuda_steps() -> tuple[str, ...]:
    from labkit.kernels.gemm_cuda import KERNELS

    return tuple(KERNELS)


CUDA_STEPS = _cuda_steps()
#: The kernels profiled by ncu (with cuBLAS's SGEMM and HGEMM): those whose profile the chapter
#: does not have yet (the lab profiles every step when it records).
NCU_STEPS = ("gemm_shared_padded", "gemm_regtile", "hgemm_wmma", "hgemm_mma_128x128", "hgemm_mma_128x128_w8",
             "hgemm_mma_256x128_w16", "hgemm_mma_128x256_k64", "hgemm_wgmma_128x256")
#: Chapter 6's exercises, checked on the GPU as shipped (the skeleton) and with our solution.
EXERCISES = ("06-padding", "06-regtile")
CUBLAS_PRECISIONS = ("fp32", "tf32", "fp16", "bf16", "fp64")
CHECK_SIZES = (1024, 4096)
#: Kernels slower than this at 4096^3 are not timed at 8192^3 (8x the work).
LARGE_SIZE_MAX_SECONDS_AT_4096 = 0.02
#: Seconds of timed calls aimed at per measurement, and the bounds on the repeats.
TARGET_TIMED_SECONDS = 0.4
MIN_REPEATS, MAX_REPEATS = 5, 30
NCU_KERNEL_REGEX = "gemm|nvjet|xmma|cutlass"
NUMBA_SIGNATURE = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"
#: Dense tensor-core FLOP per clock per SM of Hopper (CC 9.0), for the log's quick ratios only
#: (H100 whitepaper: 1024 dense FP16 FMA per clock per SM; TF32 half of it, FP8 double; FP64
#: DMMA 128 FMA). The lab's records compute peaks from labkit's device tables.
HOPPER_FLOP_PER_CLOCK_PER_SM = {"fp16": 4096, "bf16": 4096, "tf32": 2048, "fp8": 8192, "fp64": 256, "fp32": 256}

# ----- pure helpers (tested on the CPU) -------------------------------------------------------------
def gemm_flops(n: int) -> float:
    """2 n^3: one multiply and one add per term of each of the n^2 dot products of length n."""
    return 2.0 * n**3


def precision_of(step: str) -> str:
    """The precision a step computes in: its cuBLAS reference."""
    if step.startswith("bgemm"):
        return "bf16"
    if step.startswith("hgemm"):
        return "fp16"
    return "fp32"


def repeats_for(seconds_per_call: float) -> tuple[int, int]:
    """(warm-up, repeats) for a kernel of this duration: about TARGET_TIMED_SECONDS of timed calls,
    between MIN_REPEATS and MAX_REPEATS; fewer warm-ups for long calls."""
    if seconds_per_call <= 0:
        raise ValueError(f"a call cannot take {seconds_per_call} s")
    repeats = int(round(TARGET_TIMED_SECONDS / seconds_per_call))
    repeats = max(MIN_REPEATS, min(MAX_REPEATS, repeats))
    warmup = 2 if seconds_per_call > 0.05 else 5
    return warmup, repeats


_SASS_LINE = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)")
_SASS_FUNCTION = re.compile(r"Function\s*:\s*(\S+)")


def sass_opcodes(sass: str) -> dict[str, dict[str, int]]:
    """Opcode counts (with their modifiers, e.g. ``LDG.E.128``) per function of a ``cuobjdump
    -sass`` / ``nvdisasm`` listing; the predicate guard (``@P0``) is dropped."""
    counts: dict[str, Counter] = {}
    current = "?"
    for line in sass.splitlines():
        function = _SASS_FUNCTION.search(line)
        if function:
            current = function.group(1)
            counts.setdefault(current, Counter())
            continue
        match = _SASS_LINE.search(line)
        if match:
            counts.setdefault(current, Counter())[match.group(1)] += 1
    return {name: dict(sorted(c.items())) for name, c in counts.items()}


_PTXAS_FUNCTION = re.compile(r"Compiling entry function '([^']+)'")
_PTXAS_REGS = re.compile(r"Used (\d+) registers")
_PTXAS_SPILL = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")


def ptxas_resources(log: str) -> dict[str, dict[str, int]]:
    """Registers, stack frame and spill bytes per entry function of a ``ptxas -v`` report."""
    out: dict[str, dict[str, int]] = {}
    current = None
    for line in log.splitlines():
        function = _PTXAS_FUNCTION.search(line)
        if function:
            current = function.group(1)
            out[current] = {}
            continue
        if current is None:
            continue
        spill = _PTXAS_SPILL.search(line)
        if spill:
            out[current].update(stack_bytes=int(spill.group(1)), spill_store_bytes=int(spill.group(2)),
                                spill_load_bytes=int(spill.group(3)))
        regs = _PTXAS_REGS.search(line)
        if regs:
            out[current]["registers"] = int(regs.group(1))
    return out


def timing_plan(seconds_at_4096: dict[str, float]) -> list[tuple[str, int]]:
    """(kernel, size) pairs to time: every kernel at 4096, those under the limit at 8192 too."""
    plan = [(name, 4096) for name in seconds_at_4096]
    plan += [(name, 8192) for name, s in seconds_at_4096.items() if s <= LARGE_SIZE_MAX_SECONDS_AT_4096]
    return plan


# ----- the GPU side ---------------------------------------------------------------------------------
class Probe:
    def __init__(self, outdir: Path, budget_seconds: float, ncu: bool):
        self.outdir = outdir
        self.work = outdir / "gemm_probe"
        self.work.mkdir(parents=True, exist_ok=True)
        self.deadline = time.monotonic() + budget_seconds
        self.ncu = ncu
        self.torch = False
        self.log_file = open(outdir / "gemm_probe.log", "w", encoding="utf-8")
        self.results: dict = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "errors": []}

    # -- bookkeeping
    def log(self, *parts) -> None:
        line = " ".join(str(p) for p in parts)
        print(line, flush=True)
        self.log_file.write(line + "\n")
        self.log_file.flush()

    def left(self) -> float:
        return self.deadline - time.monotonic()

    def stage(self, name: str, fn, *args):
        """Run one stage; log and record its failure, never raise."""
        start = time.monotonic()
        self.log(f"== {name} ({self.left():.0f} s left)")
        try:
            return fn(*args)
        except Exception:
            text = traceback.format_exc()
            self.log(f"!! {name} failed:\n{text}")
            self.results["errors"].append({"stage": name, "traceback": text})
            return None
        finally:
            self.results.setdefault("stage_seconds", {})[name] = round(time.monotonic() - start, 2)

    def save(self) -> None:
        self.results["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
        (self.outdir / "gemm_probe.json").write_text(json.dumps(self.results, indent=1, default=str) + "\n")

    # -- stages
    def environment(self) -> None:
        import cupy
        import numba

        from labkit.gpu.device import read_clocks, read_device_facts

        facts = read_device_facts()
        env = {"device": facts.__dict__ | {"compute_capability": list(facts.compute_capability)},
               "cupy": cupy.__version__, "numba": numba.__version__, "numpy": np.__version__,
               "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
               "cuda_driver": cupy.cuda.runtime.driverGetVersion(),
               "clocks_idle": str(read_clocks())}
        try:
            import numba_cuda  # noqa: F401

            env["numba_cuda"] = getattr(numba_cuda, "__version__", "?")
        except ImportError:
            pass
        try:
            env["nvrtc"] = list(cupy.cuda.nvrtc.getVersion())
        except Exception as error:  # noqa: BLE001
            env["nvrtc"] = f"unknown: {error}"
        try:
            env["cublas"] = cupy.cuda.cublas.getVersion(cupy.cuda.device.get_cublas_handle())
        except Exception as error:  # noqa: BLE001
            env["cublas"] = f"unknown: {error}"
        for tool in ("nvcc", "cuobjdump", "nvdisasm", "ncu"):
            env[f"{tool}_path"] = shutil.which(tool)
        self.results["environment"] = env
        self.log(json.dumps(env, default=str))

    def compile_cuda(self) -> None:
        """NVRTC (what the lab runs) for each module, then nvcc for ptxas -v and the SASS."""
        from labkit.kernels import gemm_cuda

        out = self.results.setdefault("compile", {})
        for module_name in gemm_cuda.SOURCES:
            entry = out.setdefault(module_name, {})
            start = time.monotonic()
            try:
                for name, spec in gemm_cuda.KERNELS.items():
                    if spec.module != module_name:
                        continue
                    kernel = gemm_cuda.function(name)
                    entry[name] = {"nvrtc_registers": kernel.num_regs, "nvrtc_local_bytes": kernel.local_size_bytes,
                                   "static_shared_bytes": kernel.shared_size_bytes,
                                   "dynamic_shared_bytes": spec.dynamic_shared_bytes}
                entry["nvrtc"] = "ok"
            except Exception:
                entry["nvrtc"] = traceback.format_exc()
                self.log(f"!! NVRTC failed for module {module_name}:\n{entry['nvrtc']}")
            entry["nvrtc_seconds"] = round(time.monotonic() - start, 2)
            self._nvcc(module_name, gemm_cuda.SOURCES[module_name], gemm_cuda.options(module_name), entry)
            self.log(f"{module_name}: {json.dumps({k: v for k, v in entry.items() if k != 'sass_opcodes'}, default=str)[:2000]}")

    def _nvcc(self, module_name: str, source: str, options: tuple[str, ...], entry: dict) -> None:
        target = "-gencode=arch=compute_90a,code=sm_90a" if module_name in gemm_cuda.SM90A_MODULES else "-arch=sm_90"
        nvcc = shutil.which("nvcc")
        if nvcc is None:
            entry["nvcc"] = "nvcc not found"
            return
        folder = self.work / "nvcc"
        folder.mkdir(exist_ok=True)
        cu = folder / f"{module_name}.cu"
        cu.write_text(source)
        cubin = folder / f"{module_name}.cubin"
        flags = [o for o in options if o.startswith(("-D", "-std", "-I"))]
        command = [nvcc, "-cubin", target, "-lineinfo", *flags, "-Xptxas", "-v", str(cu), "-o", str(cubin)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=180)
        (folder / f"{module_name}.ptxas.txt").write_text(" ".join(command) + "\n" + done.stdout + done.stderr)
        entry["nvcc"] = "ok" if done.returncode == 0 else done.stdout + done.stderr
        entry["ptxas"] = ptxas_resources(done.stdout + done.stderr)
        if done.returncode == 0 and shutil.which("cuobjdump"):
            sass = subprocess.run(["cuobjdump", "-sass", str(cubin)], capture_output=True, text=True, timeout=120)
            (folder / f"{module_name}.sass").write_text(sass.stdout)
            entry["sass_opcodes"] = sass_opcodes(sass.stdout)

    def compile_numba(self) -> None:
        from labkit.kernels import gemm_simt
        from labkit.kernels.compiled import resources

        out = self.results.setdefault("compile", {}).setdefault("numba", {})
        folder = self.work / "numba_sass"
        folder.mkdir(exist_ok=True)
        for name in NUMBA_STEPS:
            start = time.monotonic()
            try:
                dispatcher = gemm_simt.STEPS[name][0]
                res = resources(dispatcher, NUMBA_SIGNATURE)
                entry = {"registers": res.registers_per_thread, "local_bytes": res.local_bytes_per_thread,
                         "seconds": round(time.monotonic() - start, 2)}
                try:
                    sass = "\n".join(dispatcher.inspect_sass().values())
                    (folder / f"{name}.sass").write_text(sass)
                    entry["sass_opcodes"] = next(iter(sass_opcodes(sass).values()), {})
                except Exception as error:  # noqa: BLE001
                    entry["sass"] = f"not read: {error}"
            except Exception:
                entry = {"error": traceback.format_exc()}
                self.log(f"!! Numba failed for {name}:\n{entry['error']}")
            out[name] = entry
            self.log(f"numba {name}: { {k: v for k, v in entry.items() if k != 'sass_opcodes'} }")

    # -- data and launches
    def _inputs(self, n: int, seed: int):
        import cupy

        from labkit.gpu import cuda

        rng = cupy.random.default_rng(seed)
        a32 = rng.random((n, n), dtype=cupy.float32) * 2 - 1  # uniform on [-1, 1)
        b32 = rng.random((n, n), dtype=cupy.float32) * 2 - 1
        data = {"fp32": (a32, b32), "fp16": (a32.astype(cupy.float16), b32.astype(cupy.float16)),
                "bf16": (bf16_bits(a32, cupy), bf16_bits(b32, cupy)), "fp64": (a32.astype(cupy.float64), b32.astype(cupy.float64))}
        data["numba"] = (cuda.as_cuda_array(a32), cuda.as_cuda_array(b32))
        data["fp16_bt"] = (data["fp16"][0], cupy.ascontiguousarray(data["fp16"][1].T))
        return data

    def _launcher(self, step: str, data, c):
        """A function that enqueues one c = a @ b of ``step`` (c a CuPy array of its precision)."""
        from labkit.gpu import cuda
        from labkit.kernels import gemm_cublas, gemm_cuda, gemm_simt

        if step in NUMBA_STEPS:
            a, b = data["numba"]
            c_view = cuda.as_cuda_array(c)
            return lambda: gemm_simt.launch(step, a, b, c_view)
        if step.startswith("cublas_"):
            precision = step.removeprefix("cublas_")
            a, b = data["fp32" if precision == "tf32" else precision]
            return lambda: gemm_cublas.gemm(a, b, c, precision)
        a, b = data["fp16_bt" if step in gemm_cuda.TAKES_B_TRANSPOSED else precision_of(step)]
        return lambda: gemm_cuda.launch(step, a, b, c)

    def _output(self, step: str, n: int):
        import cupy

        precision = step.removeprefix("cublas_") if step.startswith("cublas_") else precision_of(step)
        dtype = {"fp32": cupy.float32, "tf32": cupy.float32, "fp16": cupy.float16, "bf16": cupy.uint16,
                 "fp64": cupy.float64}[precision]
        if dtype == cupy.uint16:
            return cupy.full((n, n), 0x7FC0, dtype=cupy.uint16)  # BF16 NaN
        return cupy.full((n, n), cupy.nan, dtype=dtype)

    def checks(self) -> None:
        import cupy

        from labkit.kernels.gemm_accuracy import agreement

        out = self.results.setdefault("checks", {})
        for n in CHECK_SIZES:
            data = self._inputs(n, seed=n)
            refs, abs_products = {}, {}
            for precision in ("fp32", "fp16", "bf16"):
                c = self._output(f"cublas_{precision}", n)
                self._launcher(f"cublas_{precision}", data, c)()
                refs[precision] = _as_f32(c)
                a, b = data[precision]
                abs_a, abs_b = cupy.abs(_as_f32(a)), cupy.abs(_as_f32(b))
                abs_products[precision] = abs_a @ abs_b  # FP32 SGEMM (CuPy's default: no TF32)
            cupy.cuda.runtime.deviceSynchronize()
            steps = [s for s in NUMBA_STEPS + CUDA_STEPS if self._compiled(s)] + ["cublas_tf32"]
            for step in steps:
                if self.left() < 60:
                    self.log("!! checks stopped: time budget")
                    return
                precision = "fp32" if step == "cublas_tf32" else precision_of(step)
                rounding = "tf32" if step == "cublas_tf32" else precision
                try:
                    c = self._output(step, n)
                    self._launcher(step, data, c)()
                    cupy.cuda.runtime.deviceSynchronize()
                    result = agreement(_as_f32(c), refs[precision], abs_products[precision], n, rounding, xp=cupy)
                    entry = result.__dict__ | {"passed": result.passed}
                except Exception:
                    entry = {"passed": False, "error": traceback.format_exc()}
                out.setdefault(step, {})[str(n)] = entry
                self.log(f"check {step} {n}^3: {entry}")
                if not entry["passed"] and n == CHECK_SIZES[0]:
                    self._dump_failure(step)
            # cross-check: CuPy's own matmul against gemmEx (same library, other entry point)
            for precision in ("fp32", "fp16"):
                a, b = data[precision]
                mine = refs[precision]
                theirs = _as_f32(cupy.matmul(a, b))
                out.setdefault(f"cupy_matmul_{precision}", {})[str(n)] = agreement(
                    theirs, mine, abs_products[precision], n, precision, xp=cupy).__dict__
            del data, refs, abs_products
            cupy.get_default_memory_pool().free_all_blocks()

    def _compiled(self, step: str) -> bool:
        compile_ = self.results.get("compile", {})
        if step in NUMBA_STEPS:
            return "error" not in compile_.get("numba", {}).get(step, {"error": "not compiled"})
        from labkit.kernels import gemm_cuda

        return compile_.get(gemm_cuda.KERNELS[step].module, {}).get("nvrtc") == "ok"

    def _dump_failure(self, step: str) -> None:
        """The inputs and outputs of a failing kernel at 256^3, for study off the GPU."""
        import cupy

        try:
            n = 256
            data = self._inputs(n, seed=7)
            c = self._output(step, n)
            self._launcher(step, data, c)()
            precision = precision_of(step) if not step.startswith("cublas") else "fp32"
            ref = self._output(f"cublas_{precision}", n)
            self._launcher(f"cublas_{precision}", data, ref)()
            cupy.cuda.runtime.deviceSynchronize()
            a, b = data[precision]
            folder = self.work / "failures"
            folder.mkdir(exist_ok=True)
            np.savez_compressed(folder / f"{step}.npz", a=cupy.asnumpy(_as_f32(a)), b=cupy.asnumpy(_as_f32(b)),
                                c=cupy.asnumpy(_as_f32(c)), reference=cupy.asnumpy(_as_f32(ref)))
            self.log(f"saved failures/{step}.npz")
        except Exception:  # noqa: BLE001
            self.log(f"!! could not dump {step}:\n{traceback.format_exc()}")

    def timings(self) -> None:
        import cupy

        from labkit.gpu.timing import time_gpu

        out = self.results.setdefault("timings", {})
        steps = [s for s in NUMBA_STEPS + CUDA_STEPS if self._compiled(s)]
        cublas = [f"cublas_{p}" for p in CUBLAS_PRECISIONS]
        once: dict[str, float] = {}
        data = self._inputs(4096, seed=1)
        for step in steps + cublas:
            try:
                once[step] = self._time_once(step, data, 4096)
            except Exception:
                out.setdefault(step, {})["4096"] = {"error": traceback.format_exc()}
        plan = timing_plan(once)
        # cuBLAS's tensor-core ceilings at 16384^3 too (lab 01)
        plan += [(f"cublas_{p}", 16384) for p in ("fp16", "bf16", "tf32")]
        by_size: dict[int, list[str]] = {}
        for step, n in plan:
            by_size.setdefault(n, []).append(step)
        for n in sorted(by_size):
            if n != 4096:
                del data
                cupy.get_default_memory_pool().free_all_blocks()
                data = self._inputs(n, seed=n + 1)
            for step in by_size[n]:
                if self.left() < (150 if self.ncu else 40):
                    self.log(f"!! timing {step} {n}^3 skipped: time budget")
                    continue
                try:
                    c = self._output(step, n)
                    fn = self._launcher(step, data, c)
                    estimate = once.get(step, 0.01) * (n / 4096) ** 3
                    warmup, repeats = repeats_for(max(estimate, 1e-5))
                    timing = time_gpu(fn, warmup=warmup, repeats=repeats)
                    entry = timing.model_dump() | {"tflops": timing.gflops(gemm_flops(n)) / 1e3}
                except Exception:
                    entry = {"error": traceback.format_exc()}
                out.setdefault(step, {})[str(n)] = entry
                self.log(f"time {step} {n}^3: " + (f"{entry['tflops']:.1f} TFLOP/s median {entry['median_seconds'] * 1e3:.3f} ms"
                         f" [{entry['min_seconds'] * 1e3:.3f}, {entry['max_seconds'] * 1e3:.3f}] x{entry['repeats']}"
                         f" SM {entry['sm_clock_mhz']} MHz" if "tflops" in entry else entry["error"]))
        self._ratios()

    def _time_once(self, step: str, data, n: int) -> float:
        import cupy

        c = self._output(step, n)
        fn = self._launcher(step, data, c)
        fn()  # compile, load
        cupy.cuda.runtime.deviceSynchronize()
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        return cupy.cuda.get_elapsed_time(start, end) / 1e3

    def _ratios(self) -> None:
        """Each step against cuBLAS of its precision at the same size, and cuBLAS against its peak."""
        timings = self.results.get("timings", {})
        facts = self.results.get("environment", {}).get("device", {})
        ratios = {}
        for step, sizes in timings.items():
            for n, entry in sizes.items():
                if "tflops" not in entry:
                    continue
                if step.startswith("cublas_"):
                    precision = step.removeprefix("cublas_")
                    clock = entry.get("sm_clock_mhz")
                    if clock and facts.get("sm_count"):
                        peak = HOPPER_FLOP_PER_CLOCK_PER_SM[precision] * facts["sm_count"] * clock * 1e6 / 1e12
                        ratios[f"{step}@{n} / assumed peak {peak:.0f}"] = round(entry["tflops"] / peak, 3)
                    continue
                ref = timings.get(f"cublas_{precision_of(step)}", {}).get(n, {})
                if "tflops" in ref:
                    ratios[f"{step}@{n} / cublas_{precision_of(step)}"] = round(entry["tflops"] / ref["tflops"], 3)
        self.results["ratios"] = ratios
        for key, value in ratios.items():
            self.log(f"ratio {key}: {value}")

    def exercises_on_gpu(self) -> None:
        """``labkit check`` on the GPU for each exercise: the skeleton as shipped, then our solution
        (the time ratio each would show a learner, and its registers)."""
        from labkit.exercises import exercises

        out = self.results.setdefault("exercises", {})
        for exercise_id in EXERCISES:
            exercise = exercises()[exercise_id]
            for who, path in (("skeleton", exercise.learner_file),
                              ("solution", f"labkit/exercises/solutions/{exercise.solution}.py")):
                if self.left() < (130 if self.ncu else 30):
                    self.log(f"!! exercise {exercise_id} {who} skipped: time budget")
                    continue
                start = time.monotonic()
                done = subprocess.run([sys.executable, "-c", "import sys; from labkit.cli import main; "
                                       "sys.exit(main(sys.argv[1:]))", "check", exercise_id, "--file", path, "--json"],
                                      capture_output=True, text=True, timeout=240)
                try:
                    report = json.loads(done.stdout)
                except json.JSONDecodeError:
                    report = {"stdout": done.stdout[-3000:], "stderr": done.stderr[-3000:]}
                out.setdefault(exercise_id, {})[who] = {"returncode": done.returncode, "report": report,
                                                        "seconds": round(time.monotonic() - start, 1)}
                self.log(f"exercise {exercise_id} {who}: rc {done.returncode} "
                         f"{json.dumps(report, default=str)[:1500]}")

    def fp8_through_torch(self) -> None:
        """cuBLASLt's FP8 GEMM through PyTorch's _scaled_mm (E4M3 inputs, BF16 output), if PyTorch is here."""
        if self.left() < (150 if self.ncu else 40):
            self.log("!! FP8 skipped: time budget")
            return
        import torch

        from labkit.gpu.timing import time_gpu

        out = self.results.setdefault("timings", {})
        self.results.setdefault("environment", {})["torch"] = torch.__version__
        for n in (4096, 8192, 16384):
            a = torch.rand(n, n, device="cuda").to(torch.float8_e4m3fn)
            b = torch.rand(n, n, device="cuda").to(torch.float8_e4m3fn).t()  # column-major, as cuBLASLt wants
            one = torch.tensor(1.0, device="cuda")
            fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)  # noqa: E731
            fn()
            torch.cuda.synchronize()
            for name, f in (("torch_fp8_e4m3", fn), ("torch_fp16", None)):
                if f is None:
                    a16, b16 = a.to(torch.float16), b.to(torch.float16)
                    f = lambda: torch.matmul(a16, b16)  # noqa: E731
                    f()
                    torch.cuda.synchronize()
                timing = time_gpu(f, warmup=5, repeats=20)
                entry = timing.model_dump() | {"tflops": timing.gflops(gemm_flops(n)) / 1e3}
                out.setdefault(name, {})[str(n)] = entry
                self.log(f"time {name} {n}^3: {entry['tflops']:.1f} TFLOP/s SM {entry['sm_clock_mhz']} MHz")
            del a, b
            torch.cuda.empty_cache()

    def profile(self) -> None:
        from labkit.profiling import ncu

        seconds = min(240.0, self.left() - 20)
        if seconds < 60:
            self.log("!! ncu skipped: time budget")
            return
        folder = self.work / "ncu"
        folder.mkdir(exist_ok=True)
        steps = [s for s in NUMBA_STEPS + CUDA_STEPS if self._compiled(s) and s in NCU_STEPS]
        argv = [sys.executable, "-m", "labkit.calibration.gemm_probe", "--ncu-child", "4096", "--child-steps", ",".join(steps)]
        start = time.monotonic()
        report = ncu.profile_command(argv, NCU_KERNEL_REGEX, folder / "gemm_4096", timeout_seconds=seconds)
        self.log(f"ncu profile: {time.monotonic() - start:.0f} s")
        for page in ncu.PAGES:
            (folder / f"gemm_4096.{page}.csv").write_text(ncu.export_csv(report, page))
        if report.stat().st_size > 12 << 20:
            report.unlink()
        self.results["ncu"] = {"steps": steps, "seconds": round(time.monotonic() - start, 1)}

    def package(self) -> None:
        with tarfile.open(self.outdir / "gemm_probe.tar.gz", "w:gz") as tar:
            tar.add(self.work, arcname="gemm_probe")
        shutil.rmtree(self.work)


def _as_f32(x):
    """A CuPy array as float32; uint16 arrays are BF16 bit patterns."""
    import cupy

    if x.dtype == cupy.uint16:
        return from_bf16_bits(x, cupy)
    return x.astype(cupy.float32)


def ncu_child(n: int, steps: list[str]) -> None:
    """Under ncu: each step and cuBLAS's SGEMM and HGEMM launched once at n^3."""
    import cupy

    probe = Probe.__new__(Probe)
    data = probe._inputs(n, seed=3)
    cupy.cuda.runtime.deviceSynchronize()
    for step in [*steps, "cublas_fp32", "cublas_fp16"]:
        c = probe._output(step, n)
        probe._launcher(step, data, c)()
        cupy.cuda.runtime.deviceSynchronize()
        del c


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labkit.calibration.gemm_probe", description=__doc__.split("\n\n")[0])
    parser.add_argument("outdir", nargs="?", type=Path)
    parser.add_argument("--budget-seconds", type=float, default=360.0)
    parser.add_argument("--no-ncu", action="store_true")
    parser.add_argument("--torch", action="store_true", help="also time FP8 (and FP16) through PyTorch's cuBLASLt")
    parser.add_argument("--ncu-child", type=int, default=None, help=argparse.SUPPRESS)
    parser.add_argument("--child-steps", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.ncu_child:
        ncu_child(args.ncu_child, [s for s in args.child_steps.split(",") if s])
        return 0
    if args.outdir is None:
        parser.error("OUTDIR is required")
    args.outdir.mkdir(parents=True, exist_ok=True)
    probe = Probe(args.outdir, args.budget_seconds, ncu=not args.no_ncu)
    probe.torch = args.torch
    try:
        probe.stage("environment", probe.environment)
        probe.stage("compile CUDA C", probe.compile_cuda)
        probe.stage("compile Numba", probe.compile_numba)
        probe.save()
        probe.stage("checks", probe.checks)
        probe.save()
        probe.stage("timings", probe.timings)
        probe.save()
        if probe.torch:
            probe.stage("fp8 through torch", probe.fp8_through_torch)
            probe.save()
        if probe.ncu:
            probe.stage("ncu", probe.profile)
            probe.save()
        probe.ncu = False   # what is left of the budget goes to the exercises
        probe.stage("exercises on the GPU", probe.exercises_on_gpu)
    finally:
        probe.save()
        probe.stage("package", probe.package)
        probe.log(f"done, {probe.left():.0f} s of the budget left")
        probe.log_file.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
