"""Lab 06's program: chapter 6's matrix-multiply steps run here, checked against NumPy, timed beside
cuBLAS of their precision, and profiled by Nsight Compute in one ncu process.

The Numba steps run on the GPU or in the simulator. The CUDA C steps and cuBLAS need CuPy and a
GPU; where they cannot run (the simulator, no CuPy, a side their tiles do not divide), the record
says why for each (``unavailable``) instead of a time.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from labkit.gpu import SIMULATED, NumbaPerformanceWarning, cuda
from labkit.kernels import gemm_accuracy, gemm_simt
from labkit.kernels.gemm_cublas import bf16_bits, from_bf16_bits
from labkit.lab import Bench, Check, Program
from labkit.labs.lab04.results import NcuProfiles, Unavailable
from labkit.labs.lab06.results import CUBLAS, SLOW_STEPS, STEPS, Lab06Results, Resources, Run, Sizes, Step

# The simulator's tiny grids: numba-cuda's under-utilisation warning says nothing here.
warnings.filterwarnings("ignore", category=NumbaPerformanceWarning)

#: ncu's kernel filter: the steps' kernels and cuBLAS's (whose names hold one of these words).
NCU_REGEX = "gemm|nvjet|xmma|cutlass"
NUMBA_SIGNATURE = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"
#: Long calls (the first steps at 4096^3 take tens of ms): fewer repeats, still a median of several.
LONG_CALL_SECONDS = 0.02
LONG_CALL_REPEATS = 5


def cupy_or_none():
    """CuPy, on a GPU where it is installed; None otherwise."""
    if SIMULATED:
        return None
    try:
        import cupy
    except ImportError:
        return None
    return cupy


def cuda_c_unavailable() -> str | None:
    """Why CUDA C kernels and cuBLAS cannot run here (through CuPy); None if they can."""
    if SIMULATED:
        return "CUDA C and cuBLAS need a GPU (CuPy): the simulator runs Numba kernels only"
    if cupy_or_none() is None:
        return "CuPy is not installed (pip install cupy-cuda13x)"
    return None


def why_unavailable(item: str, side: int) -> str | None:
    """Why a step (by key) or ``cublas_<precision>`` cannot run at ``side`` here; None if it can."""
    if not item.startswith("cublas_") and _step(item).language == "numba":
        return None
    why = cuda_c_unavailable()
    if why is None and not item.startswith("cublas_"):
        from labkit.kernels import gemm_cuda

        if gemm_cuda.KERNELS[_step(item).kernel].module == "wgmma" and _compute_capability() != (9, 0):
            return "wgmma needs a Hopper GPU (compute capability 9.0, the sm_90a target)"
        try:
            gemm_cuda.KERNELS[_step(item).kernel].grid(side, side, side)
        except ValueError as exc:
            return str(exc)
    return why


def fitted_side(item: str, side: int) -> int:
    """The side a kernel runs at for a requested ``side``: the smallest multiple of its tile of C
    that is at least ``side`` (the requested one on a GPU, where the lab's sizes are multiples of
    every tile; in the simulator the register-tiled step needs 128 where the others run at 64)."""
    if item.startswith("cublas_"):
        return side
    s = _step(item)
    if s.language == "numba":
        tile = gemm_simt.TILE_OF[s.kernel]
    else:
        from labkit.kernels import gemm_cuda

        spec = gemm_cuda.KERNELS[s.kernel]
        tile = max(spec.tile_m, spec.tile_n)
    return -(-side // tile) * tile


def _compute_capability() -> tuple[int, int]:
    return tuple(cuda.get_current_device().compute_capability)


def _step(key: str) -> Step:
    return next(s for s in STEPS if s.key == key)


class Operands:
    """A, B (uniform on [-1, 1)) and an output per precision, at m x k x n, on the device; the
    output starts poisoned (NaN) so that an element a kernel skips cannot pass."""

    def __init__(self, m: int, n: int, k: int, seed: int | None):
        rng = np.random.default_rng(seed)
        self.m, self.n, self.k = m, n, k
        self.a32 = (rng.random((m, k), dtype=np.float32) * 2 - 1)
        self.b32 = (rng.random((k, n), dtype=np.float32) * 2 - 1)
        self.host = {"fp32": (self.a32, self.b32),
                     "fp16": (self.a32.astype(np.float16), self.b32.astype(np.float16)),
                     "bf16": (bf16_bits(self.a32), bf16_bits(self.b32))}
        self.numba = (cuda.to_device(self.a32), cuda.to_device(self.b32))
        self.c32 = cuda.device_array((m, n), dtype=np.float32)
        self.cupy = cupy_or_none()
        if self.cupy is not None:
            cp = self.cupy
            self.device = {p: (cp.asarray(a), cp.asarray(b)) for p, (a, b) in self.host.items()}
            # the wgmma step reads B transposed (N x K): prepared here, once, outside any timing
            self.device["fp16_bt"] = (self.device["fp16"][0], cp.ascontiguousarray(self.device["fp16"][1].T))
            self.out = {"fp32": cp.asarray(self.c32), "fp16": cp.empty((m, n), dtype=cp.float16),
                        "bf16": cp.empty((m, n), dtype=cp.uint16)}

    def exact(self, precision: str) -> np.ndarray:
        """A @ B in float64 from the inputs as the kernels read them."""
        a, b = self.host[precision]
        if precision == "bf16":
            a, b = from_bf16_bits(a), from_bf16_bits(b)
        return a.astype(np.float64) @ b.astype(np.float64)

    def abs_product(self, precision: str) -> np.ndarray:
        a, b = self.host[precision]
        if precision == "bf16":
            a, b = from_bf16_bits(a), from_bf16_bits(b)
        return np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))

    def poison(self, precision: str) -> None:
        if precision == "fp32" and self.cupy is None:
            self.c32.copy_to_device(np.full((self.m, self.n), np.nan, dtype=np.float32))
        elif precision in ("fp32", "tf32"):
            self.out["fp32"].fill(np.nan)
        elif precision == "fp16":
            self.out["fp16"].fill(np.nan)
        else:
            self.out["bf16"].fill(0x7FC0)  # a BF16 NaN

    def result(self, precision: str) -> np.ndarray:
        if precision in ("fp32", "tf32"):
            return self.c32.copy_to_host()
        got = self.cupy.asnumpy(self.out[precision])
        return from_bf16_bits(got) if precision == "bf16" else got.astype(np.float32)

    def launcher(self, item: str) -> Callable[[], None]:
        """One c = a @ b of a step (by key) or of ``cublas_<precision>``, enqueued."""
        if item.startswith("cublas_"):
            from labkit.kernels import gemm_cublas

            precision = item.removeprefix("cublas_")
            a, b = self.device["fp32" if precision == "tf32" else precision]
            c = self.out["fp32" if precision == "tf32" else precision]
            return lambda: gemm_cublas.gemm(a, b, c, precision)
        s = _step(item)
        if s.language == "numba":
            a, b = self.numba
            return lambda: gemm_simt.launch(s.kernel, a, b, self.c32)
        from labkit.kernels import gemm_cuda

        a, b = self.device["fp16_bt" if s.kernel in gemm_cuda.TAKES_B_TRANSPOSED else s.precision]
        c = self.out[s.precision]
        return lambda: gemm_cuda.launch(s.kernel, a, b, c)


def _items() -> list[str]:
    return [s.key for s in STEPS] + [f"cublas_{p}" for p in CUBLAS]


def _precision(item: str) -> str:
    return item.removeprefix("cublas_") if item.startswith("cublas_") else _step(item).precision


# ----- checks against NumPy -----------------------------------------------------------------------
def check_against_numpy(sizes: Sizes) -> list[Check]:
    """Every step and cuBLAS precision that can run here, once, on fresh inputs and a poisoned output,
    against NumPy in float64 within :mod:`labkit.kernels.gemm_accuracy`'s tolerance."""
    depth = sizes.check_depth
    operands: dict[int, Operands] = {}
    checks = []
    for item in _items():
        side = fitted_side(item, sizes.check_side)
        if why_unavailable(item, side) is not None:
            continue
        if side not in operands:
            operands[side] = Operands(side, side, depth, seed=None)
        ops = operands[side]
        precision = _precision(item)
        data = "fp32" if precision == "tf32" else precision
        ops.poison(precision)
        ops.launcher(item)()
        cuda.synchronize()
        verdict = gemm_accuracy.agreement(ops.result(precision), ops.exact(data), ops.abs_product(data), depth,
                                          precision)
        checks.append(Check(name=item, passed=verdict.passed))
    return checks


# ----- compiled resources -------------------------------------------------------------------------
def compiled_resources() -> list[Resources]:
    """Registers and local memory per thread of each step's kernel, as the driver reports them."""
    from labkit.kernels.compiled import resources

    out = []
    for s in STEPS:
        if s.language == "numba":
            r = resources(gemm_simt.STEPS[s.kernel][0], NUMBA_SIGNATURE)
            out.append(Resources(kernel=s.key, registers=r.registers_per_thread, local_bytes=r.local_bytes_per_thread))
        elif cuda_c_unavailable() is None:
            from labkit.kernels import gemm_cuda

            f = gemm_cuda.function(s.kernel)
            out.append(Resources(kernel=s.key, registers=int(f.num_regs), local_bytes=int(f.local_size_bytes)))
    return out


# ----- timings ----------------------------------------------------------------------------------
def time_runs(time_gpu, sizes: Sizes) -> tuple[list[Run], dict[str, str]]:
    """Each step and cuBLAS at ``side``; the fast ones and cuBLAS again at ``large_side``."""
    runs, unavailable = [], {}
    for large, requested, depth in ((False, sizes.side, sizes.depth), (True, sizes.large_side, sizes.large_side)):
        if requested is None:
            continue
        operands: dict[int, Operands] = {}
        for item in _items():
            if large and item in SLOW_STEPS:
                continue
            side = fitted_side(item, requested)
            why = why_unavailable(item, side)
            if why is not None:
                if not large:
                    unavailable[item] = why
                continue
            if side not in operands:
                operands[side] = Operands(side, side, depth, seed=1)
            fn = operands[side].launcher(item)
            warmup, repeats = 3, sizes.repeats
            if not SIMULATED:
                fn()
                cuda.synchronize()
                if _seconds_once(fn) > LONG_CALL_SECONDS:
                    warmup, repeats = 1, LONG_CALL_REPEATS
            runs.append(Run(kernel=item, large=large, side=side, depth=depth,
                            timing=time_gpu(fn, warmup=warmup, repeats=repeats)))
        del operands
    return runs, unavailable


def _seconds_once(fn) -> float:
    start, end = cuda.event(), cuda.event()
    start.record()
    fn()
    end.record()
    end.synchronize()
    return cuda.event_elapsed_time(start, end) / 1e3


# ----- Nsight Compute ---------------------------------------------------------------------------
def profile_target(sizes: Sizes) -> None:
    """What ncu profiles: each step that runs here once at ``side``, then cuBLAS's FP32 and FP16."""
    ops = Operands(sizes.side, sizes.side, sizes.depth, seed=3)
    for item in [s.key for s in STEPS] + ["cublas_fp32", "cublas_fp16"]:
        if fitted_side(item, sizes.side) == sizes.side and why_unavailable(item, sizes.side) is None:
            ops.launcher(item)()
            cuda.synchronize()


def nsight_compute(work_dir: Path) -> NcuProfiles | Unavailable:
    """Profile the target under ncu (--set full, clocks left alone) and keep what the diagnosis reads."""
    from labkit.profiling import diagnosis, ncu

    if ncu.find_ncu() is None:
        return Unavailable(status="unavailable", reason="ncu not found (install Nsight Compute)")
    report = work_dir / "lab06"
    try:
        ncu.profile_command([sys.executable, "-m", "labkit.labs.lab06.program", "profile-target"], NCU_REGEX,
                            report, timeout_seconds=600)
        raw = ncu.export_csv(report.with_suffix(".ncu-rep"), "raw")
        details = ncu.export_csv(report.with_suffix(".ncu-rep"), "details")
    except ncu.NcuError as exc:
        return Unavailable(status="unavailable", reason=str(exc))
    (work_dir / "ncu_raw.csv").write_text(raw)
    (work_dir / "ncu_details.csv").write_text(details)
    profiles = ncu.merge_profiles(ncu.parse_raw_csv(raw), ncu.parse_details_csv(details))
    return NcuProfiles(status="ok", kernels=[diagnosis.StoredProfile.of(p) for p in profiles])


# ----- the whole lab ------------------------------------------------------------------------------
class Lab06Program(Program[Sizes, Lab06Results]):
    steps = 4

    def check(self, sizes: Sizes) -> list[Check]:
        return check_against_numpy(sizes)

    def measure(self, bench: Bench, sizes: Sizes) -> Lab06Results:
        """Checks, compiled resources, every step and cuBLAS timed, then Nsight Compute (skipped in
        the simulator)."""
        from labkit.device import fp32_peak_gflops
        from labkit.tensor_cores import tensor_peak_gflops

        facts = bench.facts
        bench.progress("checks against NumPy")
        checks = check_against_numpy(sizes)
        bench.progress("registers and spills of each kernel")
        resources = compiled_resources()
        bench.progress(f"each step and cuBLAS at {sizes.side}^3" + (f" and {sizes.large_side}^3" if sizes.large_side
                                                                   else ""))
        runs, unavailable = time_runs(bench.time_gpu, sizes)
        bench.progress("Nsight Compute on every step and on cuBLAS, one ncu process")
        if bench.simulated:
            profiles = Unavailable(status="unavailable", reason="kernels ran in the Numba CUDA simulator")
        else:
            profiles = nsight_compute(bench.work_dir)
        peaks = {p: tensor_peak_gflops(facts.sm_count, facts.compute_capability, p, facts.max_sm_clock_mhz)
                 for p in ("fp16", "bf16", "tf32", "fp8")}
        return Lab06Results(sizes=sizes, checks=checks, max_sm_clock_mhz=facts.max_sm_clock_mhz,
                            fp32_peak_gflops=fp32_peak_gflops(facts.sm_count, facts.compute_capability,
                                                              facts.max_sm_clock_mhz),
                            tensor_peak_gflops={p: v for p, v in peaks.items() if v is not None},
                            runs=runs, unavailable=unavailable, resources=resources, ncu=profiles)


def main(argv: list[str]) -> int:
    """Entry point for the profiler's child process."""
    from labkit.labs.lab06 import LAB

    if argv == ["profile-target"]:
        profile_target(LAB.gpu_sizes)
    else:
        raise SystemExit("usage: python -m labkit.labs.lab06.program profile-target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
