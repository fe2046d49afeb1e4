"""Profile the traced patterns (labkit.calibration.trace_patterns) with Nsight Compute on a GPU.

``python -m labkit.calibration.trace_probe OUTDIR`` runs one ``ncu --clock-control none --cache-control
all --metrics <the analyzer's counters>`` process over a child that launches each pattern once, in
plan order, and writes ``OUTDIR/trace_calibration.json`` (a results envelope with provenance): each
pattern's name and ncu's value of every counter of labkit.models.access.NCU_METRICS. Rows map back to
patterns by launch order, checked against each row's kernel name. The folder
``OUTDIR/trace_calibration/`` beside it keeps ncu's CSV and log. The CPU tests
(tests/unit/test_trace_determinism.py) compare those values with the traces of the same launches.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from labkit.calibration import run_or_launch
from labkit.models.access import NCU_METRICS

CALIBRATION_FILE = "trace_calibration.json"
COUNTER_METRICS = tuple(NCU_METRICS)


class TraceProbeError(RuntimeError):
    """The launches and ncu's rows do not line up (one line)."""


def kernel_filter(functions: list[str]) -> str:
    """ncu's -k for the patterns' kernels: their function names (ncu's demangled names hold them)."""
    return "regex:" + "|".join(sorted(set(functions)))


def ncu_command(ncu: str, child: list[str], functions: list[str]) -> list[str]:
    """One ncu process over the child: the counters only, clocks untouched, caches flushed per pass."""
    return [ncu, "--clock-control", "none", "--cache-control", "all", "--metrics", ",".join(COUNTER_METRICS),
            "-k", kernel_filter(functions), "--csv", "--page", "raw", *child]


def launch_all(device_path: Path) -> None:
    """Compile and launch every pattern once on the GPU (ncu's child); the device's identity to ``device_path``."""
    import numpy as np

    from labkit.calibration.trace_patterns import patterns
    from labkit.gpu import cuda

    for pattern in patterns():
        arguments = [cuda.to_device(a) if isinstance(a, np.ndarray) else a for a in pattern.arguments()]
        pattern.kernel[pattern.grid, pattern.block](*arguments)
    cuda.synchronize()
    import cupy

    properties = cupy.cuda.runtime.getDeviceProperties(0)
    name = properties["name"]
    device_path.write_text(json.dumps({
        "gpu": name.decode() if isinstance(name, bytes) else name,
        "compute_capability": [properties["major"], properties["minor"]],
        "driver": str(cupy.cuda.runtime.driverGetVersion()),
    }))


def compare(names: list[tuple[str, str]], profiles: list) -> list[dict]:
    """Each pattern's ncu counters, from the rows of its launch (by launch order).

    ``names``: (pattern name, kernel function name) in launch order."""
    if len(profiles) != len(names):
        raise TraceProbeError(f"ncu profiled {len(profiles)} launches, the plan has {len(names)} patterns")
    rows = []
    for (name, function), profile in zip(names, sorted(profiles, key=lambda p: p.id)):
        if function not in profile.name:
            raise TraceProbeError(f"launch {profile.id} ran {profile.name}, the plan expects {function} ({name})")
        rows.append({"name": name, "measured": {metric: profile.value(metric) for metric in COUNTER_METRICS}})
    return rows


def run(outdir: Path) -> Path:
    """Profile every pattern in one ncu process; write the calibration and its raw folder."""
    from labkit.calibration import (device_provenance, find_ncu_or_fail, ncu_run_facts, probe_child, profile_child,
        write_calibration)
    from labkit.calibration.trace_patterns import patterns
    from labkit.profiling import ncu

    ncu_path = find_ncu_or_fail()
    raw = outdir / Path(CALIBRATION_FILE).stem
    raw.mkdir(parents=True, exist_ok=True)
    device_path = raw / "device.json"
    names = [(p.name, p.kernel.py_func.__name__) for p in patterns()]
    command = ncu_command(ncu_path, probe_child("labkit.calibration.trace_probe", str(device_path)),
                          [function for _, function in names])
    csv, seconds = profile_child(command, raw, timeout_seconds=600)
    results = {"patterns": compare(names, ncu.parse_raw_csv(csv)), "ncu": ncu_run_facts(ncu_path, command, seconds)}
    prov = device_provenance(device_path)
    return write_calibration(outdir / CALIBRATION_FILE, "lab-02", prov, results)


def main(argv: list[str] | None = None) -> int:
    """``trace_probe OUTDIR`` (on a GPU, with ncu), or ``trace_probe --launch DEVICE`` (ncu's child)."""
    path = run_or_launch("trace_probe", sys.argv[1:] if argv is None else argv, run, launch_all, 1)
    if isinstance(path, int):
        return path
    print(f"{len(json.loads(path.read_text())['results']['patterns'])} traced patterns profiled; wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
