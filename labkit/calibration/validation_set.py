"""Profile `labkit diagnose`'s validation set on a GPU, and probe lab 02's sweep, in one run.

``python3 -m labkit.calibration.validation_set OUTDIR`` (on the GPU machine, OUTDIR = $OUT):

1. lab 02's sweep probe (labkit.calibration.sweep_probe: each element width against the copy), into
   ``OUTDIR/sweep_probe.json``;
2. the validation set (labkit.calibration.validation_kernels): one ``ncu --set full --clock-control
   none --profile-from-start off`` process per group of cases; the target process sets each case
   up, runs it once unprofiled (compilation, plans, allocations), then once between
   ``cudaProfilerStart`` and ``cudaProfilerStop``, after an empty marker kernel
   ``vset_case_NNN`` whose name says which case the launches after it belong to;
3. each group's report exported as ncu's raw and details CSV pages, split per case into
   ``<case>/ncu_raw.csv`` and ``<case>/ncu_details.csv`` (what `labkit diagnose FOLDER` reads;
   the markers left out), with ``cases.json`` (each case: what it is, its launches, its status),
   all in ``OUTDIR/validation.tar.gz``; the ``.ncu-rep`` reports in ``OUTDIR/reports.tar.gz``
   when they fit; the log in ``OUTDIR/run.log``.

Nothing can hang it: every step runs in a child process group with a time limit, under one
deadline for the whole run (``--budget`` seconds, 420 by default; about 4 to 5 minutes expected on an H200); whatever was measured before a
limit is written. ``python3 -m labkit.calibration.validation_set target GROUP`` is what ncu runs.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time
import traceback
import warnings
from pathlib import Path

MARKER_PREFIX = "vset_case_"
#: The groups, in order, each one ncu process with its own time limit (seconds).
GROUP_LIMITS = {"apps": 150, "cupy_a": 80, "cupy_b": 100, "raw": 60, "exercises_a": 150, "exercises_b": 110, "exercises_c": 60}
SWEEP_LIMIT = 100
EXPORT_LIMIT = 120
DEFAULT_BUDGET = 420
LAUNCH_CAP = 300
#: What fits in one returned file.
MAX_FILE_BYTES = 15 << 20


def group_of(case) -> str:
    """The ncu process a case runs in: CuPy's cases in two halves, the exercises by chapter (1-3,
    4-5, and chapter 6's matrix products at 4096^3 in their own process)."""
    from labkit.calibration.validation_kernels import cases

    if case.group == "cupy":
        names = [c.name for c in cases() if c.group == "cupy"]
        return "cupy_a" if names.index(case.name) < len(names) // 2 else "cupy_b"
    if case.group == "exercises":
        chapter = case.name[3:5]
        return "exercises_a" if chapter in ("01", "02", "03") else "exercises_b" if chapter in ("04", "05") \
            else "exercises_c"
    return case.group


def marker_source(count: int) -> str:
    """CUDA C of ``count`` empty kernels vset_case_000 ... (one launch of one thread each)."""
    return "".join(f'extern "C" __global__ void {MARKER_PREFIX}{i:03d}() {{}}\n' for i in range(count))


# ----- inside ncu -------------------------------------------------------------------------------------
def target(group: str, only: set[str] | None = None) -> int:
    """Run the group's cases (those named in ``only``, if given): set up, run once unprofiled, then
    marker + run inside the profiler range."""
    import cupy

    from labkit.calibration.validation_kernels import cases
    from labkit.gpu import NumbaPerformanceWarning

    warnings.simplefilter("ignore", NumbaPerformanceWarning)
    every = cases()
    markers = cupy.RawModule(code=marker_source(len(every)))
    runtime = cupy.cuda.runtime
    for index, case in enumerate(every):
        if group_of(case) != group or (only and case.name not in only):
            continue
        started = time.monotonic()
        run = None
        try:
            run = case.setup()
            run()
            runtime.deviceSynchronize()
            runtime.profilerStart()
            try:
                markers.get_function(f"{MARKER_PREFIX}{index:03d}")((1,), (1,), ())
                run()
                runtime.deviceSynchronize()
            finally:
                runtime.profilerStop()
            print(f"VSET ok {case.name} {time.monotonic() - started:.1f}s", flush=True)
        except Exception as exc:   # one case's failure is reported, the others still run
            print(f"VSET failed {case.name}: {exc.__class__.__name__}: {str(exc)[:300]}", flush=True)
        finally:
            del run
            cupy.get_default_memory_pool().free_all_blocks()
    return 0


# ----- the orchestration ------------------------------------------------------------------------------
class Log:
    def __init__(self, path: Path):
        self.path = path
        self.start = time.monotonic()

    def __call__(self, message: str) -> None:
        line = f"[{time.monotonic() - self.start:7.1f}s] {message}"
        print(line, flush=True)
        with self.path.open("a") as f:
            f.write(line + "\n")


def run_limited(command: list[str], seconds: float, log_path: Path, env=None) -> tuple[int | None, float]:
    """Run ``command`` in its own process group, output to ``log_path``; kill the group after
    ``seconds``. (exit status or None when killed, seconds taken)."""
    started = time.monotonic()
    with log_path.open("ab") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        try:
            return process.wait(timeout=max(seconds, 1)), time.monotonic() - started
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
            return None, time.monotonic() - started


def read_csv(path: Path) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of an ncu CSV export: rows from the "ID" header on (anything before it dropped)."""
    rows = list(csv.reader(io.StringIO(path.read_text(encoding="utf-8", errors="replace"))))
    start = next((i for i, row in enumerate(rows) if row and row[0] == "ID"), None)
    if start is None:
        return [], []
    return rows[start], rows[start + 1:]


def write_csv(path: Path, rows: list[list[str]]) -> None:
    buffer = io.StringIO()
    csv.writer(buffer, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    path.write_text(buffer.getvalue(), encoding="utf-8")


def split_group(group: str, work: Path, cases_out: Path, index: dict) -> None:
    """Split one group's raw and details pages per case by the markers; fill ``index``."""
    from labkit.calibration.validation_kernels import cases

    raw_header, raw_rows = read_csv(work / f"{group}_raw.csv")
    details_header, details_rows = read_csv(work / f"{group}_details.csv")
    if not raw_header:
        return
    units = raw_rows[0] if raw_rows and not raw_rows[0][0].strip().isdigit() else None
    launches = raw_rows[1:] if units else raw_rows
    name_at = raw_header.index("Kernel Name")
    every = cases()
    owner: dict[str, str] = {}
    current = None
    for row in launches:
        name = row[name_at]
        if name.startswith(MARKER_PREFIX):
            current = every[int(name[len(MARKER_PREFIX):len(MARKER_PREFIX) + 3])].name
            index.setdefault(current, {})["marker_id"] = row[0]
            continue
        if current is not None:
            owner[row[0]] = current
            index[current].setdefault("launches", []).append({"id": row[0], "kernel": name})
    for case in {c for c in owner.values()}:
        folder = cases_out / case
        folder.mkdir(parents=True, exist_ok=True)
        write_csv(folder / "ncu_raw.csv", [raw_header] + ([units] if units else [])
                  + [row for row in launches if owner.get(row[0]) == case])
        if details_header:
            write_csv(folder / "ncu_details.csv",
                      [details_header] + [row for row in details_rows if owner.get(row[0]) == case])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) in (2, 3) and argv[0] == "target":
        return target(argv[1], set(argv[2].split(",")) if len(argv) == 3 else None)
    if not argv or argv[0].startswith("-"):
        print("usage: python3 -m labkit.calibration.validation_set OUTDIR [--budget SECONDS] [--groups a,b] [--cases x,y] "
              "[--no-sweep]",
              file=sys.stderr)
        return 2
    out = Path(argv[0])
    budget = float(argv[argv.index("--budget") + 1]) if "--budget" in argv else DEFAULT_BUDGET
    groups = argv[argv.index("--groups") + 1].split(",") if "--groups" in argv else list(GROUP_LIMITS)
    only = argv[argv.index("--cases") + 1] if "--cases" in argv else None
    if only:
        from labkit.calibration.validation_kernels import cases

        wanted = set(only.split(","))
        unknown = wanted - {c.name for c in cases()}
        if unknown:
            print(f"unknown cases: {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        groups = [g for g in groups if any(group_of(c) == g and c.name in wanted for c in cases())]
    out.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + budget
    log = Log(out / "run.log")
    work = Path(tempfile.mkdtemp(prefix="vset-"))
    cases_out = work / "cases"
    cases_out.mkdir()
    index: dict = {}
    exports: list[tuple[str, subprocess.Popen]] = []
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    repo = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [env.get("PYTHONPATH"), repo]))
    try:
        from labkit.profiling.ncu import find_ncu

        ncu = find_ncu() or "ncu"
        version = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=30).stdout.strip()
        log(f"ncu: {ncu} {version.splitlines()[-1] if version else '?'}; budget {budget:.0f} s; groups {groups}")
        if "--no-sweep" not in argv:
            seconds = min(SWEEP_LIMIT, deadline - time.monotonic() - 60)
            rc, took = run_limited([sys.executable, "-m", "labkit.calibration.sweep_probe", str(out / "sweep_probe.json"),
                                    str(seconds - 15)], seconds, out / "sweep_probe.log", env)
            log(f"sweep probe: exit {rc} in {took:.0f} s")
        for group in groups:
            left = deadline - time.monotonic() - 25
            if left < 20:
                log(f"{group}: skipped, {left:.0f} s left before the deadline")
                continue
            report = work / f"{group}.ncu-rep"
            command = [ncu, "--set", "full", "--clock-control", "none", "--profile-from-start", "off",
                       "--launch-count", str(LAUNCH_CAP), "--export", str(report), "--force-overwrite",
                       sys.executable, "-m", "labkit.calibration.validation_set", "target", group, *([only] if only else [])]
            rc, took = run_limited(command, min(GROUP_LIMITS[group], left), work / f"{group}.log", env)
            log(f"{group}: ncu exit {rc} in {took:.0f} s; "
                f"report {'present' if report.exists() else 'missing'}")
            if report.exists():
                for page in ("raw", "details"):
                    with (work / f"{group}_{page}.csv").open("wb") as f:
                        exports.append((f"{group}_{page}", subprocess.Popen(
                            [ncu, "--import", str(report), "--csv", "--page", page], stdout=f,
                            stderr=subprocess.DEVNULL, start_new_session=True)))
        for name, process in exports:
            try:
                process.wait(timeout=max(5, min(EXPORT_LIMIT, deadline - time.monotonic())))
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                log(f"export {name}: killed at the deadline")
        for group in groups:
            try:
                split_group(group, work, cases_out, index)
            except Exception as exc:
                log(f"split {group}: {exc.__class__.__name__}: {exc}")
    except Exception:
        log("orchestration failed: " + traceback.format_exc())
    finally:
        _write_outputs(out, work, cases_out, index, groups, log)
    return 0


def _write_outputs(out: Path, work: Path, cases_out: Path, index: dict, groups: list[str], log: Log) -> None:
    """cases.json, the per-case CSVs, the groups' CSVs and logs in validation.tar.gz; the reports
    in reports.tar.gz if they fit."""
    try:
        from labkit.calibration.validation_kernels import cases

        statuses = {}
        for group in groups:
            path = work / f"{group}.log"
            if path.exists():
                for line in path.read_text(errors="replace").splitlines():
                    if line.startswith("VSET "):
                        statuses[line.split()[2].rstrip(":")] = line[5:]
        document = {c.name: {"group": group_of(c), "what": c.what, "status": statuses.get(c.name, "not run"),
                             **index.get(c.name, {})} for c in cases()}
        (work / "cases.json").write_text(json.dumps(document, indent=1) + "\n")
        with tarfile.open(out / "validation.tar.gz", "w:gz") as tar:
            for path in sorted(work.iterdir()):
                if path.suffix in (".csv", ".log", ".json") or path.name == "cases":
                    tar.add(path, arcname=path.name)
        reports = sorted(work.glob("*.ncu-rep"))
        if reports:
            with tarfile.open(out / "reports.tar.gz", "w:gz") as tar:
                for path in reports:
                    tar.add(path, arcname=path.name)
            if (out / "reports.tar.gz").stat().st_size > MAX_FILE_BYTES:
                (out / "reports.tar.gz").unlink()
                log("reports.tar.gz over the size limit: left out (the CSV pages are in validation.tar.gz)")
        ok = sum(1 for v in document.values() if v["status"].startswith("ok"))
        log(f"written: {ok} of {len(document)} cases ok; validation.tar.gz "
            f"{(out / 'validation.tar.gz').stat().st_size / 1e6:.1f} MB")
    except Exception:
        log("writing outputs failed: " + traceback.format_exc())
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
