"""labkit.profiling.nsys on a cuda_gpu_kern_sum CSV sample (tests/fixtures/nsys: a format sample)."""

import subprocess
from pathlib import Path

import pytest

from labkit.gpu import tools as cuda_tools
from labkit.profiling import nsys

SAMPLE = (Path(__file__).resolve().parents[1] / "fixtures" / "nsys" / "cuda_gpu_kern_sum.csv").read_text()
HEADER = "Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"


def test_sample_parses_past_the_progress_lines():
    kernels = nsys.parse_kern_sum(SAMPLE)
    assert [k.name for k in kernels] == ["copy_strided", "spill", "copy_coalesced", "copy_c128"]
    assert kernels[0].full_name.endswith("Array<float, 1, C, mutable, aligned>, int64)")
    assert all(k.instances == 20 for k in kernels)
    assert sum(k.time_pct for k in kernels) == pytest.approx(100, abs=0.2)


def test_times_are_in_seconds():
    strided = nsys.parse_kern_sum(SAMPLE)[0]
    assert strided.time_pct == 67.8
    assert strided.total_seconds == pytest.approx(16252663e-9)
    assert strided.avg_seconds == pytest.approx(812633.2e-9)
    assert strided.med_seconds == pytest.approx(812280.0e-9)
    assert strided.min_seconds == pytest.approx(804529e-9)
    assert strided.max_seconds == pytest.approx(821882e-9)
    assert strided.stddev_seconds == pytest.approx(5625.4e-9)
    assert strided.avg_seconds * strided.instances == pytest.approx(strided.total_seconds, rel=1e-6)


def test_quoted_fields_and_other_time_units():
    text = (
        '"Time (%)","Total Time (us)","Instances","Avg (us)","Med (us)","Min (us)","Max (us)",'
        '"StdDev (us)","Name"\n'
        '"100.0","1,500","3","500.0","500.0","400","600","100.0","void gemm<float, 128>(float const*, int)"\n'
    )
    (kernel,) = nsys.parse_kern_sum(text)
    assert kernel.name == "gemm"
    assert kernel.total_seconds == pytest.approx(1.5e-3)
    assert kernel.max_seconds == pytest.approx(600e-6)


def test_the_table_ends_at_the_first_blank_line():
    text = SAMPLE.rstrip("\n") + "\n\nTime (%),Total Time (ns),Num Calls,Avg (ns),Name\n50.0,10,1,10.0,cudaMalloc\n"
    assert len(nsys.parse_kern_sum(text)) == 4


def test_no_kernel_in_the_report():
    text = ("Processing [r.sqlite] with [/opt/nsys/reports/cuda_gpu_kern_sum.py]... \n"
            "SKIPPED: r.sqlite does not contain CUDA kernel data.\n")
    with pytest.raises(nsys.NsysError, match="holds no CUDA kernel"):
        nsys.parse_kern_sum(text)


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "no cuda_gpu_kern_sum table"),
        ("Generating SQLite file r.sqlite from r.nsys-rep\n", "no cuda_gpu_kern_sum table"),
        ("Time (%),Total Time (ns),Avg (ns),Name\n1,2,3,k\n", "lacks the column.*Instances.*Med"),
        (HEADER.replace("(ns)", "(fortnights)", 1) + "\n", "unknown time unit 'fortnights'"),
        (HEADER + "\n100.0,n/a,1,1.0,1.0,1,1,0.0,k\n", "'n/a' in the cuda_gpu_kern_sum table is not a number"),
    ],
)
def test_malformed_summaries(text, message):
    with pytest.raises(nsys.NsysError, match=message):
        nsys.parse_kern_sum(text)


def test_kernel_sum_round_trips_through_json():
    for kernel in nsys.parse_kern_sum(SAMPLE):
        assert nsys.KernelSum.model_validate_json(kernel.model_dump_json(), strict=True) == kernel


class FakeRun:
    def __init__(self, outputs, returncode=0, timeout=False):
        self.outputs, self.returncode, self.timeout = list(outputs), returncode, timeout
        self.commands = []

    def __call__(self, command, **kwargs):
        self.commands.append(command)
        if self.timeout:
            raise subprocess.TimeoutExpired(command, kwargs["timeout"])
        return subprocess.CompletedProcess(command, self.returncode, self.outputs.pop(0), "boom: no such file\n")


def test_profile_and_summarize_runs_profile_then_stats(monkeypatch, tmp_path):
    fake = FakeRun(["Collecting data...\n", SAMPLE])
    monkeypatch.setattr(nsys, "find_nsys", lambda: "/opt/nsys")
    monkeypatch.setattr(cuda_tools.subprocess, "run", fake)
    out = tmp_path / "lab04"
    assert nsys.profile_and_summarize(["python3", "lab.py"], out) == SAMPLE
    assert fake.commands == [
        ["/opt/nsys", "profile", "-o", str(out / "timeline"), "--trace=cuda,nvtx",
         "--force-overwrite", "true", "python3", "lab.py"],
        ["/opt/nsys", "stats", "--report", "cuda_gpu_kern_sum", "--format", "csv",
         "--force-export", "true", str(out / "timeline") + ".nsys-rep"],
    ]
    assert out.is_dir()


def test_profile_failures_are_one_line(monkeypatch, tmp_path):
    monkeypatch.setattr(nsys, "find_nsys", lambda: "/opt/nsys")
    monkeypatch.setattr(cuda_tools.subprocess, "run", FakeRun(["\n"], returncode=1))
    with pytest.raises(nsys.NsysError, match="^nsys profile exited with status 1: boom: no such file$"):
        nsys.profile_and_summarize(["./app"], tmp_path)
    monkeypatch.setattr(cuda_tools.subprocess, "run", FakeRun([], timeout=True))
    with pytest.raises(nsys.NsysError, match="nsys profile did not finish within 7 s"):
        nsys.profile_and_summarize(["./app"], tmp_path, timeout_seconds=7)


def test_missing_nsys(monkeypatch, tmp_path):
    monkeypatch.setattr(nsys, "find_nsys", lambda: None)
    with pytest.raises(nsys.NsysError, match="not found.*CUDA-event timeline works without it"):
        nsys.profile_and_summarize(["./app"], tmp_path)


def test_find_nsys_prefers_path_then_the_toolkit(monkeypatch, tmp_path):
    monkeypatch.setattr(cuda_tools.shutil, "which", lambda name: "/usr/bin/nsys")
    assert nsys.find_nsys() == "/usr/bin/nsys"
    monkeypatch.setattr(cuda_tools.shutil, "which", lambda name: None)
    monkeypatch.setattr(cuda_tools, "CUDA_BIN", tmp_path)
    assert nsys.find_nsys() is None
    (tmp_path / "nsys").write_text("")
    assert nsys.find_nsys() == str(tmp_path / "nsys")
