"""Lab 05's program: the mystery kernels and their twins run here (GPU or simulator), checked against
NumPy, timed, and profiled by Nsight Compute in one ncu process."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from labkit.gpu import cuda
from labkit.kernels import mysteries as m
from labkit.kernels.roofline_kernels import copy_blocks, copy_wide
from labkit.labs.base import Bench, Check, Program
from labkit.labs.ceilings import measure as measure_copy_ceiling  # the course's one copy ceiling
from labkit.labs.lab04.results import NcuProfiles, Unavailable
from labkit.labs.lab05.results import CONTROL, MYSTERIES, PROFILED_KERNELS, Lab05Results, Pair, Sizes


SCALE = np.float32(1.5)
SHIFT = np.float32(0.25)
#: Mysteries whose kernels read what HBM delivers: L2 is flushed before each timed call.
FLUSHED = frozenset({"a", "d", "e", "f", "g"})
#: kernel_c's faulty version enqueues `slices` launches per call: fewer repeats keep the launch
#: queue short while the timer holds the stream.
LAUNCH_HEAVY_REPEATS = 10
#: ncu's kernel filter: every mystery kernel and twin, nothing else.
NCU_REGEX = "kernel_[a-h]"


def _blocks(n: int) -> int:
    return (n + m.THREADS - 1) // m.THREADS


@dataclass
class Work:
    """One kernel's launch at the lab's sizes: ``run`` what is timed, ``once`` one launch (what ncu
    profiles), ``result`` the output to compare, ``expected`` NumPy's answer, ``poison`` fills the
    output with a value no kernel writes."""

    run: Callable[[], None]
    once: Callable[[], None]
    result: Callable[[], np.ndarray]
    expected: Callable[[], np.ndarray]
    poison: Callable[[], None]
    exact: bool = False


class Inputs:
    """Every kernel's device arrays at ``sizes``, filled from ``seed`` (None: fresh random inputs)."""

    def __init__(self, sizes: Sizes, seed: int | None = 5):
        self.sizes = sizes
        rng = np.random.default_rng(seed)
        side, n = sizes.matrix_side, sizes.elements
        self.matrix = rng.random((side, side), dtype=np.float32)
        self.d_matrix = cuda.to_device(self.matrix)
        self.d_matrix_out = cuda.device_array_like(self.d_matrix)
        self.vector = rng.random(n, dtype=np.float32)
        self.d_vector = cuda.to_device(self.vector)
        self.d_vector_out = cuda.device_array_like(self.d_vector)
        slice_n = sizes.slices * sizes.slice_elements
        self.slices = rng.random(slice_n, dtype=np.float32)
        self.d_slices = cuda.to_device(self.slices)
        self.d_slices_out = cuda.device_array_like(self.d_slices)
        self.x_stream = rng.random(sizes.stream_elements, dtype=np.float32)
        self.y_stream = rng.random(sizes.stream_elements, dtype=np.float32)
        self.d_x_stream = cuda.to_device(self.x_stream)
        self.d_y_stream = cuda.to_device(self.y_stream)
        self.d_copy_out = cuda.device_array_like(self.d_x_stream)
        self.hist_values = rng.random(m.HIST_ITEMS * sizes.hist_threads, dtype=np.float32)
        self.d_hist_values = cuda.to_device(self.hist_values)
        self.d_counts = cuda.device_array((m.BINS, sizes.hist_threads), dtype=np.int32)
        self.nodes, order = m.list_nodes(sizes.list_nodes, rng)
        self.starts = m.walk_starts(order, sizes.walk_warps)
        self.d_nodes = cuda.to_device(self.nodes)
        self.d_starts = cuda.to_device(self.starts)
        self.d_walk_out = cuda.device_array(sizes.walk_warps * m.NODE_WORDS, dtype=np.int32)

    def reset_stream(self) -> None:
        """kernel_e updates y in place: put y back before a checked run."""
        self.d_y_stream.copy_to_device(self.y_stream)

    def works(self) -> dict[str, Work]:
        """Each profiled kernel's work, by kernel name."""
        s = self.sizes
        side_grid, side_block = m.transpose_shape(s.matrix_side)
        vec_grid = _blocks(s.elements)
        hist_grid = s.hist_threads // m.THREADS
        walk_grid = s.walk_blocks
        nan_f = lambda array: lambda: array.copy_to_device(np.full(array.shape, np.nan, np.float32))  # noqa: E731
        neg_i = lambda array: lambda: array.copy_to_device(np.full(array.shape, -1, np.int32))  # noqa: E731
        matrix_a = lambda k: lambda: k[_blocks(s.matrix_side ** 2), m.THREADS](  # noqa: E731
            self.d_matrix, self.d_matrix_out, SCALE)
        vector = lambda k: lambda: k[vec_grid, m.THREADS](self.d_vector, self.d_vector_out)  # noqa: E731
        transpose = lambda k: lambda: k[side_grid, side_block](self.d_matrix, self.d_matrix_out)  # noqa: E731
        hist = lambda k: lambda: k[hist_grid, m.THREADS](self.d_hist_values, self.d_counts)  # noqa: E731
        walk = lambda k: lambda: k[walk_grid, m.THREADS](  # noqa: E731
            self.d_nodes, self.d_starts, self.d_walk_out, s.walk_steps, 0, m.A)
        first_slice = lambda: m.kernel_c[_blocks(s.slice_elements), m.THREADS](  # noqa: E731
            self.d_slices[:s.slice_elements], self.d_slices_out[:s.slice_elements], SCALE, SHIFT)
        out = {}
        for name, kernel, expected in (("kernel_a", m.kernel_a, lambda: m.scale_reference(self.matrix, SCALE)),
                                       ("kernel_a_repaired", m.kernel_a_repaired,
                                        lambda: m.scale_reference(self.matrix, SCALE))):
            out[name] = Work(matrix_a(kernel), matrix_a(kernel), self.d_matrix_out.copy_to_host, expected,
                             nan_f(self.d_matrix_out))
        out["kernel_b"] = Work(vector(m.kernel_b), vector(m.kernel_b), self.d_vector_out.copy_to_host,
                               lambda: m.chain_reference(self.vector, np.float64), nan_f(self.d_vector_out))
        out["kernel_b_repaired"] = Work(vector(m.kernel_b_repaired), vector(m.kernel_b_repaired),
                                        self.d_vector_out.copy_to_host,
                                        lambda: m.chain_reference(self.vector, np.float32), nan_f(self.d_vector_out))
        out["kernel_c"] = Work(lambda: m.run_c(self.d_slices, self.d_slices_out, SCALE, SHIFT, s.slice_elements),
                               first_slice, self.d_slices_out.copy_to_host,
                               lambda: m.affine_reference(self.slices, SCALE, SHIFT), nan_f(self.d_slices_out))
        repaired_c = lambda: m.run_c_repaired(self.d_slices, self.d_slices_out, SCALE, SHIFT)  # noqa: E731
        out["kernel_c_repaired"] = Work(repaired_c, repaired_c, self.d_slices_out.copy_to_host,
                                        lambda: m.affine_reference(self.slices, SCALE, SHIFT),
                                        nan_f(self.d_slices_out))
        for name, kernel in (("kernel_d", m.kernel_d), ("kernel_d_repaired", m.kernel_d_repaired)):
            out[name] = Work(transpose(kernel), transpose(kernel), self.d_matrix_out.copy_to_host,
                             lambda: np.ascontiguousarray(self.matrix.T), nan_f(self.d_matrix_out), exact=True)
        stream = lambda: m.kernel_e[m.e_blocks(s.stream_elements), m.THREADS](  # noqa: E731
            self.d_x_stream, self.d_y_stream, SCALE)

        def stream_checked():
            self.reset_stream()
            stream()

        out["kernel_e"] = Work(stream, stream_checked, self.d_y_stream.copy_to_host,
                               lambda: (SCALE * self.x_stream + self.y_stream).astype(np.float32),
                               lambda: None)
        for name, kernel in (("kernel_f", m.kernel_f), ("kernel_f_repaired", m.kernel_f_repaired)):
            out[name] = Work(hist(kernel), hist(kernel), self.d_counts.copy_to_host,
                             lambda: m.histogram_reference(self.hist_values, s.hist_threads), neg_i(self.d_counts),
                             exact=True)
        for name, kernel in (("kernel_g", m.kernel_g), ("kernel_g_repaired", m.kernel_g_repaired)):
            out[name] = Work(walk(kernel), walk(kernel), self.d_walk_out.copy_to_host,
                             lambda: m.walk_reference(self.nodes, self.starts, s.walk_steps), neg_i(self.d_walk_out),
                             exact=True)
        for name, kernel in (("kernel_h", m.kernel_h), ("kernel_h_repaired", m.kernel_h_repaired)):
            out[name] = Work(vector(kernel), vector(kernel), self.d_vector_out.copy_to_host,
                             lambda: m.parity_reference(self.vector), nan_f(self.d_vector_out))
        return out

    def copy(self) -> None:
        """Lab 01's copy (copy_wide) of stream_elements float32: checked here; the ceiling itself is
        the course's (labkit.labs.ceilings), measured on its own arrays."""
        copy_wide[copy_blocks(self.sizes.stream_elements, m.THREADS), m.THREADS](self.d_x_stream, self.d_copy_out)


# ----- checks against NumPy (simulator and GPU alike) ------------------------------------------
def check_against_numpy(sizes: Sizes) -> list[Check]:
    """Every kernel once on fresh random inputs, its output poisoned first, against NumPy."""
    inputs = Inputs(sizes, seed=None)
    checks = []
    for name, work in inputs.works().items():
        work.poison()
        work.once() if name == "kernel_e" else work.run()
        got, want = work.result(), work.expected()
        passed = np.array_equal(got, want) if work.exact else np.allclose(got, want, rtol=1e-4, atol=1e-6)
        checks.append(Check(name=name, passed=bool(passed)))
    inputs.copy()
    checks.append(Check(name="copy ceiling (lab 01's copy_wide)",
                        passed=bool(np.array_equal(inputs.d_copy_out.copy_to_host(), inputs.x_stream))))
    return checks


# ----- timings --------------------------------------------------------------------------------------
def time_pairs(inputs: Inputs, time_gpu, repeats: int) -> list[Pair]:
    """Each mystery and its twin, alone, with the chapter's timer."""
    works = inputs.works()
    pairs = []
    for mystery in MYSTERIES:
        flush = mystery in FLUSHED
        count = LAUNCH_HEAVY_REPEATS if mystery == "c" else repeats
        faulty = time_gpu(works[f"kernel_{mystery}"].run, warmup=3, repeats=count, flush_l2=flush)
        repaired = None if mystery == CONTROL else time_gpu(works[f"kernel_{mystery}_repaired"].run, warmup=3,
                                                            repeats=count, flush_l2=flush)
        pairs.append(Pair(mystery=mystery, faulty=faulty, repaired=repaired))
    return pairs


# ----- Nsight Compute: every kernel once, one ncu process -------------------------------------------
def profile_target(sizes: Sizes) -> None:
    """What ncu profiles: each mystery kernel and each twin launched once (compiled on that launch)."""
    inputs = Inputs(sizes)
    for name, work in inputs.works().items():
        work.once()
    cuda.synchronize()


def nsight_compute(work_dir: Path) -> NcuProfiles | Unavailable:
    """Profile the target under ncu (--set full, clocks left alone) and keep what the diagnosis reads."""
    from labkit.profiling import diagnosis
    from labkit.profiling.lab_profile import profile_lab

    return profile_lab("labkit.labs.lab05.program", NCU_REGEX, work_dir,
                       lambda run: NcuProfiles(status="ok", kernels=[diagnosis.StoredProfile.of(p) for p in run.profiles
                                                                     if p.name in PROFILED_KERNELS]),
                       lambda reason: Unavailable(status="unavailable", reason=reason),
                       pages=("raw", "details"), report="lab05", timeout_seconds=600)


# ----- the whole lab ----------------------------------------------------------------------------------
class Lab05Program(Program[Sizes, Lab05Results]):
    def check(self, sizes: Sizes) -> list[Check]:
        return check_against_numpy(sizes)

    def measure(self, bench: Bench, sizes: Sizes) -> Lab05Results:
        """Checks at small size, the copy ceiling and every pair timed, then Nsight Compute (skipped
        in the simulator)."""
        from labkit.labs.lab05 import LAB

        bench.progress("checks against NumPy")
        checks = check_against_numpy(LAB.simulator_sizes)
        bench.progress("the copy ceiling, then each mystery kernel and its twin")
        ceiling = measure_copy_ceiling(bench)
        inputs = Inputs(sizes)
        pairs = time_pairs(inputs, bench.time_gpu, sizes.repeats)
        del inputs
        bench.progress("Nsight Compute on every kernel, one ncu process")
        if bench.simulated:
            profiles = Unavailable(status="unavailable", reason="kernels ran in the Numba CUDA simulator")
        else:
            profiles = nsight_compute(bench.work_dir)
        return Lab05Results(sizes=sizes, checks=checks, hbm_peak_gbps=bench.facts.hbm_peak_gbps,
                            copy_ceiling=ceiling.timing, copy_ceiling_bytes=ceiling.copy_bytes, pairs=pairs,
                            ncu=profiles)


def main(argv: list[str]) -> int:
    """Entry point for the profiler's child process."""
    from labkit.labs.lab05 import LAB

    if argv == ["profile-target"]:
        from labkit.gpu.device import read_device_facts

        profile_target(LAB.sizes_for(read_device_facts()))
    else:
        raise SystemExit("usage: python -m labkit.labs.lab05.program profile-target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
