"""Lab 06's persistent TMA steps on the course's GPU: the lab itself decides that they can run at its
sizes (their grid takes the SM count from the device's facts). Seen on the H200 before the fix: the
lab recorded both steps as 'not measured: ... persistent: its grid needs the GPU's SM count'."""

import pytest

from labkit.kernels import gemm_cuda
from labkit.labs.base import lab
from labkit.labs.lab06 import program
from labkit.labs.lab06.results import STEPS
from labkit.specs.profiles import COURSE_GPU

PERSISTENT = sorted(s.key for s in STEPS if s.language == "cuda" and gemm_cuda.KERNELS[s.kernel].persistent)


def test_the_persistent_steps_are_the_tma_ones_after_the_first():
    assert PERSISTENT == ["tma", "tma_bf16", "tma_persistent"]


@pytest.mark.parametrize("key", PERSISTENT + ["tma_ws"])
def test_a_persistent_step_can_run_at_the_labs_sizes_on_the_course_gpu(monkeypatch, key):
    monkeypatch.setattr(program, "cuda_c_unavailable", lambda: None)   # as on a GPU with CuPy
    sizes = lab("lab-06").gpu_sizes
    for side in (sizes.side, sizes.large_side, sizes.check_side):
        assert program.why_unavailable(key, side, COURSE_GPU) is None, side


def test_a_persistent_step_without_the_devices_facts_says_what_it_lacks(monkeypatch):
    monkeypatch.setattr(program, "cuda_c_unavailable", lambda: None)
    assert "SM count" in program.why_unavailable(PERSISTENT[0], 4096, None)
    assert program.why_unavailable("tma_ws", 4096, None) is None    # one CTA per tile: no SM count needed
