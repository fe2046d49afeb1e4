"""GPU calibration probes: each holds one of labkit's models (the memory-access analyzer, the
occupancy calculator) to what a real GPU and its profiler report. The work is planned in pure,
CPU-tested functions; only the launch and the profiler touch the GPU.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from labkit.errors import DEBUG_ENV
from labkit.records.files import Provenance

REPO = Path(__file__).resolve().parents[2]


def write_calibration(path: Path, lab_id: str, prov: Provenance, results: dict) -> Path:
    """A probe's output: its provenance and its findings, as JSON (the raw data a lab later records)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"lab": lab_id, "provenance": prov.model_dump(mode="json"), "results": results}
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return path


def csv_part(text: str) -> str:
    """The CSV lines of ncu's output (all quoted), without ``==PROF==`` lines or anything else."""
    return "".join(line + "\n" for line in text.splitlines() if line.startswith('"'))


def find_ncu_or_fail() -> str:
    """ncu's path; NcuError (one line) when it is not installed."""
    from labkit.profiling import ncu

    path = ncu.find_ncu()
    if path is None:
        raise ncu.NcuError("ncu (Nsight Compute) not found on PATH or in /usr/local/cuda/bin")
    return path


def probe_child(module: str, *args: str) -> list[str]:
    """The command ncu profiles: ``python -m <module> --launch ARGS`` (the probe's own launches)."""
    return [sys.executable, "-m", module, "--launch", *args]


def profile_child(command: list[str], raw: Path, timeout_seconds: float) -> tuple[str, float]:
    """Run one ncu ``command`` whose child imports this project (put first on its PYTHONPATH); keep
    ncu's CSV (``raw/ncu_raw.csv``) and the rest of its output (``raw/ncu_log.txt``); raise NcuError
    (one line) where ncu failed. Returns the CSV and the seconds the run took."""
    from labkit.profiling import ncu

    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    start = time.monotonic()
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout_seconds, env=env)
    seconds = time.monotonic() - start
    csv = csv_part(done.stdout)
    (raw / "ncu_raw.csv").write_text(csv)
    (raw / "ncu_log.txt").write_text(
        "".join(line + "\n" for line in done.stdout.splitlines() if not line.startswith('"')) + done.stderr)
    ncu.check_ncu_output(done.stdout + "\n" + done.stderr, done.returncode)
    return csv, seconds


def ncu_run_facts(ncu_path: str, command: list[str], seconds: float) -> dict:
    """What a calibration says of its ncu run: version, command, seconds."""
    version = subprocess.run([ncu_path, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    return {"version": version[-1] if version else "unknown", "command": command, "seconds": round(seconds, 1)}


def device_provenance(device_path: Path) -> Provenance:
    """The provenance of a probe run from the device facts its child wrote (gpu, compute_capability,
    driver), this project's commit, no clocks (a probe counts, it does not time)."""
    from labkit.records.files import provenance

    device = json.loads(device_path.read_text())
    return provenance(device["gpu"], tuple(device["compute_capability"]), device["driver"], None, None, REPO)


def run_or_launch(name: str, argv: list[str], run: Callable[[Path], Path], launch: Callable[..., None],
                  launch_paths: int) -> Path | int:
    """A profiled probe's command line: ``--launch`` and ``launch_paths`` paths (ncu's child) calls
    ``launch`` with them and gives 0; one OUTDIR calls ``run``, giving the file it wrote, or 1 with
    its error in one line (the traceback where LABKIT_DEBUG is set); anything else prints the usage
    and gives 2."""
    if len(argv) == 1 + launch_paths and argv[0] == "--launch":
        launch(*map(Path, argv[1:]))
        return 0
    if len(argv) != 1 or argv[0].startswith("-"):
        print(f"usage: python -m labkit.calibration.{name} OUTDIR", file=sys.stderr)
        return 2
    try:
        return run(Path(argv[0]))
    except Exception as error:
        if os.environ.get(DEBUG_ENV):
            raise
        print(f"{name}: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
