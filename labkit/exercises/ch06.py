"""Chapter 6's exercises: the matrix multiply's shared tiles.

- ``06-padding``: step 2's kernel (labkit.kernels.gemm_simt.gemm_shared): 32 x 32 tiles, the A tile
  stored k-major (``sa[k, m]``) without padding. The 32 lanes of a warp store one column of it, 32
  words 32 words apart, all in one bank: 31 conflicts per store. One word of padding per row (or an
  XOR swizzle) removes them; the kernel must stay right and keep the k-major layout's reads.
- ``06-regtile``: a 32 x 32 shared-tile kernel, one element of C per thread: 32 FLOP per shared
  wavefront (labkit.models.workloads.gemm_flops_per_wavefront). Each thread computing a block of C held
  in registers raises that to 32 r FLOP per wavefront for r x r blocks; the criterion asks for 128,
  which our solution's 4 x 4 blocks reach (step 3 of the chapter goes to 8 x 8: 256).

On a GPU (what the time ratio should show, and why):

``06-padding``, skeleton against our padded tile (step 2b), 4096^3. Per tile of 32 along K a warp
issues 64 conflict-free loads (32 of sa, broadcasts, and 32 of sb) and 2 stores; the skeleton's
store into sa costs 32 wavefronts instead of 1, so 97 wavefronts against 66 per warp and tile. The
kernel does 32 FMA per 2 wavefronts: it is bound by shared memory (chapter 1's roof of one output
per thread), so the skeleton is expected about 1.4 times slower; on the H200 (probe run 2 of
labkit.calibration.gemm_probe, 4096^3) it took 1.37 times our time. The target, 1.15, passes any
conflict-free store and fails the skeleton.

``06-regtile``, skeleton (one output per thread) against our 4 x 4 register tile. The skeleton is
held to its shared-memory roof, 32 FLOP per wavefront (1/8 of the FP32 peak), ours to 128 (half of
it); neither reaches its roof in Numba, and on the H200 (probe run 2, 4096^3) the skeleton took
1.61 times our time. The target, 1.3, fails it and leaves room for a 4 x 4 tile laid out
differently from ours (an 8 x 8 tile, step 3, is faster still: 0.91 of ours in the same run).
"""

from __future__ import annotations

import numpy as np

from labkit.chapters import page
from labkit.exercises.spec import CORRECT, Criterion, Exercise, Metric

CHAPTER = page(6)

#: (M, N, K) of a check in the simulator and on a GPU. Each simulated thread runs its Python code on
#: its own, so these are the smallest sizes at which each criterion still judges what it claims.
#: 06-padding: two 32 x 32 tiles of C along N (a block index mixed up, blockIdx.x for the A tile's rows, reads past A
#: or writes the other tile) and two slices of K (an index that depends on k0, a tile loaded once
#: for all slices, is wrong from the second slice on); a store's conflicts are the same at any size.
#: 06-regtile: one 64 x 64 tile (the smallest our solution and the 8 x 8 alternative compute: the
#: learner's file promises sides that are multiples of 64), one slice of 32 (the skeleton's tile);
#: FLOP per wavefront is a ratio per step of k, the same at any size. The skeleton's 4 096 threads
#: (06-padding's two blocks: 2 048) are what the simulator can trace within a check's time.
PADDING_SIMULATOR = (32, 64, 64)
REGTILE_SIMULATOR = (64, 64, 32)
GPU_SIDE = 4096
#: FLOP per shared-memory wavefront the register-tiled kernel must reach: 4 x 4 blocks of C.
REGTILE_MIN_FLOPS_PER_WAVEFRONT = 128.0


def _shape(exercise_id: str, elements: int, simulator: tuple[int, int, int]) -> tuple[int, int, int]:
    shapes = {simulator[0] * simulator[1]: simulator, GPU_SIDE * GPU_SIDE: (GPU_SIDE, GPU_SIDE, GPU_SIDE)}
    if elements not in shapes:
        raise ValueError(f"{exercise_id} has no product with {elements} elements of C: {sorted(shapes)}")
    return shapes[elements]


def _inputs(exercise_id: str, simulator: tuple[int, int, int]):
    """a (M x K) and b (K x N) uniform on [-1, 1), c (M x N) to write."""
    def inputs(elements: int, rng: np.random.Generator) -> dict[str, object]:
        m, n, k = _shape(exercise_id, elements, simulator)
        return {"a": rng.uniform(-1, 1, (m, k)).astype(np.float32), "b": rng.uniform(-1, 1, (k, n)).astype(np.float32),
                "c": np.empty((m, n), np.float32)}
    return inputs


def _expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    """NumPy's product in float64, rounded to float32 once."""
    return {"c": (inputs["a"].astype(np.float64) @ inputs["b"].astype(np.float64)).astype(np.float32)}


def flops_per_shared_wavefront(evidence) -> float:
    """2 M N K FLOP / the wavefronts of every shared-memory load (labkit.models.access's count), at the
    simulator's shape: how many FLOP each wavefront of shared memory feeds."""
    from labkit.models.access import Op, Space

    m, n, k = REGTILE_SIMULATOR
    wavefronts = evidence.counts.of(Space.SHARED, Op.LOAD).wavefronts
    return 2.0 * m * n * k / wavefronts if wavefronts else 0.0


#: The tolerance of a check: FP32 accumulation over K = 4096 on inputs from [-1, 1) errs by up to a
#: few 1e-3 (labkit.kernels.gemm_accuracy's bound, about 0.03 against float64); an element that
#: forgot a slice of 32 terms is off by about 2.
RTOL, ATOL = 1e-5, 0.05

EXERCISES = [
    Exercise(
        id="06-padding",
        chapter=CHAPTER,
        learner_file="labs/06-matmul/exercises/shared_tile.py",
        solution="shared_padded",
        entries={"run": ("a", "b", "c")},
        inputs=_inputs("06-padding", PADDING_SIMULATOR),
        outputs=("c",),
        expected=_expected,
        criteria=(
            Criterion(CORRECT, "simulator", section="shared", hint="exercise.06-padding.hint.correct"),
            Criterion("shared_conflicts_per_request", "simulator", section="shared",
                      hint="exercise.06-padding.hint.conflicts", at_most=0.0),
            Criterion("time_ratio", "gpu", section="shared", hint="exercise.06-padding.hint.time", at_most=1.15),
        ),
        skeleton_fails=("shared_conflicts_per_request", "time_ratio"),
        simulator_elements=PADDING_SIMULATOR[0] * PADDING_SIMULATOR[1],
        gpu_elements=GPU_SIDE * GPU_SIDE,
        flush_l2=False,
        rtol=RTOL,
        atol=ATOL,
    ),
    Exercise(
        id="06-regtile",
        chapter=CHAPTER,
        learner_file="labs/06-matmul/exercises/register_tile.py",
        solution="register_tile",
        entries={"run": ("a", "b", "c")},
        inputs=_inputs("06-regtile", REGTILE_SIMULATOR),
        outputs=("c",),
        expected=_expected,
        criteria=(
            Criterion(CORRECT, "simulator", section="regtile", hint="exercise.06-regtile.hint.correct"),
            Criterion("flops_per_shared_wavefront", "simulator", section="regtile",
                      hint="exercise.06-regtile.hint.wavefronts", at_least=REGTILE_MIN_FLOPS_PER_WAVEFRONT),
            Criterion("time_ratio", "gpu", section="regtile", hint="exercise.06-regtile.hint.time", at_most=1.3),
        ),
        shown=("shared_conflicts_per_request",),
        skeleton_fails=("flops_per_shared_wavefront", "time_ratio"),
        simulator_elements=REGTILE_SIMULATOR[0] * REGTILE_SIMULATOR[1],
        gpu_elements=GPU_SIDE * GPU_SIDE,
        flush_l2=False,
        rtol=RTOL,
        atol=ATOL,
        own_metrics=(Metric("flops_per_shared_wavefront", "simulator", 0, flops_per_shared_wavefront),),
    ),
]
