"""`labkit diagnose` on real reports (lab 04's and lab 05's recorded ncu exports, the H200 probe), in
three languages, as text that fits 80 columns and as JSON; every foreign or incomplete input is one
line naming what is missing and the ncu command that produces it."""

import csv
import io
import json
import os
import stat
import sys

import pytest

from labkit.labs.lab05.results import CONTROL, PLANTED
from labkit.report.columns import columns
from labkit.report.diagnosis_text import WIDTH
from tests.conftest import REPO_ROOT
from tests.labs.test_cli import labkit

LAB04 = REPO_ROOT / "labs/04-profiling/results/nvidia-h200"
LAB05 = REPO_ROOT / "labs/05-checklist/results/nvidia-h200"
PROBE = REPO_ROOT / "tests/fixtures/h200-probe"
NO_NCU = {"PATH": os.path.dirname(sys.executable)}   # a PATH where no ncu can be found


def diagnose(*args, **env):
    return labkit("diagnose", *map(str, args), **env)


@pytest.mark.parametrize("lang", ("en", "fr", "zh"))
def test_every_line_fits_an_80_column_terminal(lang):
    for folder in (LAB04, LAB05, PROBE):
        done = diagnose(folder, "--lang", lang)
        assert done.returncode == 0, done.stdout + done.stderr
        wide = [line for line in done.stdout.splitlines() if columns(line) > WIDTH]
        assert not wide, wide


def test_text_names_each_kernel_its_first_lever_and_what_to_read():
    done = diagnose(LAB04 / "ncu_raw.csv", LAB04 / "ncu_details.csv")
    out = done.stdout
    for name in ("transpose_naive", "transpose_tiled", "sum_squares", "scale_add", "fused_chain"):
        assert f"━━ {name} · ID" in out
    naive = out.split("━━ transpose_naive")[1].split("━━ ")[0]
    assert "First lever — Coalescing" in naive and "UncoalescedGlobalAccess" in naive
    assert "ch.\u00a02 · Stride and misalignment" in naive.replace("\n", " ").replace("      ", "")
    tiled = out.split("━━ transpose_tiled")[1].split("━━ ")[0]
    assert "instruction-bound (not arithmetic)" in tiled and "compute-bound" not in tiled
    assert "16 blocks of 256 threads for 132 SMs" in out.split("━━ scale_add")[1]
    assert "nsys" in out.splitlines()[-1]


def test_french_and_chinese_text():
    french = diagnose(LAB04, "--lang", "fr", "--kernel", "^scale_add$").stdout
    assert "Premier levier — Coût de lancement et grilles trop petites" in french
    assert "16 blocs pour 132 SM" in french
    chinese = diagnose(LAB04, "--lang", "zh", "--kernel", "^scale_add$").stdout
    assert "首要手段——启动开销与过小的 grid" in chinese
    assert "━━ transpose" not in chinese


def test_json_for_scripts():
    done = diagnose(LAB04, "--json")
    document = json.loads(done.stdout)
    assert document["has_rules"] is True
    firsts = {launch["kernel"]: launch["first_item"] for launch in document["launches"]}
    assert firsts == {"transpose_naive": "coalescing", "transpose_tiled": "latency", "sum_squares": "latency",
                      "scale_add": "launch", "fused_chain": "launch"}
    naive = next(launch for launch in document["launches"] if launch["kernel"] == "transpose_naive")
    assert naive["diagnosis"]["quadrant"] == "memory-bound"
    assert naive["assessment"]["items"][0]["rule"] == "UncoalescedGlobalAccess"


def test_lab05s_recorded_exports_put_each_planted_flaw_first():
    """The command a reader runs, on the raw and details pages lab 05 recorded on the H200: each
    mystery kernel's planted flaw first, the control at the roof."""
    document = json.loads(diagnose(LAB05 / "ncu_raw.csv", LAB05 / "ncu_details.csv", "--json").stdout)
    firsts = {launch["kernel"]: launch["first_item"] for launch in document["launches"]}
    verdicts = {launch["kernel"]: launch["verdict"] for launch in document["launches"]}
    for mystery, planted in PLANTED.items():
        if mystery == CONTROL:
            assert verdicts[f"kernel_{mystery}"] == "at-roof"
        else:
            assert firsts[f"kernel_{mystery}"] == planted, mystery


def test_the_launch_line_shows_ncus_waves():
    """kernel_g: 1,056 blocks, 8 per SM, yet 2.67 waves: its registers let only 3 blocks per SM run."""
    out = diagnose(LAB05, "--kernel", "^kernel_g$").stdout
    launch = " ".join(out.split("Launch", 1)[1].split("Speed of Light")[0].split())
    assert launch.startswith("1,056 blocks of 256 threads for 132 SMs (8 per SM) · Waves Per SM 2.67 ·")  # split() took the no-break spaces
    assert "First lever — Occupancy held down by a resource" in out


def test_the_raw_page_alone_says_its_gains_are_labkits():
    done = diagnose(LAB04 / "ncu_raw.csv", "--kernel", "naive")
    assert done.returncode == 0
    flowing = " ".join(done.stdout.split())
    assert "(labkit estimate)" in flowing and "export `--page details` for ncu's Est. Speedup" in flowing


def _raw_without(tmp_path, predicate):
    rows = list(csv.reader(io.StringIO((LAB04 / "ncu_raw.csv").read_text())))
    keep = [i for i, name in enumerate(rows[0]) if not predicate(name)]
    path = tmp_path / "raw.csv"
    with path.open("w", newline="") as out:
        csv.writer(out, quoting=csv.QUOTE_ALL).writerows([[row[i] for i in keep] for row in rows])
    return path


@pytest.mark.parametrize("make, line", [
    (lambda tmp: (tmp / "notes.csv", "a,b\n1,2\n"),
     "is not an Nsight Compute CSV export (no \"ID\",\"Kernel Name\" header): export one with `ncu --import "
     "REPORT.ncu-rep --csv --page raw > raw.csv`"),
    (lambda tmp: (tmp / "empty.csv", ""), "is not an Nsight Compute CSV export"),
])
def test_foreign_files_are_one_line(tmp_path, make, line):
    path, text = make(tmp_path)
    path.write_text(text)
    done = diagnose(path)
    assert done.returncode == 1
    [only] = done.stdout.strip().splitlines()
    assert only.startswith(f"labkit: {path} {line}")
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("args, line", [
    ((LAB04 / "ncu_details.csv",), "labkit: the details page alone lacks the raw metrics the diagnosis reads: export "
                                   "them too with `ncu --import REPORT.ncu-rep --csv --page raw > raw.csv` and pass "
                                   "both files"),
    ((LAB04, "--kernel", "gemm"), "labkit: no kernel of the report matches --kernel 'gemm'; it holds fused_chain, "
                                  "scale_add, sum_squares, transpose_naive, transpose_tiled"),
    ((LAB04, "--kernel", "("), "labkit: --kernel '(' is not a regular expression: missing ), unterminated subpattern "
                               "at position 0"),
    ((REPO_ROOT / "nowhere.csv",), f"labkit: {REPO_ROOT / 'nowhere.csv'} does not exist"),
    ((REPO_ROOT / "docs",), f"labkit: {REPO_ROOT / 'docs'} holds neither ncu_raw.csv nor ncu_details.csv: pass the "
                            "CSV files, or export them with `ncu --import REPORT.ncu-rep --csv --page raw > raw.csv`"),
    ((LAB04 / "ncu_raw.csv", PROBE / "ncu_raw.csv"), "labkit: give one report at a time: its raw page and, optionally, "
                                                     "its details page (got 2 raw and 0 details pages)"),
    ((LAB04 / "ncu_raw.csv", PROBE / "ncu_details.csv"), "labkit: the raw and details pages list different launches: "
                                                         "the raw page's launch 0 is transpose_naive, the details "
                                                         "page's next is 0 (copy_coalesced) (export both pages from "
                                                         "the same report)"),
])
def test_mistakes_are_one_line(args, line):
    done = diagnose(*args)
    assert done.returncode == 1
    assert done.stdout.strip().splitlines() == [line]


def test_a_report_without_warp_state_metrics_names_the_ncu_option(tmp_path):
    raw = _raw_without(tmp_path, lambda name: "issue_stalled" in name)
    done = diagnose(raw)
    assert done.returncode == 1
    assert done.stdout.strip() == ("labkit: kernel transpose_naive: no warp-state metrics in the report (profile with "
                                   "--set full)")


def test_a_report_without_speed_of_light_names_the_metric_and_the_ncu_options(tmp_path):
    raw = _raw_without(tmp_path, lambda name: name.startswith("sm__throughput"))
    done = diagnose(raw)
    assert done.returncode == 1
    assert done.stdout.strip() == ("labkit: kernel transpose_naive: metric sm__throughput.avg.pct_of_peak_sustained_"
                                   "elapsed is not in the ncu report (profile with --set full and export --page raw)")


def test_an_ncu_rep_without_ncu_says_how_to_export_it(tmp_path):
    report = tmp_path / "report.ncu-rep"
    report.write_bytes(b"\0")
    done = diagnose(report, **NO_NCU)
    assert done.returncode == 1
    assert done.stdout.strip() == (
        f"labkit: {report} is an ncu report, and reading it needs ncu (Nsight Compute), not found here: install it, "
        "or export both pages where it is installed: `ncu --import REPORT.ncu-rep --csv --page raw > raw.csv` and "
        "`ncu --import REPORT.ncu-rep --csv --page details > details.csv`")


def test_an_ncu_rep_is_read_through_ncu_import(tmp_path):
    """A stand-in ncu on PATH answers `ncu -i REPORT --csv --page raw|details` with lab 04's pages."""
    fake = tmp_path / "bin" / "ncu"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\n[ \"$1\" = -i ] || exit 2\ncase \"$5\" in\n"
                    f"  raw) cat '{LAB04 / 'ncu_raw.csv'}' ;;\n  details) cat '{LAB04 / 'ncu_details.csv'}' ;;\n"
                    "  *) exit 3 ;;\nesac\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    report = tmp_path / "report.ncu-rep"
    report.write_bytes(b"\0")
    done = diagnose(report, "--kernel", "tiled", "--json", PATH=f"{fake.parent}:{os.environ['PATH']}")
    assert done.returncode == 0, done.stdout + done.stderr
    document = json.loads(done.stdout)
    assert [launch["first_item"] for launch in document["launches"]] == ["latency"]
