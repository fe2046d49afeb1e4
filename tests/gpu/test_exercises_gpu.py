"""The exercises on a GPU: our solutions pass every criterion (the simulator's and the GPU's),
each skeleton fails the GPU criteria it declares, and each mistake marked ``Caught on the GPU by``
is caught there. Physics both ways: no bandwidth above the GPU's theoretical HBM peak, and our
memory-bound solutions within chapter 1's verdict bands of the copy ceiling measured here
(:data:`BUILT_TO_REACH_THE_ROOF`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from labkit.exercises import exercises
from labkit.exercises.check import check
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.gpu

EXERCISES = list(exercises().values())
SOLUTIONS = REPO_ROOT / "labkit/exercises/solutions"
MISTAKES = Path(__file__).parents[1] / "labs/exercise_mistakes"
CAUGHT_ON_GPU = re.compile(r"^Caught on the GPU by: (\w+)$", re.MULTILINE)


@pytest.fixture(scope="module")
def copy_ceiling_gbps(tmp_path_factory) -> float:
    """The course's copy ceiling (labkit.labs.ceilings), the same as every lab's: the bandwidth a kernel can reach."""
    from labkit.gpu.backend import select_backend

    if select_backend() != "cuda":    # a module fixture runs before the per-test skip
        pytest.skip("no CUDA GPU")

    from labkit.gpu.device import read_device_facts
    from labkit.gpu.timing import time_gpu, time_interleaved
    from labkit.labs import ceilings
    from labkit.labs.base import Bench

    bench = Bench(read_device_facts(), time_gpu, time_interleaved, tmp_path_factory.mktemp("ceiling"), lambda step: None)
    return ceilings.measure(bench).gbps


def gpu_mistakes() -> list[tuple[str, Path, str]]:
    found = []
    for path in sorted(MISTAKES.glob("*/*.py")):
        caught = CAUGHT_ON_GPU.search(path.read_text(encoding="utf-8"))
        if caught:
            found.append((path.parent.name, path, caught.group(1)))
    return found


def summary(report) -> dict:
    return {"passed": report.passed, "complete": report.complete, "error": report.error,
            "verdicts": [{"metric": v.metric, "where": v.where, "status": v.status, "value": v.value}
                         for v in report.verdicts],
            "gpu_run": report.gpu_run.model_dump(mode="json") if report.gpu_run else None}


#: The exercise built to reach the roof (bytes in flight, chapter 3): its solution must be in chapter
#: 1's "stop" band. The others' solutions take one element per thread per step, as the chapters'
#: first kernels do, and must only avoid a structural loss (GPU.md: a one-float Numba copy runs at
#: about 0.6-0.7 of the copy ceiling on the H200).
BUILT_TO_REACH_THE_ROOF = {"03-ilp"}


@pytest.mark.parametrize("item", EXERCISES, ids=lambda item: item.id)
def test_our_solution_passes_every_criterion_on_the_gpu(item, record, copy_ceiling_gbps):
    """Passes everything. Memory-bound solutions, physics both ways (t_min = floor bytes / the copy
    ceiling measured here): under the theoretical peak, and t_real / t_min below chapter 1's
    "structural" band, or below its "stop" band for the exercise built to reach the roof."""
    from labkit.gpu.device import read_device_facts
    from labkit.models.roofline import STOP_BELOW, STRUCTURAL_ABOVE

    path = SOLUTIONS / f"{item.solution}.py"
    report = check(item, path, str(path))
    figures = summary(report)
    if item.floor_bytes_per_element:
        gbps = next(v.value for v in report.verdicts if v.metric == "gbps")
        figures.update(copy_ceiling_gbps=copy_ceiling_gbps, t_real_over_t_min=copy_ceiling_gbps / gbps)
    record(f"exercise_{item.id}_solution", figures)
    assert report.passed and report.complete, figures
    if item.floor_bytes_per_element:
        peak = read_device_facts().hbm_peak_gbps
        assert gbps <= peak, f"{gbps:.0f} GB/s is above the theoretical peak {peak:.0f}"
        band = STOP_BELOW if item.id in BUILT_TO_REACH_THE_ROOF else STRUCTURAL_ABOVE
        assert copy_ceiling_gbps / gbps < band, figures


@pytest.mark.parametrize("item", EXERCISES, ids=lambda item: item.id)
def test_the_skeleton_fails_its_gpu_criteria(item, record):
    report = check(item, REPO_ROOT / item.learner_file, item.learner_file)
    record(f"exercise_{item.id}_skeleton", summary(report))
    assert report.error is None, report.error
    promised = set(item.skeleton_fails)
    assert {v.metric for v in report.failed()} == promised, summary(report)


@pytest.mark.parametrize("exercise_id, path, metric", gpu_mistakes(), ids=lambda v: getattr(v, "name", None))
def test_a_mistake_is_caught_on_the_gpu(exercise_id, path, metric, record):
    report = check(exercises()[exercise_id], path, path.name)
    record(f"exercise_{exercise_id}_{path.stem}", summary(report))
    assert report.error is None, report.error
    assert metric in {v.metric for v in report.failed() if v.where == "gpu"}, summary(report)


def test_an_out_of_bounds_write_is_caught_by_the_guard_on_the_gpu(record, tmp_path):
    """On a GPU nothing stops a write past the end of an array: the guard zone after it shows it
    (the child's half here in this process, then labkit's half judging what it handed over)."""
    item = exercises()["01-fuse"]
    path = MISTAKES / "01-fuse/no_bounds_test.py"
    from labkit.exercises.on_gpu import judged_on_gpu, on_gpu

    answer = on_gpu(item, path, path.name, 7, tmp_path)
    assert answer["rounds"] == [], "the child's own look found it wrong: nothing timed"
    verdicts, _ = judged_on_gpu(item, 7, answer, tmp_path, path.name)
    correct = verdicts[0]
    record("exercise_01-fuse_guard", correct.model_dump(mode="json"))
    assert correct.status == "fail" and [p.kind for p in correct.problems] == ["past_end"]
