"""The GPU step's verdict is labkit's (issue 31): its child hands over buffers and timings, and
labkit's process judges them (labkit.exercises.on_gpu.judged_on_gpu). No GPU needed: the child's
answer is made here, as an honest child would send it, or as a hostile one would forge it.

A child used to send its verdicts, taken as they came: a learner's file that wrote
``{"event": "answer", "verdicts": [... "pass" ...]}`` on the pipe passed the GPU criteria.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pytest

from labkit.exercises import exercises, handover
from labkit.exercises.guarded import GUARD_BYTES, GUARD_PATTERN, poisoned
from labkit.exercises.learner import LearnerError
from labkit.exercises.on_gpu import ROUNDS, judged_on_gpu
from labkit.gpu.backend import select_backend
from labkit.gpu.timing import Timing

#: 01-fuse at a size a test can hold (its GPU size is four arrays of 2**26 floats).
ITEM = dataclasses.replace(exercises()["01-fuse"], gpu_elements=4096)
SEED = 1234
MALFORMED = r"^f\.py: the {what} that came back on the check's channel are not what the check's own code sends"


def timing(median: float) -> dict:
    return Timing(median_seconds=median, min_seconds=median * 0.98, max_seconds=median * 1.05, repeats=20,
                  warmup=3, l2_flushed=True, sm_clock_mhz=1980.0, mem_clock_mhz=3201.0,
                  back_to_back=True).model_dump(mode="json")


def rounds(*ratios: float, ours: float = 1e-3) -> list[dict]:
    return [{"reference": timing(ours), "learner": timing(ours * ratio)} for ratio in ratios]


def buffers(folder, item=ITEM, seed=SEED, out: str = "right") -> None:
    """What the child writes: each array's guarded buffer; ``out`` right, never written, or off by one."""
    inputs = item.inputs(item.gpu_elements, np.random.default_rng(seed))
    expected = item.expected(inputs)
    raw = {}
    for name, host in inputs.items():
        if not isinstance(host, np.ndarray):
            continue
        if name in item.outputs:
            payload = {"right": expected[name], "never": poisoned(host), "off": expected[name] + 1}[out]
        else:
            payload = poisoned(host) if name in item.scratch else host
        guard = np.full(GUARD_BYTES, GUARD_PATTERN, np.uint8)
        raw[name] = np.concatenate([guard, np.ascontiguousarray(payload).view(np.uint8).ravel(), guard])
    handover.written(raw, folder)


def honest(*ratios: float) -> dict:
    return {"gpu": "NVIDIA H200", "rounds": rounds(*ratios), "resources": {"registers": 16.0, "local_bytes": 0.0}}


def statuses(verdicts) -> dict:
    return {(v.metric, v.where): v.status for v in verdicts}


def test_an_honest_child_s_right_answer_is_judged_here(tmp_path):
    buffers(tmp_path)
    verdicts, run = judged_on_gpu(ITEM, SEED, honest(1.05, 0.98, 1.02), tmp_path, "f.py")
    assert statuses(verdicts) == {("correct", "gpu"): "pass", ("time_ratio", "gpu"): "pass", ("gbps", "gpu"): "shown"}
    ratio = next(v.value for v in verdicts if v.metric == "time_ratio")
    assert ratio == pytest.approx(1.02)        # the median of the three rounds' ratios
    assert run.gpu == "NVIDIA H200" and run.learner.median_seconds == pytest.approx(1.02e-3)
    gbps = next(v.value for v in verdicts if v.metric == "gbps")
    assert gbps == pytest.approx(12 * ITEM.gpu_elements / 1.02e-3 / 1e9)


def test_the_ratio_is_computed_here_from_the_timings(tmp_path):
    """The child hands over times, not a ratio: a slow kernel fails whatever else it sends."""
    buffers(tmp_path)
    answer = {**honest(3.0, 2.9, 40.0), "time_ratio": 1.0, "verdicts": [{"metric": "time_ratio", "status": "pass"}]}
    verdicts, _ = judged_on_gpu(ITEM, SEED, answer, tmp_path, "f.py")
    assert statuses(verdicts)[("time_ratio", "gpu")] == "fail"
    assert next(v.value for v in verdicts if v.metric == "time_ratio") == pytest.approx(3.0)


#: What a hostile child sends instead of data: its own verdicts, saying "pass".
FORGED = {"verdicts": [{"metric": "correct", "where": "gpu", "status": "pass"},
                       {"metric": "time_ratio", "where": "gpu", "status": "pass", "value": 1.0}],
          "gpu_run": None}


def test_a_forged_passing_verdict_without_arrays_fails(tmp_path):
    with pytest.raises(LearnerError, match=MALFORMED.format(what="arrays")):
        judged_on_gpu(ITEM, SEED, FORGED, tmp_path, "f.py")


def test_a_forged_passing_verdict_beside_a_run_that_wrote_nothing_fails(tmp_path):
    """The buffers are the kernels' own (a run() that does nothing leaves ``out`` poisoned)."""
    buffers(tmp_path, out="never")
    verdicts, run = judged_on_gpu(ITEM, SEED, {**FORGED, **honest(1.0, 1.0, 1.0)}, tmp_path, "f.py")
    correct = next(v for v in verdicts if v.metric == "correct")
    assert correct.status == "fail" and [p.kind for p in correct.problems] == ["never_written"]
    assert statuses(verdicts)[("time_ratio", "gpu")] == "skipped" and run is None


def test_a_right_answer_needs_its_timings(tmp_path):
    """No rounds (what an honest child sends for a wrong output) beside a right one: not judged, never a pass."""
    buffers(tmp_path)
    for sent in ({**FORGED, "gpu": "NVIDIA H200", "resources": {}}, {**honest(1.0, 1.0)},
                 {**honest(1.0, 1.0, 1.0), "rounds": [{"reference": timing(1e-3), "learner": {"median_seconds": 1}}] * 3},
                 {**honest(1.0, 1.0, 1.0), "rounds": rounds(1.0, 1.0, 1.0)[:2] + [{**rounds(1.0)[0], "learner": {
                     **timing(1e-3), "median_seconds": -1e-3, "min_seconds": -1e-3}}]}):
        with pytest.raises(LearnerError, match=MALFORMED.format(what="timings")):
            judged_on_gpu(ITEM, SEED, sent, tmp_path, "f.py")


@pytest.mark.parametrize("resources", [{"registers": float("nan")}, {"registers": -1}, {"registers": True},
                                       {"registers": "16"}, {"time_ratio": 1.0}])
def test_resources_are_finite_counts_of_the_named_kind(tmp_path, resources):
    buffers(tmp_path)
    with pytest.raises(LearnerError, match=MALFORMED.format(what="compiled resources")):
        judged_on_gpu(ITEM, SEED, {**honest(1.0, 1.0, 1.0), "resources": resources}, tmp_path, "f.py")


def test_buffers_are_judged_against_inputs_made_here(tmp_path):
    """Another seed's right answer (or an answer off by one) is wrong for the inputs of this one."""
    buffers(tmp_path, seed=SEED + 1)
    verdicts, _ = judged_on_gpu(ITEM, SEED, honest(1.0, 1.0, 1.0), tmp_path, "f.py")
    assert statuses(verdicts)[("correct", "gpu")] == "fail"
    for name in os.listdir(tmp_path):
        os.remove(tmp_path / name)
    buffers(tmp_path, out="off")
    verdicts, _ = judged_on_gpu(ITEM, SEED, honest(1.0, 1.0, 1.0), tmp_path, "f.py")
    assert [p.kind for p in verdicts[0].problems] == ["differs"]


def test_a_buffer_file_of_another_size_a_link_or_an_extra_file_is_refused(tmp_path):
    buffers(tmp_path)
    (tmp_path / "extra.bin").write_bytes(b"")
    with pytest.raises(LearnerError, match=MALFORMED.format(what="arrays")):
        judged_on_gpu(ITEM, SEED, honest(1.0, 1.0, 1.0), tmp_path, "f.py")
    (tmp_path / "extra.bin").unlink()
    out = tmp_path / "out.bin"
    out.write_bytes(out.read_bytes()[:-4])
    with pytest.raises(LearnerError, match=MALFORMED.format(what="array out")):
        judged_on_gpu(ITEM, SEED, honest(1.0, 1.0, 1.0), tmp_path, "f.py")
    out.unlink()
    out.symlink_to(tmp_path / "x.bin")
    with pytest.raises(LearnerError, match=MALFORMED.format(what="array out")):
        judged_on_gpu(ITEM, SEED, honest(1.0, 1.0, 1.0), tmp_path, "f.py")


def test_the_answer_is_plain_json(tmp_path):
    """What the child sends on the pipe survives JSON (no NumPy scalars in it)."""
    buffers(tmp_path)
    answer = json.loads(json.dumps(honest(1.0, 1.1, 0.9)))
    verdicts, _ = judged_on_gpu(ITEM, SEED, answer, tmp_path, "f.py")
    assert statuses(verdicts)[("time_ratio", "gpu")] == "pass"
    assert len(answer["rounds"]) == ROUNDS


@pytest.mark.skipif(select_backend() != "simulator", reason="the child's half in Numba's CUDA simulator")
@pytest.mark.parametrize("learner, correct", [("solution", "pass"), ("skeleton", "pass"), ("does nothing", "fail")])
def test_the_child_s_half_hands_over_what_labkit_s_half_judges(tmp_path, monkeypatch, learner, correct):
    """on_gpu's own code, in the simulator (the timer and the device's name stood in for: no GPU
    here), then judged_on_gpu on what it wrote and returned."""
    from types import SimpleNamespace

    import labkit.gpu.device
    import labkit.gpu.timing
    from labkit.exercises.on_gpu import on_gpu
    from tests.conftest import REPO_ROOT

    monkeypatch.setattr(labkit.gpu.timing, "time_gpu", lambda fn, **kwargs: (fn(), Timing.model_validate(timing(1e-3)))[1])
    monkeypatch.setattr(labkit.gpu.device, "read_device_facts", lambda: SimpleNamespace(name="stand-in GPU"))
    path = {"solution": REPO_ROOT / "labkit/exercises/solutions/fuse.py", "skeleton": REPO_ROOT / ITEM.learner_file,
            "does nothing": tmp_path / "f.py"}[learner]
    if learner == "does nothing":
        path.write_text("def run(a, x, y, out, tmp):\n    pass\n", encoding="utf-8")
    folder = tmp_path / "answer"
    folder.mkdir()
    answer = json.loads(json.dumps(on_gpu(ITEM, path, "f.py", SEED, folder)))
    assert sorted(os.listdir(folder)) == ["out.bin", "tmp.bin", "x.bin", "y.bin"]
    assert len(answer["rounds"]) == (ROUNDS if correct == "pass" else 0)
    verdicts, run = judged_on_gpu(ITEM, SEED, answer, folder, "f.py")
    assert statuses(verdicts)[("correct", "gpu")] == correct
    assert (run is not None and run.gpu == "stand-in GPU") == (correct == "pass")
