"""Our exercise solutions repeat lab kernels on purpose (a learner reads a solution alone, in one
file): each pair below must keep computing the same thing. Both run in the simulator on the same
inputs, with the same launch where the two take one, and must agree exactly (same operations in
the same order); a change to one side that the other does not follow fails here."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pytest

from labkit.exercises.solutions import aos, ilp, mystery_a, mystery_h, profile_chain, profile_transpose, reduce
from labkit.exercises.solutions import transpose as transpose_solution
from labkit.gpu import cuda
from labkit.kernels import coalescing, elementwise, mysteries, reduction, transpose
from labkit.kernels.ilp import stream_copy

RNG = np.random.default_rng(20261201)


@dataclass(frozen=True)
class Twins:
    """A solution and the lab kernel it repeats: each runs on fresh copies of the same inputs and
    returns what it computed."""

    solution: Callable[[dict], np.ndarray]
    lab: Callable[[dict], np.ndarray]
    inputs: Callable[[], dict]


def _transpose_inputs() -> dict:
    return {"source": RNG.random((20, 40), dtype=np.float32)}   # not a multiple of the tile: edges too


def _run_transpose(kernel) -> Callable[[dict], np.ndarray]:
    def run(inputs: dict) -> np.ndarray:
        source = inputs["source"]
        target = cuda.device_array((source.shape[1], source.shape[0]), np.float32)
        grid, block = transpose.launch_shape(*source.shape)
        kernel[grid, block](cuda.to_device(source), target)
        return target.copy_to_host()
    return run


def _sum(kernel) -> Callable[[dict], np.ndarray]:
    def run(inputs: dict) -> np.ndarray:
        out = cuda.to_device(np.zeros(1, np.float32))
        kernel[3, reduction.THREADS](cuda.to_device(inputs["x"]), out)
        return out.copy_to_host()
    return run


def _scale_a(kernel) -> Callable[[dict], np.ndarray]:
    def run(inputs: dict) -> np.ndarray:
        x = inputs["x"]
        y = cuda.device_array(x.shape, np.float32)
        kernel[(x.size + mysteries.THREADS - 1) // mysteries.THREADS, mysteries.THREADS](cuda.to_device(x), y,
                                                                                        np.float32(1.5))
        return y.copy_to_host()
    return run


def _parity(kernel) -> Callable[[dict], np.ndarray]:
    def run(inputs: dict) -> np.ndarray:
        x = inputs["x"]
        y = cuda.device_array(x.shape, np.float32)
        kernel[(x.size + mysteries.THREADS - 1) // mysteries.THREADS, mysteries.THREADS](cuda.to_device(x), y)
        return y.copy_to_host()
    return run


def _chain_solution(inputs: dict) -> np.ndarray:
    y = cuda.device_array(inputs["x"].shape, np.float32)
    profile_chain.normalise(cuda.to_device(inputs["x"]), cuda.to_device(inputs["coefficients"]),
                            inputs["coefficients"], y)
    return y.copy_to_host()


def _chain_lab(inputs: dict) -> np.ndarray:
    y = cuda.to_device(inputs["x"])
    elementwise.fused_chain[(y.size + 255) // 256, 256](y, cuda.to_device(inputs["coefficients"]))
    return y.copy_to_host()


def _drift_solution(inputs: dict) -> np.ndarray:
    out = cuda.device_array(inputs["p"].shape, np.float32)
    aos.drift(cuda.to_device(inputs["p"]), np.float32(inputs["dt"]), out)
    return out.copy_to_host()


def _drift_lab(inputs: dict) -> np.ndarray:
    p = cuda.to_device(inputs["p"])
    coalescing.drift_aos[inputs["p"].shape[0] // 256, 256](p, np.float32(inputs["dt"]))
    return p.copy_to_host()


def _copy(launch) -> Callable[[dict], np.ndarray]:
    def run(inputs: dict) -> np.ndarray:
        out = cuda.to_device(np.full_like(inputs["x"], np.nan))
        launch(cuda.to_device(inputs["x"]), out)
        return out.copy_to_host()
    return run


TWINS = {
    "02-transpose ~ kernels.transpose.transpose_tiled": Twins(
        _run_transpose(transpose_solution.transpose_padded), _run_transpose(transpose.transpose_tiled), _transpose_inputs),
    "04-transpose ~ kernels.transpose.transpose_tiled": Twins(
        _run_transpose(profile_transpose.transpose_tiled), _run_transpose(transpose.transpose_tiled), _transpose_inputs),
    "01-reduce ~ kernels.reduction.block_sum": Twins(
        _sum(reduce.block_sums), _sum(reduction.block_sum), lambda: {"x": RNG.random(3000, dtype=np.float32)}),
    "05-mystery-a ~ kernels.mysteries.kernel_a_repaired": Twins(
        _scale_a(mystery_a.kernel_a_repaired), _scale_a(mysteries.kernel_a_repaired),
        lambda: {"x": RNG.random((24, 40), dtype=np.float32)}),
    "05-mystery-h ~ kernels.mysteries.kernel_h_repaired": Twins(
        _parity(mystery_h.kernel_h_repaired), _parity(mysteries.kernel_h_repaired),
        lambda: {"x": RNG.random(480, dtype=np.float32)}),
    "04-chain ~ kernels.elementwise.fused_chain": Twins(
        _chain_solution, _chain_lab,
        lambda: {"x": RNG.random(300, dtype=np.float32), "coefficients": RNG.random((6, 2), dtype=np.float32)}),
    "02-aos ~ kernels.coalescing.drift_aos": Twins(
        _drift_solution, _drift_lab, lambda: {"p": RNG.random((256, 8), dtype=np.float32), "dt": 0.25}),
    "03-ilp ~ kernels.ilp.stream_copy(16)": Twins(
        _copy(lambda x, out: ilp.copy[2, 64](x, out)), _copy(lambda x, out: stream_copy(ilp.LOADS)[2, 64](x, out)),
        lambda: {"x": RNG.random(4 * 64 * 16 * 2 + 12, dtype=np.float32)}),
}


@pytest.mark.parametrize("name", TWINS)
def test_a_solution_and_the_lab_kernel_it_repeats_compute_the_same(name):
    twins = TWINS[name]
    inputs = twins.inputs()
    ours = twins.solution({k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()})
    lab = twins.lab({k: v.copy() if isinstance(v, np.ndarray) else v for k, v in inputs.items()})
    assert not np.isnan(ours).any(), f"{name}: the solution left elements unwritten"
    np.testing.assert_array_equal(ours, lab, err_msg=f"{name}: the solution and the lab kernel differ")


def test_the_mystery_constants_are_the_same():
    """05-mystery-h's solution spells out the maps it shares with the lab's kernel_h."""
    for name in ("STEPS", "A", "B", "A2", "B2", "A3", "B3"):
        assert getattr(mystery_h, name) == getattr(mysteries, name), name
    assert mystery_h.THREADS == mystery_a.THREADS == mysteries.THREADS


def test_the_comparison_tells_two_computations_apart():
    """The harness compares what the kernels wrote: kernel_b's twin (other maps) is not kernel_h's."""
    x = {"x": RNG.random(480, dtype=np.float32)}
    assert not np.array_equal(_parity(mysteries.kernel_b_repaired)(x), _parity(mysteries.kernel_h_repaired)(x))
