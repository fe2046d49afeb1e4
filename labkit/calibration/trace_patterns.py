"""Numba kernels whose traced counts are held to Nsight Compute's: the access tracer's own calibration.

labkit.calibration.access_probe calibrates the analyzer on address lists (one CUDA C instruction per
pattern). This set calibrates the other path, the one the exercises and lab 02 use: a Numba kernel
run in the simulator and traced (labkit.simulator.trace), its lanes grouped into warp instructions by
program point and visit. Each pattern is one launch of a small Numba kernel: broadcasts, strides,
masked lanes, 1-, 2-, 4- and 8-byte elements, complex128 (two 8-byte accesses), loops, several warps
and blocks. On a GPU, :mod:`labkit.calibration.trace_probe` profiles each launch with ncu; in the
simulator, :func:`traced_metrics` counts the same launch from its trace; the CPU tests require the
two equal, metric by metric, and the trace identical in every fresh process.

Every pattern fills what it reads and stores what it loads, so that the compiler keeps each access
the source makes, and no more: a kernel whose SASS merged or split an access would show as a
difference against ncu, which is the point of the calibration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from labkit.gpu import cuda
from numba import types  # noqa: E402  (after labkit.gpu's backend choice)
from labkit.kernels.jit import kernel

#: A pattern's shared buffer, in elements of 4 bytes (32 KiB: the broadcast case of issue 28).
SHARED_WORDS = 8192
#: The same 32 KiB in bytes and in doubles (a shared array's shape must be a constant, not an expression).
SHARED_BYTES = 4 * SHARED_WORDS
SHARED_DOUBLES = SHARED_WORDS // 2


@kernel
def shared_broadcast_f32(out):
    """Every lane fills a stride-32 share of a float32 tile, then every lane reads tile[0]."""
    tile = cuda.shared.array(SHARED_WORDS, types.float32)
    i = cuda.threadIdx.x
    for j in range(i, SHARED_WORDS, 32):
        tile[j] = j
    cuda.syncthreads()
    out[i] = tile[0]


@kernel
def shared_strided_f32(out, stride):
    """Fill the tile coalesced, then lane i reads tile[i * stride]."""
    tile = cuda.shared.array(SHARED_WORDS, types.float32)
    i = cuda.threadIdx.x
    for j in range(i, SHARED_WORDS, 32):
        tile[j] = j
    cuda.syncthreads()
    out[i] = tile[i * stride]


@kernel
def shared_masked_u8(out, stride):
    """Lanes whose index is not a multiple of 3 store one byte at tile[i * stride]; then every lane
    reads its byte back (1-byte shared stores, some lanes inactive)."""
    tile = cuda.shared.array(SHARED_BYTES, types.uint8)
    i = cuda.threadIdx.x
    if i % 3 != 0:
        tile[i * stride] = i
    cuda.syncthreads()
    out[i] = tile[i * stride]


@kernel
def shared_strided_f64(out, stride):
    """8-byte shared elements: fill coalesced, then lane i reads tile[i * stride]."""
    tile = cuda.shared.array(SHARED_DOUBLES, types.float64)
    i = cuda.threadIdx.x
    for j in range(i, SHARED_DOUBLES, 32):
        tile[j] = j
    cuda.syncthreads()
    out[i] = tile[i * stride]


@kernel
def shared_transpose_2warps(out):
    """Two warps (block 32 x 2) write a 32 x 32 float32 tile by rows and read it by columns."""
    tile = cuda.shared.array((32, 32), types.float32)
    x, y = cuda.threadIdx.x, cuda.threadIdx.y
    for r in range(y, 32, 2):
        tile[r, x] = r * 32 + x
    cuda.syncthreads()
    for r in range(y, 32, 2):
        out[r * 32 + x] = tile[x, r]


@kernel
def global_broadcast_f32(x, out):
    """Every lane reads x[0] and stores it coalesced."""
    i = cuda.threadIdx.x
    out[i] = x[0]


@kernel
def global_strided_load(x, out, stride):
    """Lane i of block b reads x[(b * 32 + i) * stride] and stores it coalesced."""
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    out[i] = x[i * stride]


@kernel
def global_strided_store(x, out, stride):
    """Coalesced loads, stores at out[i * stride]."""
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    out[i * stride] = x[i]


@kernel
def global_masked_store_f64(x, out):
    """Even lanes copy an 8-byte element, odd lanes do nothing."""
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    if i % 2 == 0:
        out[i] = x[i]


@kernel
def global_loop_f32(x, out, rounds):
    """Each lane reads ``rounds`` elements one warp apart and stores their sum."""
    i = cuda.threadIdx.x
    acc = np.float32(0)
    for k in range(rounds):
        acc += x[k * 32 + i]
    out[i] = acc


@kernel
def global_copy_c128(x, out):
    """complex128 elements: each copy is two 8-byte accesses (LDG.E.64 at +0 and +8)."""
    i = cuda.blockIdx.x * cuda.blockDim.x + cuda.threadIdx.x
    out[i] = x[i]


@dataclass(frozen=True)
class TracePattern:
    """One launch: a name, its kernel, grid and block, and how to build its arguments (NumPy arrays
    and scalars; the GPU side copies the arrays to the device)."""

    name: str
    kernel: Callable
    grid: int
    block: tuple[int, ...]
    arguments: Callable[[], tuple]


def _f32(n: int) -> np.ndarray:
    return np.arange(n, dtype=np.float32)


def patterns() -> list[TracePattern]:
    """The calibration set, in launch order."""
    out = [TracePattern("shared-broadcast-f32", shared_broadcast_f32, 1, (32,), lambda: (np.zeros(32, np.float32),))]
    for stride in (1, 2, 4, 16, 32, 33):
        out.append(TracePattern(f"shared-stride{stride}-f32", shared_strided_f32, 1, (32,),
                                lambda s=stride: (np.zeros(32, np.float32), s)))
    for stride in (1, 4, 128, 257):
        out.append(TracePattern(f"shared-masked-stride{stride}-u8", shared_masked_u8, 1, (32,),
                                lambda s=stride: (np.zeros(32, np.uint8), s)))
    for stride in (1, 2, 16):
        out.append(TracePattern(f"shared-stride{stride}-f64", shared_strided_f64, 1, (32,),
                                lambda s=stride: (np.zeros(32, np.float64), s)))
    out.append(TracePattern("shared-transpose-2warps", shared_transpose_2warps, 1, (32, 2),
                            lambda: (np.zeros(1024, np.float32),)))
    out.append(TracePattern("global-broadcast-f32", global_broadcast_f32, 1, (32,),
                            lambda: (_f32(32), np.zeros(32, np.float32))))
    for dtype in (np.uint8, np.uint16, np.float32, np.float64):
        for stride in (1, 2, 33):
            size = np.dtype(dtype).itemsize
            out.append(TracePattern(f"global-load-stride{stride}-{size}B", global_strided_load, 2, (32,),
                                    lambda d=dtype, s=stride: (np.zeros(64 * s, d), np.zeros(64, d), s)))
    for dtype in (np.uint8, np.float32):
        for stride in (2, 64):
            size = np.dtype(dtype).itemsize
            out.append(TracePattern(f"global-store-stride{stride}-{size}B", global_strided_store, 2, (32,),
                                    lambda d=dtype, s=stride: (np.zeros(64, d), np.zeros(64 * s, d), s)))
    out.append(TracePattern("global-masked-store-f64", global_masked_store_f64, 2, (32,),
                            lambda: (np.arange(64, dtype=np.float64), np.zeros(64, np.float64))))
    out.append(TracePattern("global-loop4-f32", global_loop_f32, 1, (32,),
                            lambda: (_f32(128), np.zeros(32, np.float32), 4)))
    out.append(TracePattern("global-copy-c128", global_copy_c128, 2, (32,),
                            lambda: (np.arange(64).astype(np.complex128), np.zeros(64, np.complex128))))
    return out


def traced_metrics(pattern: TracePattern) -> dict[str, int]:
    """The analyzer's value of each ncu counter (labkit.models.access.NCU_METRICS) for the pattern's launch,
    from its trace in the simulator."""
    from labkit.simulator.trace import trace_launch

    return trace_launch(pattern.kernel, pattern.grid, pattern.block, *pattern.arguments()).counts().ncu_metrics()


def course_launches() -> dict[str, dict[str, int]]:
    """The counts of one launch of each kind of lab 02 (at the H200 record's sizes, its first blocks
    traced and scaled to the grid), by launch name: the course's own kernels."""
    from pathlib import Path

    from labkit.labs.base import lab
    from labkit.labs.lab02 import plan
    from labkit.labs.lab02.analysis import predict
    from labkit.project import Project
    from labkit.records.files import read_results

    definition = lab("lab-02")
    record = definition.lab_dir(Project(Path(__file__).resolve().parents[2])) / "results/nvidia-h200.json"
    results = read_results(record, definition.results_type, definition.id).results
    chosen: dict[tuple, object] = {}
    for launch in plan.launches(results.sizes, results.device.sm_count):
        chosen.setdefault((launch.step, launch.kernel), launch)
    return {launch.name: predict(launch).model_dump() for launch in chosen.values()}


def solution_launches() -> dict[str, list[dict[str, int]]]:
    """Every exercise's solution run at its simulator size on inputs of a fixed seed: each launch's
    counts (labkit.models.access.NCU_METRICS), by exercise."""
    import importlib

    from labkit.exercises import exercises
    from labkit.exercises.guarded import Guarded
    from labkit.exercises.watch import watched

    out = {}
    for exercise_id, exercise in exercises().items():
        module = importlib.import_module(f"labkit.exercises.solutions.{exercise.solution}")
        inputs = exercise.inputs(exercise.simulator_elements, np.random.default_rng(20261202))
        run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
        with watched(exercise.simulator_elements, module) as evidence:
            exercise.call(module, run.args)
        out[exercise_id] = [launch.counts.ncu_metrics() for launch in evidence.launches]
    return out


def digest() -> dict:
    """What the determinism test compares between fresh processes: every pattern's traced counts,
    the course's lab 02 launches and every exercise's solution."""
    return {"patterns": {p.name: traced_metrics(p) for p in patterns()},
            "lab02": course_launches(), "solutions": solution_launches()}


if __name__ == "__main__":   # python -m labkit.calibration.trace_patterns: the digest, as JSON
    import json
    import sys

    json.dump(digest(), sys.stdout, sort_keys=True)
