"""The doctor: ncu diagnosis, tool lookup, and a full report without a GPU."""

import json
import os
import stat
import subprocess
import sys

import pytest

from labkit.commands import doctor
from labkit.gpu import tools as cuda_tools

PERMISSION_DENIED = """\
==PROF== Connected to process 4242 (/usr/bin/python3.12)
==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters \
on the target device 0. For instructions on enabling permissions and to get more information see \
https://developer.nvidia.com/ERR_NVGPUCTRPERM
==PROF== Disconnected from process 4242
==WARNING== No kernels were profiled.
"""

# ncu 2025.3.1's own output on the H200 (2026-11-29), profiling NCU_PROBE_PROGRAM.
COUNTERS_READ = """\
==WARNING== Note: Running with unmodified GPU clocks. If not controlled otherwise, profiling results may be inconsistent.
==PROF== Connected to process 721 (/usr/bin/python3.12)
==PROF== Profiling "one[abi:v1,cw51cXTLSUwv1sDUaK..." - 0: 0%....50%....100% - 1 pass
==PROF== Disconnected from process 721
[721] python3.12@127.0.0.1
  one[v1,cw51cXTLSUwv1sDUaKthqaNgoKmjgOR3W3Cw6igA9duC0hkwnNGiHEkYkrqQBFBTDEwCyQe21eqwcFW3UoDGjzpQEsgzrtUEAA_3d_3d]\
(Array<float, 1, C, mutable, aligned>) (1, 1, 1)x(1, 1, 1), Context 1, Stream 7, Device 0, CC 9.0
    Warning: Data collection happened without fixed GPU frequencies. Profiling results may be inconsistent.
    Section: Command line profiler metrics
    ---------------------- ----------- ------------
    Metric Name            Metric Unit Metric Value
    ---------------------- ----------- ------------
    sm__cycles_elapsed.avg       cycle     3,807.53
    ---------------------- ----------- ------------
"""


def test_permission_error_gives_the_fix():
    ok, message = doctor.diagnose_ncu_output(PERMISSION_DENIED, 0)
    assert not ok
    assert "ERR_NVGPUCTRPERM" in message
    assert "options nvidia NVreg_RestrictProfilingToAdminUsers=0" in message
    assert "/etc/modprobe.d/" in message and "\n" not in message


def test_a_metric_value_means_counters_are_readable():
    assert doctor.diagnose_ncu_output(COUNTERS_READ, 0) == (True, "reads counters (sm__cycles_elapsed.avg = 3,807.53)")


def test_other_ncu_errors_are_quoted():
    text = "==ERROR== Failed to prepare kernel for profiling\n==ERROR== An error occurred\n"
    assert doctor.diagnose_ncu_output(text, 1) == (False, "ncu failed: ==ERROR== Failed to prepare kernel for profiling")


def test_no_kernel_profiled():
    ok, message = doctor.diagnose_ncu_output("==WARNING== No kernels were profiled.\n", 0)
    assert not ok and "no kernel" in message


def test_a_failed_run_reports_its_exit_code():
    assert doctor.diagnose_ncu_output("Traceback ...\nImportError: numba\n", 1) == (
        False, "ncu exited with code 1: ImportError: numba"
    )
    assert doctor.diagnose_ncu_output("", 0) == (False, "ncu ran but printed no sm__cycles_elapsed.avg value")


def _fake_tool(folder, name: str, script: str) -> str:
    path = folder / name
    path.write_text("#!/bin/sh\n" + script)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_ncu_counter_access_runs_ncu_without_touching_clocks(tmp_path):
    # The fake ncu prints a metric only when asked to leave the clocks alone.
    script = (
        'case "$*" in *"--clock-control none --metrics sm__cycles_elapsed.avg"*)\n'
        '  echo "    sm__cycles_elapsed.avg       cycle     1,234";;\n'
        '*) echo "==ERROR== clocks would be locked"; exit 1;;\nesac\n'
    )
    ncu = _fake_tool(tmp_path, "ncu", script)
    assert doctor.ncu_counter_access(ncu) == (True, "reads counters (sm__cycles_elapsed.avg = 1,234)")


def test_ncu_counter_access_reports_the_permission_fix(tmp_path):
    ncu = _fake_tool(tmp_path, "ncu", f"cat <<'EOF'\n{PERMISSION_DENIED}EOF\nexit 1\n")
    ok, message = doctor.ncu_counter_access(ncu)
    assert not ok and "NVreg_RestrictProfilingToAdminUsers=0" in message


def test_find_tool_looks_on_path_then_in_the_cuda_folder(tmp_path, monkeypatch):
    on_path, cuda_bin = tmp_path / "path", tmp_path / "cuda-bin"
    on_path.mkdir(), cuda_bin.mkdir()
    monkeypatch.setenv("PATH", str(on_path))
    assert cuda_tools.find_tool("nvdisasm", cuda_bin) is None
    in_cuda = _fake_tool(cuda_bin, "nvdisasm", "exit 0\n")
    assert cuda_tools.find_tool("nvdisasm", cuda_bin) == in_cuda
    in_path = _fake_tool(on_path, "nvdisasm", "exit 0\n")
    assert cuda_tools.find_tool("nvdisasm", cuda_bin) == in_path


def test_format_report_aligns_values():
    assert doctor.format_report([("GPU", "NVIDIA H200"), ("SM clock", "1980 MHz")]) == (
        "GPU:      NVIDIA H200\nSM clock: 1980 MHz"
    )


def test_a_failing_probe_becomes_a_one_line_row():
    def broken():
        raise RuntimeError("driver\nmismatch")

    assert doctor._probe("GPU", broken) == ("GPU", "error: RuntimeError: driver mismatch")


def _simulator_env() -> dict:
    return {**os.environ, "NUMBA_ENABLE_CUDASIM": "1"}


def test_doctor_report_in_the_simulator():
    code = "import json; from labkit.commands.doctor import doctor_report; print(json.dumps(doctor_report()))"
    done = subprocess.run([sys.executable, "-c", code], env=_simulator_env(), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = dict(json.loads(done.stdout))
    assert rows["backend"].startswith("simulator: No CUDA GPU found")
    assert "GPU" not in rows
    assert {"numpy", "numba", "numba-cuda", "cupy", "nvtx", "ncu", "nsys", "cuobjdump", "nvdisasm"} <= set(rows)
    assert rows["numba-cuda"] == "0.30.4"


def test_doctor_prints_without_traceback_in_the_simulator():
    done = subprocess.run(
        [sys.executable, "-m", "labkit.commands.doctor"], env=_simulator_env(), capture_output=True, text=True
    )
    assert done.returncode == 0
    assert "Traceback" not in done.stdout + done.stderr
    assert done.stdout.startswith("backend:")
    assert "no timing" in done.stdout


@pytest.mark.parametrize("name", ["ncu", "nsys", "cuobjdump", "nvdisasm"])
def test_missing_tools_are_reported_as_not_found(name, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(cuda_tools, "CUDA_BIN", tmp_path)
    monkeypatch.setattr(doctor, "select_backend", lambda: "simulator")
    assert dict(doctor.doctor_report())[name] == "not found"


def test_gpu_rows_show_peaks_with_their_formula(monkeypatch):
    from labkit.gpu.device import Clocks
    from tests.unit.test_device import H200

    monkeypatch.setattr(doctor, "select_backend", lambda: "cuda")
    monkeypatch.setattr(doctor, "read_device_facts", lambda: H200)
    monkeypatch.setattr(doctor, "current_pci_bus_id", lambda: "0000:18:00.0")
    monkeypatch.setattr(doctor, "read_clocks", lambda bus: Clocks(345.0, 3201.0))
    monkeypatch.setattr(doctor, "read_driver_release", lambda bus: "580.159.04")
    monkeypatch.setattr(doctor, "find_tool", lambda name: None)
    rows = dict(doctor.doctor_report())
    assert rows["backend"] == "CUDA GPU"
    assert rows["GPU"] == "NVIDIA H200" and rows["compute capability"] == "9.0" and rows["SMs"] == "132"
    assert rows["SM clock"] == "1980 MHz max, 345 MHz now"
    assert rows["L2"] == "60 MiB (62914560 bytes)"
    assert rows["HBM3e peak"] == "4814 GB/s = 2 x 3201 MHz x 6016 bit / 8"   # its datasheet's memory
    assert rows["FP32 peak"] == "66.9 TFLOP/s = 132 SMs x 128 lanes x 2 (FMA) x 1980 MHz"
    assert rows["FP64 peak"] == "33.45 TFLOP/s = 132 SMs x 64 lanes x 2 (FMA) x 1980 MHz (1:2 of FP32)"
    assert rows["memory"] == "150.8 GB"
    assert ("lab-01", "the course's sizes (as on the H200); its buffers hold at most 4.5 GB of 150.8 GB") \
        in doctor.doctor_report()
    assert rows["driver"] == "CUDA 13.0 (580.159.04)"


def test_a_broken_gpu_is_one_row(monkeypatch):
    from labkit.gpu.device import NoGPUError

    def broken():
        raise NoGPUError("CUDA is not usable: Error at driver init")

    monkeypatch.setattr(doctor, "select_backend", lambda: "cuda")
    monkeypatch.setattr(doctor, "read_device_facts", broken)
    monkeypatch.setattr(doctor, "find_tool", lambda name: None)
    rows = dict(doctor.doctor_report())
    assert rows["GPU"] == "error: NoGPUError: CUDA is not usable: Error at driver init"
    assert rows["numpy"]


def test_counters_are_not_probed_without_a_gpu(monkeypatch):
    def must_not_run(ncu_path):
        raise AssertionError("ncu was run without a GPU")

    monkeypatch.setattr(doctor, "select_backend", lambda: "simulator")
    monkeypatch.setattr(doctor, "find_tool", lambda name: f"/opt/cuda/bin/{name}")
    monkeypatch.setattr(doctor, "ncu_counter_access", must_not_run)
    rows = dict(doctor.doctor_report())
    assert rows["ncu"] == "/opt/cuda/bin/ncu"
    assert rows["ncu counters"] == "not checked: no GPU"


# --- what each lab will do on the reader's GPU ---------------------------------------------------

def test_each_lab_says_what_it_does_on_a_6_gb_laptop_without_counters():
    from labkit.specs.profiles import PROFILES

    rows = doctor.lab_rows(PROFILES["rtx-3060-laptop"], {"ncu": False, "nsys": True, "nvcc": True, "cupy": True})
    text = "\n".join(f"{lab}: {value}" for lab, value in rows)
    assert "lab-01: sizes planned for this GPU (differ from the H200's in copy_bytes" in text
    assert "of 6.4 GB" in text                                               # its memory, and what each lab holds
    assert "lab-01: FP64 runs at 1:64 of FP32 here" in text and "lab-05: FP64 runs at 1:64" in text
    assert "lab-03: an SM holds 48 warps here" in text
    # no counter permission: which steps run without ncu, lab by lab
    for lab in ("lab-01", "lab-02", "lab-03", "lab-04", "lab-05"):
        assert f"{lab}: without ncu counters:" in text
    assert "without nsys" not in text
    assert "lab-06: skips step wgmma: wgmma exists only on Hopper" in text and "lab-06: skips step mma" not in text
    # issue 33: every step built on wgmma is named, and the peer, a fact of the machine, too
    for key in ("tma_ws", "tma_persistent", "tma", "tma_bf16"):
        assert f"lab-06: skips step {key}: wgmma exists only on Hopper" in text, key
    assert "lab-06: without triton: the peer: Triton's standard GEMM" in text and "skips Triton" not in text


def test_a_turing_card_skips_triton_in_bf16_and_says_why():
    from labkit.specs.profiles import PROFILES

    rows = doctor.lab_rows(PROFILES["t4"], {tool: True for tool in ("ncu", "nsys", "nvcc", "cuobjdump", "cupy", "triton")})
    text = "\n".join(f"{lab}: {value}" for lab, value in rows)
    assert "lab-06: skips Triton BF16: BF16 tensor cores appear with compute capability 8.0" in text
    assert "Triton FP16" not in text and "without triton" not in text


def test_on_the_course_gpu_with_every_tool_the_labs_run_as_recorded():
    from labkit.specs.profiles import COURSE_GPU

    rows = doctor.lab_rows(COURSE_GPU, {tool: True for tool in ("ncu", "nsys", "nvcc", "cuobjdump", "cupy", "triton")})
    assert [value for _, value in rows] == ["the course's sizes (as on the H200); its buffers hold at most "
                                            f"{size} of 150.8 GB" for size in ("4.5 GB", "5.4 GB", "2.1 GB", "4.5 GB",
                                                                               "0.9 GB", "2.4 GB")]


def test_doctor_as_a_profile_without_a_gpu(capsys):
    from labkit.cli import main

    assert main(["doctor", "--as", "t4"]) == 0
    out = capsys.readouterr().out
    assert "labs as on: Tesla T4" in out and "lab-03:" in out and "an SM holds 32 warps here" in out
    # lab 06 on a Turing part: smaller matrices, and the tensor-core steps it has no instructions for
    lab06 = [line.removeprefix("lab-06:").strip() for line in out.splitlines() if line.startswith("lab-06:")]
    assert lab06[0].startswith("sizes planned for this GPU (differ from the H200's in side, depth, large_side)")
    skipped = [line.split(":")[0] for line in lab06 if line.startswith("skips ")]
    assert skipped == [f"skips {what}" for what in ("step wmma", "step mma", "step numba_mma", "step bf16", "step wgmma",
                                                    "step tma_ws",
                                                    "step tma_persistent", "step tma", "step tma_bf16", "cuBLAS TF32",
                                                    "cuBLAS BF16", "Triton BF16")]
    assert all(line.endswith("this GPU is 7.5") for line in lab06 if line.startswith("skips "))
