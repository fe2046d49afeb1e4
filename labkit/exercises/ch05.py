"""Chapter 5's exercises: a mystery kernel of lab 05, diagnosed with the checklist, then fixed.

The learner gets a mystery kernel as lab 05 runs it, with the command that shows what Nsight
Compute recorded for it on our H200 (``labkit diagnose labs/05-checklist/results/nvidia-h200/ -k
kernel_x``); the criteria are the symptom of the checklist item that fires first, measured in the
simulator, and the time on a GPU.

- ``05-mystery-a``: ``kernel_a``, neighbouring threads down a column of a row-major matrix. Item:
  coalescing; criteria: sectors per request of the global loads and of the stores (4 when a warp
  reads 128 contiguous bytes, 32 when each lane has its own sector).
- ``05-mystery-h``: ``kernel_h``, even and odd elements on different paths in every warp. Item:
  divergence; criterion: active threads per warp instruction (:func:`active_threads`, this
  exercise's own metric, the simulator's counterpart of ncu's
  ``smsp__thread_inst_executed_per_inst_executed.ratio``), at least the checklist's threshold, the
  one of ncu's ThreadDivergence rule.

GPU targets (time_ratio: the learner's median time over ours, median of three rounds):

- ``05-mystery-a`` at 4096 x 4096 (lab 05's matrix), target 1.2. Ours is lab 05's twin (the two
  index lines swapped). The skeleton's warp loads and stores each touch 32 sectors and use 4 bytes
  of each: the L1 and the L2 move 8 times the sectors the twin needs, and the kernel runs at the
  L2's sector rate instead of the DRAM's bytes, several times ours (lab 05's record of the same
  pair agrees). A 2-D grid that puts x on the rows keeps the flaw: the other warps of its block may
  find the loaded sectors in L1, but every warp store still writes 32 partial sectors to L2, and
  strided stores alone cost several times a coalesced kernel (lab 04's transpose_naive, coalesced
  reads and strided writes, against its tiled repair).
- ``05-mystery-h`` at 2^24 elements (lab 05's vector), target 1.15. Ours is lab 05's twin (each
  pair of warps takes 64 consecutive elements, the first warp the even ones, the second the odd
  ones). Both kernels are bound by instruction issue: a float32 FMA chain of 128 steps per element,
  few bytes. In the skeleton every warp issues both paths, the 128 single steps with its odd lanes
  idle and the 64 double steps with its even lanes idle, where a warp of the twin issues one path;
  only the instructions before and after the branch are shared. Issuing well over 1.15 times the
  warp instructions, the skeleton cannot come within 1.15 of our time (lab 05's record of the same
  pair, at the same size, agrees). Timed without flushing L2: the kernel is compute-bound.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections import Counter, defaultdict
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from labkit.chapters import page
from labkit.exercises.matrices import matrix_shape
from labkit.exercises.spec import CORRECT, Criterion, Exercise, Metric
from labkit.kernels.mysteries_launch import parity_reference
from labkit.models.access import WARP_LANES
from labkit.profiling.checklist import DIVERGENCE_THREADS
from labkit.simulator import threads as simulator_threads

if TYPE_CHECKING:
    from labkit.exercises.watch import Evidence

CHAPTER = page(5)

# ----- 05-mystery-a: y = a·x on a matrix ------------------------------------------------------------
#: The matrix in the simulator (rows of 72 floats start on 32-byte sector boundaries; neither side
#: a multiple of the other, so swapped divisors show) and on a GPU (lab 05's, 4096 x 4096).
SCALE_SIMULATOR_SHAPE = (40, 72)
SCALE_GPU_SIDE = 4096
#: Lab 05's scale factor.
SCALE = np.float32(1.5)


def _scale_inputs(n: int, rng: np.random.Generator) -> dict[str, object]:
    rows, cols = matrix_shape("05-mystery-a", n, SCALE_SIMULATOR_SHAPE, SCALE_GPU_SIDE)
    return {"x": rng.random((rows, cols), dtype=np.float32), "y": np.empty((rows, cols), np.float32), "a": SCALE}


def _scale_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    return {"y": (inputs["a"] * inputs["x"]).astype(np.float32)}


# ----- 05-mystery-h: even and odd elements, two maps --------------------------------------------------
#: The vector in the simulator: two blocks of 256 threads, the last 32 elements missing, so that a
#: remapping of threads to elements meets the end of the vector inside a warp.
PARITY_SIMULATOR_ELEMENTS = 480
PARITY_GPU_ELEMENTS = 1 << 24


def _parity_inputs(n: int, rng: np.random.Generator) -> dict[str, object]:
    return {"x": rng.random(n, dtype=np.float32), "y": np.empty(n, np.float32)}


def _parity_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    """Lab 05's reference (labkit.kernels.mysteries_launch.parity_reference)."""
    return {"y": parity_reference(inputs["x"])}


def _parity_call(module, args: dict[str, object]) -> None:
    module.run(args["x"], args["y"])


# ----- the divergence metric ----------------------------------------------------------------------------
def _not_kernel_code() -> tuple[str, ...]:
    """Where the Python that a simulated thread runs is not the kernel's: Numba (the simulator's
    cuda.grid, arrays, fma...), labkit's threads for the simulator, NumPy and the standard library."""
    import numba
    import numba.cuda

    return tuple(str(Path(directory).resolve()) + os.sep for directory in (
        Path(numba.__file__).parent, Path(numba.cuda.__file__).parent, Path(np.__file__).parent,
        sysconfig.get_paths()["stdlib"])) + (str(Path(simulator_threads.__file__).resolve()),)


class _Lines:
    """How many times each simulated thread executed each line of kernel code, by thread: the
    learner's kernels and device functions, and any they import (a kernel of labkit's)."""

    def __init__(self):
        self.skipped = _not_kernel_code()
        self.kernel_code: dict[object, bool] = {}
        self.by_thread: dict[tuple, Counter] = {}

    def is_kernel_code(self, code) -> bool:
        if code not in self.kernel_code:
            self.kernel_code[code] = not os.path.realpath(code.co_filename).startswith(self.skipped)
        return self.kernel_code[code]

    def on_call(self, frame, event, arg):
        """sys.settrace's hook: line events in kernel code run by a simulated thread."""
        if event != "call":
            return None
        thread = simulator_threads.current_thread()
        block = getattr(thread, "blockIdx", None)
        if block is None or not self.is_kernel_code(frame.f_code):
            return None
        counts = self.by_thread.setdefault((tuple(block), thread.thread_id), Counter())
        code = frame.f_code

        def on_line(frame, event, arg):
            if event == "line":
                counts[(code, frame.f_lineno)] += 1
            return on_line

        return on_line

    def active_threads(self) -> float:
        """Lane executions / warp executions: a warp executes a line as many times as its busiest lane
        does, and the n-th execution of each lane joins the warp's n-th (the grouping rule of
        labkit.simulator.trace, on lines instead of memory accesses)."""
        visits: dict[tuple, list[int]] = defaultdict(list)
        for (block, thread_id), counts in self.by_thread.items():
            for point, times in counts.items():
                visits[(block, thread_id // WARP_LANES, point)].append(times)
        warp_executions = sum(max(times) for times in visits.values())
        lane_executions = sum(sum(times) for times in visits.values())
        return lane_executions / warp_executions if warp_executions else float(WARP_LANES)


@contextmanager
def _lines_recorded():
    """Counts lines run within the block by simulated threads (each CUDA thread is a greenlet of this
    Python thread: labkit.simulator.threads)."""
    lines, before = _Lines(), sys.gettrace()
    sys.settrace(lines.on_call)
    try:
        yield lines
    finally:
        sys.settrace(before)


def active_threads(evidence: Evidence) -> float:
    """Active threads per warp instruction, in the simulator: the learner's code runs again on fresh
    inputs of the same size, every line of kernel code that a simulated thread executes is counted
    (the learner's kernels and device functions, and any they import; not Numba's simulator, NumPy
    or the standard library), and lanes are matched into warp instructions by line and visit. A line
    where the warp's lanes took different paths counts once per path, each with the lanes on it;
    32 is a warp whose lanes all run the same lines. Lines stand for instructions: the count is of
    source lines, as ncu's Source Counters attribute instructions to them, not of SASS; what it
    weighs is which lanes run together."""
    from labkit.exercises.learner import learner_code
    from labkit.gpu import cuda

    path = Path(evidence.module.__file__).resolve()
    inputs = _parity_inputs(evidence.elements, np.random.default_rng())
    args = {name: cuda.to_device(value) if isinstance(value, np.ndarray) else value for name, value in inputs.items()}
    with learner_code(path, path.name), _lines_recorded() as lines:
        _parity_call(evidence.module, args)
    return lines.active_threads()


EXERCISES = [
    Exercise(
        id="05-mystery-a",
        chapter=CHAPTER,
        learner_file="labs/05-checklist/exercises/mystery_a.py",
        solution="mystery_a",
        entries={"run": ("x", "y", "a")},
        inputs=_scale_inputs,
        outputs=("y",),
        expected=_scale_expected,
        criteria=(
            Criterion(CORRECT, "simulator", section="kernel-a", hint="exercise.05-mystery-a.hint.correct"),
            Criterion("load_sectors_per_request", "simulator", section="coalescing",
                      hint="exercise.05-mystery-a.hint.sectors", at_most=4.5),
            Criterion("store_sectors_per_request", "simulator", section="coalescing",
                      hint="exercise.05-mystery-a.hint.stores", at_most=4.5),
            Criterion("time_ratio", "gpu", section="roofline", hint="exercise.05-mystery-a.hint.time",
                      at_most=1.2),
        ),
        shown=("dram_bytes_per_element",),
        skeleton_fails=("load_sectors_per_request", "store_sectors_per_request", "time_ratio"),
        simulator_elements=SCALE_SIMULATOR_SHAPE[0] * SCALE_SIMULATOR_SHAPE[1],
        gpu_elements=SCALE_GPU_SIDE * SCALE_GPU_SIDE,
        rtol=0.0,
        atol=0.0,
    ),
    Exercise(
        id="05-mystery-h",
        chapter=CHAPTER,
        learner_file="labs/05-checklist/exercises/mystery_h.py",
        solution="mystery_h",
        entries={"run": ("x", "y")},
        inputs=_parity_inputs,
        outputs=("y",),
        expected=_parity_expected,
        call=_parity_call,
        criteria=(
            Criterion(CORRECT, "simulator", section="kernel-h", hint="exercise.05-mystery-h.hint.correct"),
            Criterion("active_threads", "simulator", section="divergence",
                      hint="exercise.05-mystery-h.hint.divergence", at_least=DIVERGENCE_THREADS),
            Criterion("time_ratio", "gpu", section="step-instructions", hint="exercise.05-mystery-h.hint.time",
                      at_most=1.15),
        ),
        skeleton_fails=("active_threads", "time_ratio"),
        simulator_elements=PARITY_SIMULATOR_ELEMENTS,
        gpu_elements=PARITY_GPU_ELEMENTS,
        flush_l2=False,
        rtol=1e-4,
        atol=1e-6,
        own_metrics=(Metric("active_threads", "simulator", 1, active_threads),),
    ),
]
