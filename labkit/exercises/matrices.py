"""The matrices of the exercises that work on one (02-transpose, 04-transpose, 05-mystery-a).

A check runs at two sizes (:attr:`Exercise.simulator_elements`, :attr:`Exercise.gpu_elements`):
the matrix is the exercise's simulator shape at the first, a square of ``gpu_side`` at the second;
any other size is a mistake in the exercise's definition.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def matrix_shape(exercise_id: str, elements: int, simulator_shape: tuple[int, int],
                 gpu_side: int) -> tuple[int, int]:
    """(rows, cols) of the matrix of ``elements`` elements."""
    shapes = {simulator_shape[0] * simulator_shape[1]: simulator_shape, gpu_side * gpu_side: (gpu_side, gpu_side)}
    if elements not in shapes:
        raise ValueError(f"{exercise_id} has no matrix of {elements} elements: {sorted(shapes)}")
    return shapes[elements]


def transpose_inputs(exercise_id: str, simulator_shape: tuple[int, int],
                     gpu_side: int) -> Callable[[int, np.random.Generator], dict[str, object]]:
    """A transpose's inputs: a float32 ``source`` of fresh normal values and an empty ``target``
    of the transposed shape."""
    def inputs(elements: int, rng: np.random.Generator) -> dict[str, object]:
        rows, cols = matrix_shape(exercise_id, elements, simulator_shape, gpu_side)
        return {"source": rng.standard_normal((rows, cols), dtype=np.float32),
                "target": np.empty((cols, rows), np.float32)}
    return inputs


def transpose_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    """NumPy's answer: target = sourceᵀ."""
    return {"target": np.ascontiguousarray(inputs["source"].T)}
