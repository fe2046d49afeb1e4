"""Exercise 05-mystery-h's own metric, active threads per warp instruction in the simulator: it
counts lanes that run a line together, so it is 32 for a warp whose lanes all take one path, near
16 for a warp split into two paths of equal length, wherever the kernel is written, and it leaves
no tracer behind."""

from __future__ import annotations

import textwrap
import threading

import pytest

from labkit.exercises import exercises
from labkit.exercises.ch05 import active_threads
from labkit.exercises.learner import LearnerError, load
from labkit.exercises.watch import Evidence
from labkit.gpu.backend import select_backend
from labkit.profiling.checklist import DIVERGENCE_THREADS
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.skipif(select_backend() != "simulator", reason="counts lines in the Numba CUDA simulator")

ITEM = exercises()["05-mystery-h"]
SOLUTIONS = REPO_ROOT / "labkit/exercises/solutions"

#: A kernel whose lanes take one of two paths of the same length, chosen by ``SPLIT``.
TWO_PATHS = '''
from labkit.gpu import cuda

THREADS = 64


@cuda.jit
def two_paths(x, y):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if SPLIT:
            for _ in range(40):
                v = v * 2
        else:
            for _ in range(40):
                v = v + 1
        y[i] = v


def run(x, y):
    two_paths[(x.size + THREADS - 1) // THREADS, THREADS](x, y)
'''


def measured(path, elements: int = 128) -> float:
    module = load(path, path.name, ITEM.entries)
    return active_threads(Evidence(elements, module))


def kernel_file(tmp_path, split: str):
    path = tmp_path / "two_paths.py"
    path.write_text(textwrap.dedent(TWO_PATHS).replace("SPLIT", split), encoding="utf-8")
    return path


@pytest.mark.parametrize("split, low, high", [
    ("i >= 0", 32.0, 32.0),                 # every lane on one path
    ("(i // 32) % 2 == 0", 32.0, 32.0),     # a path per warp: no divergence
    ("i % 2 == 0", 15.0, 17.5),             # even and odd lanes: two paths per warp
    ("i % 32 < 8", 15.0, 17.5),             # a quarter and three quarters: still both paths
])
def test_lanes_on_one_path_count_together(tmp_path, split, low, high):
    assert low <= measured(kernel_file(tmp_path, split)) <= high


def test_the_mystery_diverges_and_its_twin_does_not():
    skeleton = measured(REPO_ROOT / ITEM.learner_file, 256)
    twin = measured(SOLUTIONS / f"{ITEM.solution}.py", 256)
    assert skeleton < DIVERGENCE_THREADS <= twin == 32.0


def test_a_kernel_imported_from_elsewhere_is_counted_too(tmp_path):
    """Lines run by the threads count wherever the kernel is written: lab 05's kernel_h imported from
    labkit, not copied, diverges just the same."""
    path = tmp_path / "imported.py"
    path.write_text("from labkit.kernels.mysteries import THREADS, kernel_h\n\n\n"
                    "def run(x, y):\n    kernel_h[(x.size + THREADS - 1) // THREADS, THREADS](x, y)\n",
                    encoding="utf-8")
    assert measured(path, 256) < DIVERGENCE_THREADS


def test_no_tracer_is_left_behind(tmp_path):
    measured(kernel_file(tmp_path, "i % 2 == 0"))
    assert threading.gettrace() is None


def test_a_mistake_in_the_rerun_is_the_learner_s(tmp_path):
    path = kernel_file(tmp_path, "x[i + 1] > 0")    # reads past the end in the last thread
    with pytest.raises(LearnerError, match=r"^two_paths\.py:\d+: IndexError"):
        measured(path)
