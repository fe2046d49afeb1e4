"""One Nsight Compute protocol for every lab (labkit.profiling.lab_profile), run against a stand-in ncu.

The stand-in answers the export commands with the pages the H200 records keep, so each lab's
``nsight_compute`` is held to what its record says: the same step, and the same raw files under
the same names, byte for byte.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from labkit.gpu import tools as cuda_tools
from labkit.labs.base import lab
from labkit.models import occupancy
from labkit.profiling import lab_profile, ncu
from labkit.project import Project
from labkit.records.files import raw_folder, read_results
from tests.conftest import REPO_ROOT

VERSION = "NVIDIA (R) Nsight Compute Command Line Profiler\nVersion 2025.3.1.0 (build 36398880) (public-release)\n"


class StandInNcu:
    """Answers ncu's commands: a profile run writes nothing, an export prints the page given."""

    def __init__(self, pages: dict[str, str], profile_output: str = "==PROF== Disconnected from process 1\n",
                 returncode: int = 0):
        self.pages, self.profile_output, self.returncode = pages, profile_output, returncode
        self.commands: list[list[str]] = []
        self.envs: list[dict | None] = []

    def __call__(self, command, **kwargs):
        self.commands.append(command)
        self.envs.append(kwargs.get("env"))
        if command[1:] == ["--version"]:
            return subprocess.CompletedProcess(command, 0, VERSION, "")
        if "-i" in command:
            page = command[command.index("--page") + 1]
            return subprocess.CompletedProcess(command, 0, self.pages[page], "")
        return subprocess.CompletedProcess(command, self.returncode, self.profile_output, "")


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(ncu, "find_ncu", lambda: "/opt/ncu")

    def install(pages: dict[str, str], **kwargs) -> StandInNcu:
        fake = StandInNcu(pages, **kwargs)
        monkeypatch.setattr(cuda_tools.subprocess, "run", fake)
        return fake

    return install


def recorded(lab_id: str):
    the_lab = lab(lab_id)
    path = the_lab.lab_dir(Project(REPO_ROOT)) / "results" / "nvidia-h200.json"
    if not path.exists():
        pytest.skip(f"{lab_id} not recorded yet")
    return the_lab, read_results(path, the_lab.results_type, the_lab.id), raw_folder(path)


def kept_pages(raw: Path, names: tuple[str, ...]) -> dict[str, str]:
    return {name: (raw / lab_profile.PAGE_FILES[name]).read_text() for name in names}


def assert_same_files(work: Path, raw: Path, names: tuple[str, ...]) -> None:
    written = sorted(p.name for p in work.iterdir() if p.suffix == ".csv")
    assert written == sorted(lab_profile.PAGE_FILES[name] for name in names)
    for name in names:
        file = lab_profile.PAGE_FILES[name]
        assert (work / file).read_bytes() == (raw / file).read_bytes(), file


@pytest.mark.parametrize("lab_id, pages", [("lab-04", ("raw", "details")), ("lab-05", ("raw", "details"))])
def test_labs_04_and_05_give_back_their_recorded_step_and_files(stand_in, tmp_path, lab_id, pages):
    the_lab, record, raw = recorded(lab_id)
    fake = stand_in(kept_pages(raw, pages))
    program = __import__(f"labkit.labs.lab0{lab_id[-1]}.program", fromlist=["nsight_compute"])
    assert program.nsight_compute(tmp_path) == record.results.ncu
    assert_same_files(tmp_path, raw, pages)
    profile = fake.commands[0]
    assert profile[:5] == ["/opt/ncu", "--clock-control", "none", "--set", "full"]
    assert profile[-4:] == [sys.executable, "-m", f"labkit.labs.lab0{lab_id[-1]}.program", "profile-target"]


def test_lab_03_gives_back_its_recorded_step_and_file(stand_in, tmp_path, monkeypatch):
    from labkit.labs.lab03 import program
    from labkit.labs.lab03.program import NCU_METRICS

    the_lab, record, raw = recorded("lab-03")
    if not record.results.arithmetic.immediate_points:   # a record from before issue 29's two launches
        monkeypatch.setattr(program, "PROFILED", tuple(
            label for label in program.PROFILED if label not in ("fma_1_chain_64_warps", "fma_1_chain_imm_64_warps")))
    fake = stand_in(kept_pages(raw, ("raw",)))
    assert program.nsight_compute(tmp_path, occupancy.SM90) == record.results.ncu   # recorded on the H200
    assert_same_files(tmp_path, raw, ("raw",))
    assert fake.commands[0][1:5] == ["--clock-control", "none", "--metrics", ",".join(NCU_METRICS)]


def test_lab_02_reads_its_recorded_counters_back(stand_in, tmp_path):
    from labkit.labs.lab02 import plan as lp
    from labkit.labs.lab02 import program

    the_lab, record, raw = recorded("lab-02")
    fake = stand_in(kept_pages(raw, ("raw",)))
    plan = lp.launches(record.results.sizes, record.results.device.sm_count)
    step, measured = program.nsight_compute(record.results.sizes, plan, tmp_path)
    assert step.status == "ok" and step.version == "Version 2025.3.1.0 (build 36398880) (public-release)"
    assert {run.launch: (run.measured, run.measured_sass) for run in record.results.runs()} == measured
    assert_same_files(tmp_path, raw, ("raw",))
    export = next(command for command in fake.commands if "-i" in command)
    assert export[-2:] == ["--print-units", "base"]
    assert fake.commands[0][-3:] == ["profile-target", str(tmp_path / "sizes.json"), str(tmp_path / "plan.json")]


def test_the_child_imports_this_labkit(stand_in, tmp_path):
    fake = stand_in({"raw": ""}, returncode=1, profile_output="==ERROR== fails\n")
    lab_profile.profile_lab("m", "k", tmp_path, read=lambda run: run, unavailable=lambda reason: reason)
    assert fake.envs[0]["PYTHONPATH"].split(":")[0] == str(REPO_ROOT)


def unavailable(reason: str) -> str:
    return f"unavailable: {reason}"


def test_without_ncu_the_step_is_unavailable(monkeypatch, tmp_path):
    monkeypatch.setattr(ncu, "find_ncu", lambda: None)
    assert lab_profile.profile_lab("m", "k", tmp_path, read=lambda run: "ok",
                                   unavailable=unavailable) == "unavailable: ncu not found (install Nsight Compute)"


@pytest.mark.parametrize("output, reason", [
    ("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n", "ERR_NVGPUCTRPERM"),
    ("==WARNING== No kernels were profiled.\n", "no launch matched the -k regex"),
])
def test_an_ncu_failure_is_unavailable_with_its_reason_and_writes_nothing(stand_in, tmp_path, output, reason):
    stand_in({"raw": ""}, profile_output=output)
    said = lab_profile.profile_lab("m", "k", tmp_path, read=lambda run: "ok", unavailable=unavailable)
    assert said.startswith("unavailable: ") and reason in said
    assert list(tmp_path.iterdir()) == []


def test_a_reader_that_refuses_the_profiles_makes_the_step_unavailable(stand_in, tmp_path):
    _, _, raw = recorded("lab-04")
    stand_in(kept_pages(raw, ("raw",)))

    def read(run):
        return run.profiles[0].value("no__such.metric")

    said = lab_profile.profile_lab("m", "k", tmp_path, read=read, unavailable=unavailable)
    assert said.startswith("unavailable: kernel ") and "no__such.metric is not in the ncu report" in said
    assert list(tmp_path.iterdir()) == []


def test_the_raw_page_is_required(tmp_path):
    with pytest.raises(ValueError, match="pages must hold 'raw'"):
        lab_profile.profile_lab("m", "k", tmp_path, read=str, unavailable=str, pages=("details",))
