"""Lab 06's program: chapter 6's matrix-multiply steps run here, checked against NumPy, timed beside
cuBLAS of their precision, and profiled by Nsight Compute in one ncu process.

The Numba steps run on the GPU or in the simulator. The CUDA C steps and cuBLAS need CuPy and a
GPU. What cannot run here is recorded with its reason, for each step (``unavailable``): a step
its GPU lacks the instructions or the shared memory for (labkit.labs.lab06.plan), the simulator,
no CuPy, no CUDA toolkit header, or a step that failed on this machine (a compiler or launch
error stops that step only). A kernel that runs but disagrees with NumPy stops the record: every
step is held to its check.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np

from labkit.gpu import SIMULATED, NumbaPerformanceWarning, cuda
from labkit.gpu.device import DeviceFacts
from labkit.kernels import gemm_accuracy, gemm_simt
from labkit.kernels.gemm_cublas import bf16_bits, from_bf16_bits
from labkit.labs.base import Bench, Check, Program
from labkit.labs.lab04.results import NcuProfiles, Unavailable
from labkit.labs.lab06 import plan
from labkit.labs.lab06.plan import fitted_side
from labkit.labs.lab06.results import (ITEMS, SLOW_STEPS, STEPS, Device, Lab06Results, MmaRoof, MmaRoofPoint,
                                       PeerConfig, Resources, Run, Sizes, cublas_reference, is_peer, precision_of,
                                       step)

# The simulator's tiny grids: numba-cuda's under-utilisation warning says nothing here.
warnings.filterwarnings("ignore", category=NumbaPerformanceWarning)

#: ncu's kernel filter: the steps' kernels and cuBLAS's (whose names hold one of these words).
NCU_REGEX = "gemm|nvjet|xmma|cutlass"
#: What ncu profiles besides the steps: cuBLAS's SGEMM and FP16 GEMM (chapter 6 describes their kernels).
PROFILED_CUBLAS = ("cublas_fp32", "cublas_fp16")
NUMBA_SIGNATURE = "void(float32[:, ::1], float32[:, ::1], float32[:, ::1])"
#: Long calls (the first steps at 4096^3 take tens of ms): fewer repeats, still a median of several.
LONG_CALL_SECONDS = 0.02
LONG_CALL_REPEATS = 5
#: The longest reason kept for a step that failed here (the first line of its error).
REASON_CHARACTERS = 300


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


def why_unavailable(item: str, side: int, facts: DeviceFacts | None) -> str | None:
    """Why a step (by key), ``cublas_<precision>`` or a peer cannot run at ``side`` here; None if it
    can: this GPU's architecture first (plan.why_not_on, when its facts are known), then this machine."""
    why = plan.why_not_on(item, facts) if facts is not None else None
    if why is not None or (not item.startswith("cublas_") and not is_peer(item) and step(item).language == "numba"):
        return why
    if not item.startswith("cublas_") and not is_peer(item) and step(item).language == "numba_linked":
        from labkit.kernels import gemm_numba_mma

        if SIMULATED:
            return gemm_numba_mma.SIMULATOR_REFUSAL
        return None if cupy_or_none() is not None else "its operands are the lab's CuPy arrays, and CuPy is not installed"
    if is_peer(item):
        if SIMULATED:
            return "Triton needs a GPU: the simulator runs Numba kernels only"
        if cupy_or_none() is None:
            return "Triton is timed on the lab's CuPy operands, and CuPy is not installed (pip install cupy-cuda13x)"
        from labkit.kernels import gemm_triton

        return gemm_triton.unavailable()
    why = cuda_c_unavailable()
    if why is None and not item.startswith("cublas_"):
        from labkit.kernels import gemm_cuda

        spec = gemm_cuda.KERNELS[step(item).kernel]
        if spec.module == "wmma" and gemm_cuda.toolkit_include() is None:
            return ("its mma.h comes from a CUDA toolkit's include folder (CUDA_PATH, CUDA_HOME, nvcc's, "
                    "/usr/local/cuda), and none was found: CuPy's NVRTC headers lack crt/mma.h")
        try:   # the tiles must divide the side (a persistent kernel's grid also takes the SM count)
            spec.grid(side, side, side, facts.sm_count if facts is not None else None)
        except ValueError as exc:
            return str(exc)
    return why


def failure(exc: BaseException) -> str:
    """One line for a step that failed here: the error's type and its first line."""
    first = next((line.strip() for line in str(exc).splitlines() if line.strip()), "no message")
    return f"failed here: {type(exc).__name__}: {first}"[:REASON_CHARACTERS]


def release_device_memory() -> None:
    """Give freed operands back to the driver (Numba's pending deallocations, CuPy's pool), so that
    each phase holds only its own (sizing.footprint_bytes) and the profiled child finds them free."""
    if SIMULATED:
        return
    cuda.current_context().deallocations.clear()
    cupy = cupy_or_none()
    if cupy is not None:
        cupy.get_default_memory_pool().free_all_blocks()


def _facts_here() -> DeviceFacts | None:
    """This GPU's facts (None in the simulator, where only the Numba steps run)."""
    if SIMULATED:
        return None
    from labkit.gpu.device import read_device_facts

    return read_device_facts()


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
            # the wgmma and TMA steps read B transposed (N x K): prepared here, once, outside any timing
            for p in ("fp16", "bf16"):
                self.device[f"{p}_bt"] = (self.device[p][0], cp.ascontiguousarray(self.device[p][1].T))
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
        """One c = a @ b of a step (by key), of ``cublas_<precision>`` or of a peer, enqueued."""
        if is_peer(item):
            from labkit.kernels import gemm_triton

            precision = precision_of(item)
            a, b = self.device[precision]
            return gemm_triton.launcher(a, b, self.out[precision], precision)
        if item.startswith("cublas_"):
            from labkit.kernels import gemm_cublas

            precision = item.removeprefix("cublas_")
            a, b = self.device["fp32" if precision == "tf32" else precision]
            c = self.out["fp32" if precision == "tf32" else precision]
            return lambda: gemm_cublas.gemm(a, b, c, precision)
        s = step(item)
        if s.language == "numba":
            a, b = self.numba
            return lambda: gemm_simt.launch(s.kernel, a, b, self.c32)
        if s.language == "numba_linked":
            from labkit.kernels import gemm_numba_mma

            a, b = self.device[s.precision]
            return gemm_numba_mma.launcher(a, b, self.out[s.precision])
        from labkit.kernels import gemm_cuda

        a, b = self.device[f"{s.precision}_bt" if s.kernel in gemm_cuda.TAKES_B_TRANSPOSED else s.precision]
        c = self.out[s.precision]
        return lambda: gemm_cuda.launch(s.kernel, a, b, c)


# ----- checks against NumPy -----------------------------------------------------------------------
def check_against_numpy(sizes: Sizes, facts: DeviceFacts | None, failed: dict[str, str] | None = None) -> list[Check]:
    """Every step and cuBLAS precision that can run here, once, on fresh inputs and a poisoned output,
    against NumPy in float64 within :mod:`labkit.kernels.gemm_accuracy`'s tolerance. A step that
    raises (a compiler or launch error) is left out of the checks, its reason put in ``failed``."""
    depth = sizes.check_depth
    operands: dict[int, Operands] = {}
    checks = []
    ops = None
    for item in ITEMS:
        side = fitted_side(item, sizes.check_side)
        if why_unavailable(item, side, facts) is not None or (failed is not None and item in failed):
            continue
        precision = precision_of(item)
        data = "fp32" if precision == "tf32" else precision
        try:
            if side not in operands:
                operands[side] = Operands(side, side, depth, seed=None)
            ops = operands[side]
            ops.poison(precision)
            ops.launcher(item)()
            cuda.synchronize()
            result = ops.result(precision)
        except Exception as exc:  # one step's compiler or launch error: that step only
            if failed is None:
                raise
            failed[item] = failure(exc)
            continue
        verdict = gemm_accuracy.agreement(result, ops.exact(data), ops.abs_product(data), depth, precision)
        checks.append(Check(name=item, passed=verdict.passed))
    ops = None          # the last reference to the operands, before their memory is released
    operands.clear()
    release_device_memory()
    return checks


# ----- compiled resources -------------------------------------------------------------------------
def compiled_resources(skipped: dict[str, str], sizes: Sizes, facts: DeviceFacts | None) -> list[Resources]:
    """Registers and local memory per thread of each step's kernel that runs here, as the driver
    reports them (the Numba SIMT steps in the simulator too, where the driver reports nothing)."""
    from labkit.kernels.compiled import resources

    out = []
    for s in STEPS:
        if s.key in skipped or (s.language != "numba"
                                and why_unavailable(s.key, fitted_side(s.key, sizes.side), facts) is not None):
            continue
        try:
            if s.language == "numba":
                r = resources(gemm_simt.STEPS[s.kernel][0], NUMBA_SIGNATURE)
            elif s.language == "numba_linked":
                from labkit.kernels import gemm_numba_mma

                r = gemm_numba_mma.resources()
            else:
                from labkit.kernels import gemm_cuda

                f = gemm_cuda.function(s.kernel)
                out.append(Resources(kernel=s.key, registers=int(f.num_regs), local_bytes=int(f.local_size_bytes)))
                continue
            out.append(Resources(kernel=s.key, registers=r.registers_per_thread, local_bytes=r.local_bytes_per_thread))
        except Exception as exc:  # see check_against_numpy
            skipped[s.key] = failure(exc)
    return out


# ----- timings ----------------------------------------------------------------------------------
def time_runs(time_interleaved, sizes: Sizes, facts: DeviceFacts | None, skipped: dict[str, str]
              ) -> tuple[list[Run], dict[str, str], dict[str, str], list[PeerConfig]]:
    """Each step, cuBLAS and peer at ``side``; all but the slow steps again at ``large_side``.
    A step or a peer is timed call for call with cuBLAS in its precision (labkit.gpu.timing.time_interleaved:
    under the H200's power cap, two kernels timed one after the other run at two clocks), and the
    reference's timing is kept beside its own; cuBLAS is also timed alone, for its own row.
    Returns the runs, why each item that did not run at the side (those of ``skipped`` included)
    or at the large side did not, and what each peer ran as at each side."""
    runs: list[Run] = []
    configs: list[PeerConfig] = []
    unavailable = dict(skipped)
    unavailable_large: dict[str, str] = {}
    for large, requested, depth in ((False, sizes.side, sizes.depth), (True, sizes.large_side, sizes.large_side)):
        if requested is None:
            continue
        operands: dict[int, Operands] = {}
        fns = ()
        for item in ITEMS:
            if large and (item in SLOW_STEPS or item in unavailable):
                continue
            side = fitted_side(item, requested)
            why = unavailable.get(item) or why_unavailable(item, side, facts)
            if why is not None:
                (unavailable_large if large else unavailable)[item] = why
                continue
            reference = cublas_reference(item)
            if reference is not None and (why_unavailable(reference, side, facts) or reference in unavailable):
                reference = None    # its own row says why
            try:
                if side not in operands:
                    operands[side] = Operands(side, side, depth, seed=1)
                fns = tuple(operands[side].launcher(k) for k in (item, reference) if k is not None)
                warmup, repeats = 3, sizes.repeats
                if not SIMULATED:
                    fns[0]()
                    cuda.synchronize()
                    if _seconds_once(fns[0]) > LONG_CALL_SECONDS:
                        warmup, repeats = 1, LONG_CALL_REPEATS
                timings = time_interleaved(fns, warmup=warmup, repeats=repeats)
            except Exception as exc:  # see check_against_numpy
                (unavailable_large if large else unavailable)[item] = failure(exc)
                continue
            runs.append(Run(kernel=item, large=large, side=side, depth=depth, timing=timings[0],
                            reference=timings[1] if len(timings) > 1 else None))
            if is_peer(item):
                from labkit.kernels import gemm_triton

                chosen = gemm_triton.chosen_config()
                if chosen is not None:   # an autotuner that does not say what it kept: the rate alone
                    configs.append(PeerConfig(kernel=item, side=side, version=gemm_triton.version(), **chosen))
        fns = ()        # the last launchers hold their operands: dropped before their memory is released
        operands.clear()
        release_device_memory()
    return runs, unavailable, unavailable_large, configs


def _seconds_once(fn) -> float:
    start, end = cuda.event(), cuda.event()
    start.record()
    fn()
    end.record()
    end.synchronize()
    return cuda.event_elapsed_time(start, end) / 1e3


# ----- mma.sync's own roof ------------------------------------------------------------------------
def mma_roof_step(time_gpu, sizes: Sizes, facts: DeviceFacts) -> MmaRoof | Unavailable:
    """The register-only mma.sync loop (labkit.kernels.mma_roof): checked once against NumPy (the sum of
    each warp's accumulators), then timed at each of ``sizes.mma_roof_warps`` warps per SM."""
    why = plan.why_not_on("mma", facts) or cuda_c_unavailable()
    if why is not None:
        return Unavailable(status="unavailable", reason=why)
    import cupy

    from labkit.kernels import mma_roof

    warps_per_block = mma_roof.THREADS // 32
    try:
        blocks, trips = 2, 3
        out = cupy.full(blocks * mma_roof.THREADS, np.nan, dtype=cupy.float32)
        mma_roof.launcher(blocks, trips, out)()
        sums = cupy.asnumpy(out).astype(np.float64).reshape(-1, 32).sum(axis=1)
        check = Check(name="mma_roof", passed=bool(np.allclose(sums, mma_roof.warp_sums_reference(blocks, trips),
                                                               rtol=1e-5)))
        points = []
        for warps in sizes.mma_roof_warps:
            blocks = facts.sm_count * max(1, warps // warps_per_block)
            out = cupy.empty(blocks * mma_roof.THREADS, dtype=cupy.float32)
            timing = time_gpu(mma_roof.launcher(blocks, sizes.mma_roof_iterations, out), warmup=3,
                              repeats=sizes.repeats)
            points.append(MmaRoofPoint(warps_per_sm=warps, blocks=blocks,
                                       flops=mma_roof.flops(blocks, sizes.mma_roof_iterations), timing=timing))
    except Exception as exc:  # a compiler or launch error here: this roof only
        return Unavailable(status="unavailable", reason=failure(exc))
    finally:
        release_device_memory()
    return MmaRoof(status="ok", accumulators=mma_roof.ACCUMULATORS, iterations=sizes.mma_roof_iterations,
                   check=check, points=points)


# ----- Nsight Compute ---------------------------------------------------------------------------
def profile_target(side: int, depth: int) -> None:
    """What ncu profiles: each step that runs here once at side x side x depth, then cuBLAS's FP32
    and FP16; a step that fails is passed over (its profile is then missing, and the table says so)."""
    facts = _facts_here()
    ops = Operands(side, side, depth, seed=3)
    for item in [s.key for s in STEPS] + list(PROFILED_CUBLAS):
        if fitted_side(item, side) != side or why_unavailable(item, side, facts) is not None:
            continue
        try:
            ops.launcher(item)()
            cuda.synchronize()
        except Exception as exc:  # the other steps are still profiled
            print(f"lab-06 profile target: {item} {failure(exc)}", file=sys.stderr)


def nsight_compute(sizes: Sizes, work_dir: Path) -> NcuProfiles | Unavailable:
    """Profile the target under ncu (the one protocol, labkit.profiling.lab_profile: --set full,
    clocks left alone) and keep what the diagnosis reads of each kernel, steps and cuBLAS's."""
    from labkit.profiling import diagnosis
    from labkit.profiling.lab_profile import profile_lab

    return profile_lab("labkit.labs.lab06.program", NCU_REGEX, work_dir,
                       lambda run: NcuProfiles(status="ok", kernels=[diagnosis.StoredProfile.of(p)
                                                                     for p in run.profiles]),
                       lambda reason: Unavailable(status="unavailable", reason=reason),
                       pages=("raw", "details"), args=(str(sizes.side), str(sizes.depth)), report="lab06",
                       timeout_seconds=600)


# ----- the whole lab ------------------------------------------------------------------------------
class Lab06Program(Program[Sizes, Lab06Results]):
    def check(self, sizes: Sizes) -> list[Check]:
        return check_against_numpy(sizes, _facts_here())

    def measure(self, bench: Bench, sizes: Sizes) -> Lab06Results:
        """Checks, compiled resources, every step and cuBLAS timed, then Nsight Compute (skipped in
        the simulator). A step that fails on this machine is recorded as unavailable, with why."""
        from labkit.gpu.device import fp32_lanes_per_sm

        facts = bench.facts
        skipped: dict[str, str] = {}
        bench.progress("checks against NumPy")
        checks = check_against_numpy(sizes, facts, skipped)
        bench.progress("registers and spills of each kernel")
        resources = compiled_resources(skipped, sizes, facts)
        bench.progress(f"each step, cuBLAS and the peers at {sizes.side}^3" + (f" and {sizes.large_side}^3" if sizes.large_side
                                                                   else ""))
        runs, unavailable, unavailable_large, peer_configs = time_runs(bench.time_interleaved, sizes, facts, skipped)
        bench.progress("mma.sync's own roof: a register-only loop")
        roof = (Unavailable(status="unavailable", reason="kernels ran in the Numba CUDA simulator") if bench.simulated
                else mma_roof_step(bench.time_gpu, sizes, facts))
        bench.progress("Nsight Compute on every step and on cuBLAS, one ncu process")
        if bench.simulated:
            profiles = Unavailable(status="unavailable", reason="kernels ran in the Numba CUDA simulator")
        else:
            profiles = nsight_compute(sizes, bench.work_dir)
        device = Device(name=facts.name, compute_capability=tuple(facts.compute_capability), sm_count=facts.sm_count,
                        max_sm_clock_mhz=facts.max_sm_clock_mhz,
                        fp32_lanes_per_sm=fp32_lanes_per_sm(facts.compute_capability))
        return Lab06Results(sizes=sizes, checks=checks, device=device, runs=runs, unavailable=unavailable,
                            unavailable_large=unavailable_large, resources=resources, peer_configs=peer_configs,
                            ncu=profiles, mma_roof=roof)


def main(argv: list[str]) -> int:
    """Entry point for the profiler's child process: ``profile-target SIDE DEPTH``."""
    if len(argv) == 3 and argv[0] == "profile-target" and argv[1].isdigit() and argv[2].isdigit():
        profile_target(int(argv[1]), int(argv[2]))
    else:
        raise SystemExit("usage: python -m labkit.labs.lab06.program profile-target SIDE DEPTH")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
