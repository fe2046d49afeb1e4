"""`labkit doctor`: what this machine offers the labs, one row per fact, never a traceback.

Run as ``python -m labkit.commands.doctor``. Rows are (label, value); a probe that fails gives a
one-line value saying why, so the report itself always completes.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Callable

from labkit.gpu.backend import NO_GPU_NOTICE, select_backend
from labkit.gpu.setup import FLAVOURS
from labkit.gpu.tools import find_tool
from labkit.profiling.ncu import PERMISSION_FIX
from labkit.gpu.device import (DeviceFacts, current_pci_bus_id, fp32_lanes_per_sm, fp64_lanes_per_sm, fp64_ratio,
    read_clocks, read_device_facts, read_driver_release)

NCU_TIMEOUT_SECONDS = 120
NCU_METRIC = "sm__cycles_elapsed.avg"

#: The program ncu profiles to check counter access: one Numba kernel, one launch.
NCU_PROBE_PROGRAM = """\
from numba import cuda

@cuda.jit
def one(x):
    x[0] = 1.0

x = cuda.device_array(1, dtype="float32")
one[1, 1](x)
cuda.synchronize()
"""

Row = tuple[str, str]


def diagnose_ncu_output(text: str, returncode: int) -> tuple[bool, str]:
    """Whether ncu's output shows a counter it read, else the one-line reason it did not."""
    if "ERR_NVGPUCTRPERM" in text:
        return False, PERMISSION_FIX
    # a metric row: name, unit (absent for unitless metrics), value, e.g. "sm__cycles_elapsed.avg  cycle  2,345"
    value = re.search(rf"^\s*{re.escape(NCU_METRIC)}\s+(?:\S+\s+)?([\d.,]+)\s*$", text, re.MULTILINE)
    if value:
        return True, f"reads counters ({NCU_METRIC} = {value.group(1)})"
    errors = [line.strip() for line in text.splitlines() if line.startswith("==ERROR==")]
    if errors:
        return False, f"ncu failed: {errors[0]}"
    if "No kernels were profiled" in text:
        return False, "ncu profiled no kernel: the probe program launched none"
    if returncode != 0:
        last = text.strip().splitlines()[-1] if text.strip() else "no output"
        return False, f"ncu exited with code {returncode}: {last}"
    return False, f"ncu ran but printed no {NCU_METRIC} value"


def ncu_counter_access(ncu_path: str) -> tuple[bool, str]:
    """Profile a one-kernel program with ncu (clocks untouched) and diagnose its output."""
    with tempfile.TemporaryDirectory() as folder:
        program = Path(folder) / "ncu_probe.py"
        program.write_text(NCU_PROBE_PROGRAM)
        command = [ncu_path, "--clock-control", "none", "--metrics", NCU_METRIC, sys.executable, str(program)]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=NCU_TIMEOUT_SECONDS)
        except subprocess.TimeoutExpired:
            return False, f"ncu did not finish within {NCU_TIMEOUT_SECONDS} s"
        except OSError as error:
            return False, f"ncu could not start: {error}"
    return diagnose_ncu_output(done.stdout + done.stderr, done.returncode)


def package_version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def cupy_version() -> str:
    """CuPy ships as cupy-cudaXXx: the first installed distribution that provides `cupy`."""
    names = importlib.metadata.packages_distributions().get("cupy", [])
    return f"{package_version(names[0])} ({names[0]})" if names else "not installed"


def _error_value(error: Exception) -> str:
    message = " ".join(str(error).split()) or "no message"
    return f"error: {type(error).__name__}: {message}"


def _probe(label: str, probe: Callable[[], str]) -> Row:
    """(label, probe()), or (label, "error: ...") on one line if the probe raised."""
    try:
        return label, probe()
    except Exception as error:  # the doctor reports broken environments; it must not crash on one
        return label, _error_value(error)


def _memory_kind(facts: DeviceFacts) -> str:
    """'HBM3e', 'GDDR6X'...: the part's DRAM as its datasheet names it; 'DRAM' for a part without one."""
    from labkit.specs.datasheets import datasheet_for

    sheet = datasheet_for(facts.name)
    return sheet.memory_kind if sheet else "DRAM"


def _gpu_rows(facts: DeviceFacts) -> list[Row]:
    major, minor = facts.compute_capability
    pci_bus_id = current_pci_bus_id()
    clocks = read_clocks(pci_bus_id)
    now_sm = "not readable" if clocks is None else f"{clocks.sm_mhz:.0f} MHz"
    now_mem = "not readable" if clocks is None else f"{clocks.mem_mhz:.0f} MHz"
    release = read_driver_release(pci_bus_id)
    return [
        ("GPU", facts.name),
        ("compute capability", f"{major}.{minor}"),
        ("SMs", str(facts.sm_count)),
        ("SM clock", f"{facts.max_sm_clock_mhz:.0f} MHz max, {now_sm} now"),
        ("memory clock", f"{facts.max_mem_clock_mhz:.0f} MHz max, {now_mem} now"),
        ("memory bus", f"{facts.memory_bus_width_bits} bit"),
        ("L2", f"{facts.l2_bytes / 2**20:.0f} MiB ({facts.l2_bytes} bytes)"),
        (
            f"{_memory_kind(facts)} peak",
            f"{facts.hbm_peak_gbps:.0f} GB/s = 2 x {facts.max_mem_clock_mhz:.0f} MHz"
            f" x {facts.memory_bus_width_bits} bit / 8",
        ),
        _probe(
            "FP32 peak",
            lambda: f"{facts.fp32_peak_gflops / 1000:.1f} TFLOP/s = {facts.sm_count} SMs"
            f" x {fp32_lanes_per_sm(facts.compute_capability)} lanes x 2 (FMA) x {facts.max_sm_clock_mhz:.0f} MHz",
        ),
        _probe(
            "FP64 peak",
            lambda: f"{facts.fp64_peak_gflops / 1000:.2f} TFLOP/s = {facts.sm_count} SMs"
            f" x {fp64_lanes_per_sm(facts.compute_capability)} lanes x 2 (FMA) x {facts.max_sm_clock_mhz:.0f} MHz"
            f" (1:{round(1 / fp64_ratio(facts.compute_capability))} of FP32)",
        ),
        ("memory", f"{facts.memory_bytes / 1e9:.1f} GB"),
        ("driver", f"CUDA {facts.driver_version}" + (f" ({release})" if release else "")),
    ]


def _tool_rows(gpu: bool) -> list[Row]:
    rows = []
    ncu = find_tool("ncu")
    rows.append(("ncu", ncu or "not found"))
    if ncu and gpu:
        rows.append(_probe("ncu counters", lambda: ncu_counter_access(ncu)[1]))
    elif ncu:
        rows.append(("ncu counters", "not checked: no GPU"))
    for name in ("nsys", "cuobjdump", "nvdisasm"):
        rows.append((name, find_tool(name) or "not found"))
    return rows


def _size(bytes_: float) -> str:
    return f"{bytes_ / 1e9:.1f} GB"


def lab_rows(facts: DeviceFacts, available: dict[str, bool]) -> list[Row]:
    """What each lab will do on the GPU ``facts`` describes, with the tools ``available`` (by Need.tool):
    its sizes (the course's, or planned for this GPU, and the memory they hold at most), what differs
    on this device (labkit.labs.base.Lab.device_notes), and each step that runs without a missing tool."""
    from labkit.labs.base import labs

    rows: list[Row] = []
    newest, older = FLAVOURS[0], FLAVOURS[-1]   # labkit.gpu.setup's flavours, newest CUDA first
    oldest = newest.oldest_compute_capability
    if tuple(facts.compute_capability) < oldest:
        rows.append(("labs", f"CUDA {newest.cuda_major} compiles for compute capability {oldest[0]}.{oldest[1]} and "
                             f"newer: here the labs use the CUDA {older.cuda_major} packages (labkit.gpu.setup "
                             f"chooses them), and lab 02's SASS step a CUDA {older.cuda_major} nvcc"))
    for lab in labs().values():
        sizes = lab.sizes_for(facts)
        footprint = lab.footprint_bytes(sizes)
        if sizes == lab.gpu_sizes:
            plan = "the course's sizes (as on the H200)"
        else:
            differ = [name for name in type(sizes).model_fields if getattr(sizes, name) != getattr(lab.gpu_sizes, name)]
            plan = f"sizes planned for this GPU (differ from the H200's in {', '.join(differ)})"
        held = "" if footprint is None else f"; its buffers hold at most {_size(footprint)} of {_size(facts.memory_bytes)}"
        rows.append((lab.id, plan + held))
        rows += [(lab.id, note) for note in lab.device_notes(facts)]
        rows += [(lab.id, f"without {'ncu counters' if need.tool == 'ncu' else need.tool}: {need.step}: {need.without}")
                 for need in lab.needs if not available.get(need.tool, False)]
    return rows


def _cupy_importable() -> bool:
    try:
        import cupy  # noqa: F401
    except Exception:  # not installed, or installed for another CUDA
        return False
    return True


def available_tools(counters_readable: bool) -> dict[str, bool]:
    """Which of the labs' tools this machine has (ncu: only where it reads counters)."""
    return {"ncu": counters_readable, "nsys": find_tool("nsys") is not None, "nvcc": find_tool("nvcc") is not None,
            "cuobjdump": find_tool("cuobjdump") is not None, "cupy": _cupy_importable(),
            "triton": importlib.util.find_spec("triton") is not None}


def doctor_report(as_profile: str | None = None) -> list[Row]:
    """Backend; on a GPU its facts, clocks and peaks; library versions; profilers and their access;
    then what each lab will do on this GPU. ``as_profile`` (a labkit.specs.profiles name) says what
    each lab would do on that GPU instead, with this machine's tools."""
    backend = select_backend()
    gpu = backend == "cuda"
    rows: list[Row] = [("backend", "CUDA GPU" if gpu else f"simulator: {NO_GPU_NOTICE}")]
    facts = None
    if gpu:
        try:
            facts = read_device_facts()
            rows += _gpu_rows(facts)
        except Exception as error:  # see _probe
            rows.append(("GPU", _error_value(error)))
    for distribution in ("numpy", "numba", "numba-cuda", "nvtx"):
        rows.append((distribution, package_version(distribution)))
    rows.append(_probe("cupy", cupy_version))
    tool_rows = _tool_rows(gpu)
    rows += tool_rows
    counters = any(label == "ncu counters" and value.startswith("reads counters") for label, value in tool_rows)
    if as_profile is not None:
        from labkit.specs.profiles import PROFILES

        facts = PROFILES[as_profile]
        rows.append(("labs as on", f"{facts.name} (a profile of what its driver reports; tools as found here)"))
    elif not gpu:
        rows.append(("labs", "no GPU: each lab runs its kernels in the simulator at small size, checks them "
                             "against NumPy, then shows the results recorded on the course's H200 "
                             "(`labkit doctor --as t4` says what each would do on a T4)"))
    if facts is not None:
        rows += _probe_rows(lambda: lab_rows(facts, available_tools(counters)))
    return rows


def _probe_rows(make: Callable[[], list[Row]]) -> list[Row]:
    try:
        return make()
    except Exception as error:  # see _probe
        return [("labs", _error_value(error))]


def format_report(rows: list[Row]) -> str:
    """One row per line, values aligned after the longest label."""
    width = max((len(label) for label, _ in rows), default=0)
    return "\n".join(f"{label + ':':<{width + 1}} {value}" for label, value in rows)


def main() -> int:
    print(format_report(doctor_report()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
