"""The one Nsight Compute protocol (labkit.profiling.lab_profile) on a real GPU, for every lab that
profiles: ncu runs the lab's profile target with the clocks left alone, the step comes back "ok"
with the shape the lab's record has, and the pages are kept under the names the records use.

Run on the H200: ``pytest -m gpu tests/gpu/test_lab_profile_gpu.py`` (a few minutes: lab 05 profiles
fifteen kernels with ``--set full``). With LABKIT_GPU_RECORD_DIR set, each lab's step is written there.
"""

from __future__ import annotations

import importlib

import pytest

from labkit.gpu.device import read_device_facts
from labkit.labs.base import lab
from labkit.models import occupancy
from labkit.profiling import lab_profile, ncu
from labkit.project import Project
from labkit.records.files import read_results
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.gpu

#: lab -> the pages its record keeps.
PAGES = {"lab-02": ("raw",), "lab-03": ("raw",), "lab-04": ("raw", "details"), "lab-05": ("raw", "details")}


def recorded_step(lab_id: str):
    the_lab = lab(lab_id)
    path = the_lab.lab_dir(Project(REPO_ROOT)) / "results" / "nvidia-h200.json"
    return read_results(path, the_lab.results_type, the_lab.id).results


@pytest.mark.parametrize("lab_id", list(PAGES))
def test_each_lab_profiles_through_the_protocol(lab_id, tmp_path, record):
    if ncu.find_ncu() is None:
        pytest.skip("no ncu on this machine")
    program = importlib.import_module(f"labkit.labs.lab{lab_id[-2:]}.program")
    recorded = recorded_step(lab_id)
    if lab_id == "lab-02":
        from labkit.labs.lab02 import plan as lp

        sizes = recorded.sizes
        plan = lp.launches(sizes, read_device_facts().sm_count)
        step, measured = program.nsight_compute(sizes, plan, tmp_path)
        assert step.status == "ok", step
        assert sorted(measured) == sorted(launch.name for launch in plan)
        shape = {"launches": len(measured), "seconds": step.seconds, "version": step.version}
    elif lab_id == "lab-03":   # its launches depend on the architecture's limits
        step = program.nsight_compute(tmp_path, occupancy.architecture(read_device_facts().compute_capability))
        assert step.status == "ok", step
        assert [launch.label for launch in step.launches] == [launch.label for launch in recorded.ncu.launches]
        shape = {"launches": [launch.label for launch in step.launches]}
    else:
        step = program.nsight_compute(tmp_path)
        assert step.status == "ok", step
        assert sorted(k.name for k in step.kernels) == sorted(k.name for k in recorded.ncu.kernels)
        shape = {"kernels": sorted(k.name for k in step.kernels)}
    kept = sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".csv")
    assert {lab_profile.PAGE_FILES[page] for page in PAGES[lab_id]} <= set(kept), kept
    record(f"lab_profile_{lab_id}", {**shape, "kept": kept})
