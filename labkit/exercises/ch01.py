"""Chapter 1's exercises: count the bytes, then make the time follow them.

- ``01-fuse``: SAXPY then ReLU in two kernels writes and reads a temporary array: 20 bytes per
  element where 12 are needed. Fusing them into one kernel brings the bytes to the floor.
- ``01-reduce``: a sum with one atomic add per element is right and hundreds of times slower than
  the memory allows; per-thread sums, a block reduction and one atomic per block bring it to the
  speed of its bytes.

On the H200 our two solutions, one simple element per thread in the loop, run at about three
quarters of the copy ceiling (t_real / t_min in chapter 1's fine-tuning band, recorded by
tests/gpu/test_exercises_gpu.py): the rest takes more loads in flight per thread, which is
chapter 3's lesson and exercise 03-ilp. The targets are against these solutions.
"""

from __future__ import annotations

import numpy as np

from labkit.chapters import page
from labkit.exercises.spec import CORRECT, Criterion, Exercise

CHAPTER = page(1)
SAXPY_A = np.float32(2.0)


def _fuse_inputs(n: int, rng: np.random.Generator) -> dict[str, object]:
    return {"a": SAXPY_A, "x": rng.standard_normal(n, dtype=np.float32),
            "y": rng.standard_normal(n, dtype=np.float32),
            "out": np.empty(n, np.float32), "tmp": np.empty(n, np.float32)}


def _fuse_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    return {"out": np.maximum(inputs["a"] * inputs["x"] + inputs["y"], np.float32(0))}


#: Share of ones among the reduction's inputs (the rest are zeros).
ONES_SHARE = 0.125


def _reduce_inputs(n: int, rng: np.random.Generator) -> dict[str, object]:
    """Zeros and ones, one in eight a one: at the GPU size (2^26) the sum stays near 2^23, so every
    partial sum is an integer float32 holds exactly, in any order: the sum is compared exactly and
    a missed element that holds a one shows."""
    return {"x": (rng.random(n) < ONES_SHARE).astype(np.float32), "out": np.empty(1, np.float32)}


def _reduce_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    return {"out": np.array([inputs["x"].sum(dtype=np.float64)], np.float32)}


EXERCISES = [
    Exercise(
        id="01-fuse",
        chapter=CHAPTER,
        learner_file="labs/01-roofline/exercises/fuse.py",
        solution="fuse",
        entries={"run": ("a", "x", "y", "out", "tmp")},
        inputs=_fuse_inputs,
        outputs=("out",),
        scratch=("tmp",),
        floor_bytes_per_element=12,
        expected=_fuse_expected,
        criteria=(
            Criterion(CORRECT, "simulator", section="ex-saxpy", hint="exercise.01-fuse.hint.correct"),
            Criterion("dram_bytes_per_element", "simulator", section="intensity",
                      hint="exercise.01-fuse.hint.bytes", at_most=12.5),
            Criterion("time_ratio", "gpu", section="t-min", hint="exercise.01-fuse.hint.time", at_most=1.15),
        ),
        shown=("launches", "gbps"),
        skeleton_fails=("dram_bytes_per_element", "time_ratio"),
        simulator_elements=2048,
        gpu_elements=1 << 26,
    ),
    Exercise(
        id="01-reduce",
        chapter=CHAPTER,
        learner_file="labs/01-roofline/exercises/reduce.py",
        solution="reduce",
        entries={"total": ("x", "out")},
        inputs=_reduce_inputs,
        outputs=("out",),
        expected=_reduce_expected,
        floor_bytes_per_element=4,
        criteria=(
            Criterion(CORRECT, "simulator", section="ex-reduction", hint="exercise.01-reduce.hint.correct"),
            Criterion("atomics_per_element", "simulator", section="ex-reduction",
                      hint="exercise.01-reduce.hint.atomics", at_most=0.01),
            Criterion("time_ratio", "gpu", section="verdict", hint="exercise.01-reduce.hint.time", at_most=1.25),
        ),
        shown=("dram_bytes_per_element", "gbps"),
        skeleton_fails=("atomics_per_element", "time_ratio"),
        simulator_elements=4096,
        gpu_elements=1 << 26,
        rtol=0.0,
        atol=0.0,
    ),
]
