"""The calibration probe's pure parts: the plan, the CUDA source, the ncu command, the comparison;
and its whole run against a stand-in ncu that answers with the analyzer's own counts."""

import json
import os
import re
import shutil
import subprocess
import sys
from collections import Counter

import pytest

from labkit import calibration as probes
from labkit.calibration import access_probe as probe
from labkit.models.access import DRAM_READ_METRIC, Op, Space
from labkit.profiling import ncu


@pytest.fixture(scope="module")
def plan():
    return probe.patterns()


def test_plan_is_deterministic_and_seeded(plan):
    assert probe.patterns() == plan
    other = probe.patterns(seed=1)
    assert [p.name for p in other] == [p.name for p in plan]
    assert [p.offsets for p in other] != [p.offsets for p in plan]  # random families follow the seed


def test_plan_covers_every_space_direction_and_width(plan):
    assert 300 <= len(plan) <= 500  # a few hundred launches: 1 to 3 minutes under ncu
    assert len({p.name for p in plan}) == len(plan)
    per_kind = Counter((p.space, p.op, p.width_bytes) for p in plan)
    assert set(per_kind) == set(probe.combinations()) and len(per_kind) == 20
    assert min(per_kind.values()) >= 10
    families = Counter(p.family for p in plan)
    assert {"stride", "misaligned", "halves", "broadcast", "permutation", "random", "inactive", "pairs",
            "forum"} == set(families)
    strides = {int(p.name.rsplit("-", 1)[1]) for p in plan
               if p.family == "stride" and (p.space, p.op, p.width_bytes) == (Space.SHARED, Op.LOAD, 4)}
    assert strides == set(range(41))
    assert any(p.family == "stride" and p.space is Space.GLOBAL and p.offsets[1] >= 65536 for p in plan)


def test_plan_fits_its_buffers_and_is_valid(plan):
    probe.check_plan(plan)
    shared = [p for p in plan if p.space is Space.SHARED]
    assert max(max(p.offsets) + p.width_bytes for p in shared) <= probe.SHARED_TILE_BYTES
    assert all(p.access().width_bytes == p.width_bytes for p in plan)


def test_check_plan_names_the_bad_pattern():
    bad = probe.Pattern("x-misaligned", "misaligned", Space.GLOBAL, Op.LOAD, 8, (4,) + (0,) * 31)
    with pytest.raises(probe.ProbeError, match="pattern x-misaligned: lane 0 address 4 is not aligned"):
        probe.check_plan([bad])
    far = probe.Pattern("x-far", "stride", Space.SHARED, Op.LOAD, 4, (probe.SHARED_TILE_BYTES,) + (0,) * 31)
    with pytest.raises(probe.ProbeError, match="x-far reaches past its 40960-byte shared buffer"):
        probe.check_plan([far])


def test_inactive_offsets_become_inactive_lanes(plan):
    evens = next(p for p in plan if p.name == "shared-load-4B-inactive-evens")
    assert evens.access().active_lanes == tuple(range(0, 32, 2))
    assert next(p for p in plan if p.name == "global-store-16B-inactive-all").access().active_lanes == ()


def test_pattern_round_trips_through_json(plan):
    for pattern in plan[:20]:
        assert probe.Pattern.from_dict(json.loads(json.dumps(pattern.to_dict()))) == pattern


def test_prediction_is_the_analyzer_for_that_one_access(plan):
    by_name = {p.name: p for p in plan}
    column = probe.predict(by_name["shared-load-4B-stride-32"])
    assert column["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 32
    assert column["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 31
    assert sum(column.values()) == 63  # every other metric of the kernel is 0
    wide = probe.predict(by_name["global-load-16B-stride-1"])
    assert wide["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 16
    assert wide[DRAM_READ_METRIC] == 512
    assert probe.predict(by_name["shared-load-16B-forum-373160-2"])[
        "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 2


def test_cuda_source_has_one_kernel_per_kind():
    source = probe.cuda_source()
    names = re.findall(r'extern "C" __global__ void (\w+)\(', source)
    assert names == [probe.kernel_name(*kind) for kind in probe.combinations()]
    assert "__constant__ int c_offsets[32];" in source
    assert probe.kernel_name(Space.SHARED, Op.LOAD, 16) == "probe_shared_ld_16"


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="no nvcc to compile the probe kernels to PTX")
def test_each_probe_kernel_makes_exactly_one_access_of_its_width(tmp_path):
    """Compiled for sm_90 (no GPU needed): one ld/st of the pattern's space and width per kernel,
    and besides it only the never-taken keep-alive accesses, each behind a branch."""
    source = tmp_path / "probe.cu"
    source.write_text(probe.cuda_source())
    subprocess.run(["nvcc", "-arch=sm_90", "-ptx", "-o", str(tmp_path / "probe.ptx"), str(source)], check=True)
    ptx = (tmp_path / "probe.ptx").read_text()
    suffix = {1: "u8", 2: "u16", 4: "u32", 8: "v2.u32", 16: "v4.u32"}
    for space, op, width in probe.combinations():
        name = probe.kernel_name(space, op, width)
        body = ptx.split(f".entry {name}(")[1].split("\n}\n")[0]
        verb = "ld" if op is Op.LOAD else "st"
        access = re.findall(rf"\b{verb}\.{space.value}\.{re.escape(suffix[width])}\s", body)
        assert len(access) == 1, (name, access)
        assert body.count("ld.const.u32") == 1  # the lane's offset


def test_ncu_command_reads_counters_without_touching_clocks():
    command = probe.ncu_command("/opt/ncu", ["python", "-m", "x"])
    assert command[:5] == ["/opt/ncu", "--clock-control", "none", "--cache-control", "all"]
    metrics = command[command.index("--metrics") + 1].split(",")
    assert len(metrics) == 9 and DRAM_READ_METRIC in metrics
    assert "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum" in metrics
    assert command[command.index("-k") + 1] == "regex:^probe_"
    assert command[-6:] == ["--csv", "--page", "raw", "python", "-m", "x"]


def test_csv_part_keeps_only_quoted_rows():
    text = '==PROF== Connected\n"ID","Kernel Name"\n"",""\nok\n"0","probe_global_ld_4"\n==PROF== Disconnected\n'
    assert probes.csv_part(text) == '"ID","Kernel Name"\n"",""\n"0","probe_global_ld_4"\n'


def raw_csv(plan, values=None, names=None):
    """An ncu raw page for the plan: each row holds ``values(pattern)`` (default: the prediction)."""
    metrics = list(probe.METRICS)
    header = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream",
              "Block Size", "Grid Size", "Device", "CC", *metrics]
    units = [""] * 11 + ["sector" if "sectors" in m else "Kbyte" if m == DRAM_READ_METRIC else "" for m in metrics]
    lines = [header, units]
    for index, pattern in enumerate(plan):
        found = (values or probe.predict)(pattern)
        cells = [f"{found[m] / 1000:g}" if m == DRAM_READ_METRIC else f"{found[m]:,}" for m in metrics]
        name = names[index] if names else pattern.kernel
        lines.append([str(index), "9", "python3", "h", name, "1", "7", "(32, 1, 1)", "(1, 1, 1)", "0", "9.0",
                      *cells])
    return "".join(",".join(f'"{cell}"' for cell in line) + "\n" for line in lines)


def test_compare_finds_no_mismatch_when_ncu_agrees(plan):
    rows = probe.compare(plan[:30], ncu.parse_raw_csv(raw_csv(plan[:30])))
    assert [row["name"] for row in rows] == [p.name for p in plan[:30]]
    assert all(row["mismatches"] == [] for row in rows)
    assert rows[0]["measured"][DRAM_READ_METRIC] == rows[0]["predicted"][DRAM_READ_METRIC]  # Kbyte -> bytes


def test_compare_names_each_differing_counter(plan):
    sample = [p for p in plan if p.space is Space.SHARED and p.op is Op.LOAD][:5]

    def one_more_wavefront(pattern):
        values = dict(probe.predict(pattern))
        values["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] += 1
        return values

    rows = probe.compare(sample, ncu.parse_raw_csv(raw_csv(sample, values=one_more_wavefront)))
    assert all(row["mismatches"] == ["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] for row in rows)
    stats = probe.summary(rows)
    assert stats["mismatched"] == 5 and stats["patterns"] == 5
    assert stats["mismatches_by_metric"] == {"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": 5}
    assert sum(stats["mismatches_by_family"].values()) == 5
    assert stats["first_mismatches"] == [p.name for p in sample]


def test_compare_refuses_rows_that_do_not_line_up(plan):
    sample = plan[:3]
    with pytest.raises(probe.ProbeError, match="ncu profiled 2 launches, the plan has 3 patterns"):
        probe.compare(sample, ncu.parse_raw_csv(raw_csv(sample[:2])))
    swapped = [sample[0].kernel, "probe_shared_st_4", sample[2].kernel]
    with pytest.raises(probe.ProbeError, match=rf"launch 1 ran probe_shared_st_4, the plan expects {sample[1].kernel}"):
        probe.compare(sample, ncu.parse_raw_csv(raw_csv(sample, names=swapped)))


def test_summary_reports_dram_against_the_floor(plan):
    loads = [p for p in plan if p.space is Space.GLOBAL and p.op is Op.LOAD][:4]

    def dram(pattern):
        values = dict(probe.predict(pattern))
        values[DRAM_READ_METRIC] = 0 if pattern is loads[0] else values[DRAM_READ_METRIC] + 1000
        return values

    rows = probe.compare(loads, ncu.parse_raw_csv(raw_csv(loads, values=dram)))
    stats = probe.summary(rows)["dram"]
    assert stats["below_floor"] == [loads[0].name] and stats["global_load_patterns"] == 4
    assert stats["excess_bytes"]["max"] == 1000 and stats["excess_bytes"]["min"] < 0


STAND_IN_NCU = '''\
#!{python}
"""Stands in for ncu: answers --version, else writes the device file and a raw page whose
counters are the analyzer's predictions (DRAM: the floor plus 5 Kbyte of overhead)."""
import json, sys
if sys.argv[1] == "--version":
    print("NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.3.1.0 (stand-in)")
    sys.exit(0)
from labkit import calibration as probes
from labkit.calibration import access_probe as probe
from labkit.models.access import DRAM_READ_METRIC
at = sys.argv.index("--launch")
plan = [probe.Pattern.from_dict(p) for p in json.load(open(sys.argv[at + 1]))]
json.dump({{"gpu": "Stand-in GPU", "compute_capability": [9, 0], "driver": "13000"}}, open(sys.argv[at + 2], "w"))
metrics = list(probe.METRICS)
print("==PROF== Connected to process 1")
print(",".join('"%s"' % c for c in ["ID", "Kernel Name", "Block Size", "Grid Size", *metrics]))
print(",".join('"%s"' % ("Kbyte" if m == DRAM_READ_METRIC else "") for m in ["", "", "", "", *metrics]))
for i, pattern in enumerate(plan):
    found = probe.predict(pattern)
    cells = [str(found[m] / 1000 + 5) if m == DRAM_READ_METRIC else str(found[m]) for m in metrics]
    print(",".join('"%s"' % c for c in [str(i), pattern.kernel, "(32, 1, 1)", "(1, 1, 1)", *cells]))
print("==PROF== Disconnected from process 1", file=sys.stderr)
'''


def test_whole_run_against_a_stand_in_ncu(tmp_path, monkeypatch, capsys):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    stand_in = bin_dir / "ncu"
    stand_in.write_text(STAND_IN_NCU.format(python=sys.executable))
    stand_in.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    out = tmp_path / "results"
    assert probe.main([str(out)]) == 0
    message = capsys.readouterr().out
    assert re.match(r"\d+ patterns, 0 differ from the analyzer; DRAM below the floor: 0; ncu [\d.]+ s; wrote ", message)
    document = json.loads((out / probe.CALIBRATION_FILE).read_text())
    assert document["lab"] == "lab-02" and document["provenance"]["gpu"] == "Stand-in GPU"
    assert document["provenance"]["compute_capability"] == "9.0"
    results = document["results"]
    assert len(results["patterns"]) == len(probe.patterns())
    assert results["ncu"]["version"] == "Version 2025.3.1.0 (stand-in)"
    assert results["ncu"]["command"][1:5] == ["--clock-control", "none", "--cache-control", "all"]
    assert results["summary"]["dram"]["excess_bytes"]["min"] == 5000
    raw = out / "access_calibration"
    assert (raw / "ncu_raw.csv").read_text().startswith('"ID","Kernel Name"')
    assert "Connected to process 1" in (raw / "ncu_log.txt").read_text()
    assert sorted(p.name for p in out.iterdir()) == ["access_calibration", "access_calibration.json"]


def test_usage_and_errors_are_one_line(tmp_path, monkeypatch, capsys):
    assert probe.main([]) == 2
    assert "usage: python -m labkit.calibration.access_probe OUTDIR" in capsys.readouterr().err
    monkeypatch.setattr(ncu, "find_ncu", lambda: None)
    assert probe.main([str(tmp_path)]) == 1
    error = capsys.readouterr().err
    assert error.startswith("access_probe: NcuError: ncu (Nsight Compute) not found") and error.count("\n") == 1
