"""Chapter 4's diagnosis on the four kernels profiled on the H200 (tests/fixtures/h200-probe).

Expectations come from the files: the details page (what the ncu report shows a reader) and
ncu's own rule texts are the reference the raw-metric readings must agree with.
"""

import re
from dataclasses import replace
from pathlib import Path

import pytest

from labkit.profiling import diagnosis as d
from labkit.profiling.units import UnitLoad  # noqa: F401  (d.UnitLoad below)
from labkit.profiling import ncu
from labkit.report.labels import label

PROBE = Path(__file__).resolve().parents[1] / "fixtures" / "h200-probe"
KERNELS = ("copy_coalesced", "copy_strided", "copy_c128", "spill")
#: 2^24 float32 read and written (program.py: n = 1 << 24).
COPY_USEFUL_BYTES = 2 * (1 << 24) * 4


@pytest.fixture(scope="module")
def profiles():
    merged = ncu.merge_profiles(
        ncu.parse_raw_csv((PROBE / "ncu_raw.csv").read_text()),
        ncu.parse_details_csv((PROBE / "ncu_details.csv").read_text()),
    )
    return {k.name: k for k in merged}


@pytest.mark.parametrize("name", KERNELS)
def test_speed_of_light_matches_the_report_page(profiles, name):
    kernel = profiles[name]
    sol = d.SpeedOfLight.from_profile(kernel)
    page = {k: m.value for k, m in kernel.sections["GPU Speed Of Light Throughput"].items()}
    assert sol.compute_pct == pytest.approx(page["Compute (SM) Throughput"], abs=0.006)
    assert sol.memory_pct == pytest.approx(page["Memory Throughput"], abs=0.006)
    assert sol.dram_pct == pytest.approx(page["DRAM Throughput"], abs=0.006)
    assert sol.l1_pct == pytest.approx(page["L1/TEX Cache Throughput"], abs=0.006)
    assert sol.l2_pct == pytest.approx(page["L2 Cache Throughput"], abs=0.006)
    assert sol.duration_seconds == pytest.approx(page["Duration"] * 1e-6, abs=0.006e-6)


def _ncu_bottleneck(kernel):
    """ncu's SOLBottleneck rule, in the chapter's words (it uses the same 60 % threshold)."""
    text = next(r.description for r in kernel.rules if r.name == "SOLBottleneck")
    assert "60.0% of peak" in text or text.startswith("Memory is more heavily utilized")
    if text.startswith("This workload exhibits low compute throughput and memory bandwidth"):
        return d.Quadrant.LATENCY_BOUND
    if text.startswith("Memory is more heavily utilized than Compute"):
        return d.Quadrant.MEMORY_BOUND
    raise AssertionError(text)


@pytest.mark.parametrize(
    "name, expected",
    [("copy_coalesced", d.Quadrant.LATENCY_BOUND), ("copy_strided", d.Quadrant.MEMORY_BOUND),
     ("copy_c128", d.Quadrant.MEMORY_BOUND), ("spill", d.Quadrant.MEMORY_BOUND)],
)
def test_quadrant_agrees_with_ncu_own_bottleneck_rule(profiles, name, expected):
    kernel = profiles[name]
    assert d.quadrant(d.SpeedOfLight.from_profile(kernel)) is expected
    assert _ncu_bottleneck(kernel) is expected


@pytest.mark.parametrize(
    "compute, memory, expected",
    [(8, 11, d.Quadrant.LATENCY_BOUND),            # the chapter's quiz q04-low-low
     (10, 90, d.Quadrant.MEMORY_BOUND),
     (90, 10, d.Quadrant.COMPUTE_BOUND),
     (90, 90, d.Quadrant.BALANCED),
     (d.HIGH_PCT, d.HIGH_PCT - 0.1, d.Quadrant.COMPUTE_BOUND),
     (d.HIGH_PCT - 0.1, d.HIGH_PCT - 0.1, d.Quadrant.LATENCY_BOUND)],
)
def test_quadrant_table(compute, memory, expected):
    sol = d.SpeedOfLight(compute_pct=compute, memory_pct=memory, dram_pct=memory, l1_pct=0.0, l2_pct=0.0,
                         duration_seconds=1e-3)
    assert d.quadrant(sol) is expected


def test_sectors_per_request_show_coalescing(profiles):
    spr = {name: d.MemoryWorkload.from_profile(profiles[name]).sectors_per_request for name in KERNELS}
    assert spr["copy_coalesced"] == 4.0            # 128 bytes per warp: 4 sectors, the ideal
    assert spr["copy_strided"] == 32.0             # one sector per thread, the catastrophe
    assert spr["copy_c128"] == 16.0                # 8 of every 16 bytes used by each LDG.E.64
    assert spr["spill"] == pytest.approx(5111808 / 1048576)


def test_sectors_per_request_without_global_loads():
    workload = d.MemoryWorkload(**{name: 0.0 for name in d.MemoryWorkload.model_fields})
    assert workload.sectors_per_request is None
    assert workload.store_sectors_per_request is None


def test_store_coalescing_is_read_like_loads(profiles):
    """The probe's copies write what they read: strided stores spread over one sector per thread."""
    strided = d.MemoryWorkload.from_profile(profiles["copy_strided"])
    coalesced = d.MemoryWorkload.from_profile(profiles["copy_coalesced"])
    assert coalesced.store_sectors_per_request == pytest.approx(4)
    assert strided.store_sectors_per_request == pytest.approx(32)


def test_dram_bytes_add_read_and_write_whatever_their_unit(profiles):
    strided = d.MemoryWorkload.from_profile(profiles["copy_strided"])
    assert strided.dram_read_bytes == pytest.approx(1.608408e9)
    assert strided.dram_write_bytes == pytest.approx(536.1344e6)
    assert strided.dram_bytes == pytest.approx(1.608408e9 + 536.1344e6)
    assert strided.l2_hit_pct == pytest.approx(31.957932)
    assert strided.l1_hit_pct == 0.0


def test_only_the_spill_kernel_uses_local_memory(profiles):
    for name in KERNELS:
        workload = d.MemoryWorkload.from_profile(profiles[name])
        assert workload.spills is (name == "spill")
        assert workload.shared_bank_conflicts == 0
    spill = d.MemoryWorkload.from_profile(profiles["spill"])
    assert spill.local_load_bytes == 32 * 33696756
    assert spill.local_store_bytes == 32 * 8390784


def test_strided_copy_moves_sixteen_times_the_useful_bytes(profiles):
    strided = d.MemoryWorkload.from_profile(profiles["copy_strided"])
    traffic = d.efficiency(COPY_USEFUL_BYTES, strided.dram_bytes)
    assert traffic.excess_factor == pytest.approx(2144542400 / COPY_USEFUL_BYTES)
    assert 15 < traffic.excess_factor < 17


def test_a_short_kernel_can_leave_its_writes_in_l2(profiles):
    """The documented caveat, measured: the coalesced copy's DRAM writes are short of its output."""
    coalesced = d.MemoryWorkload.from_profile(profiles["copy_coalesced"])
    assert coalesced.dram_write_bytes < COPY_USEFUL_BYTES / 2
    assert d.efficiency(COPY_USEFUL_BYTES, coalesced.dram_bytes).efficiency > 1


def test_efficiency_needs_bytes():
    with pytest.raises(ValueError, match="dram_bytes must be positive"):
        d.efficiency(1.0, 0.0)


def _rule_share_pct(kernel, marker):
    """The share ncu's CPIStall rule quotes for a stall ("about 51.1% of the total average")."""
    text = next(r.description for r in kernel.rules if r.name == "CPIStall" and marker in r.description)
    return float(re.search(r"about ([\d.]+)% of the total", text).group(1))


def test_strided_copy_stalls_on_memory_then_drain(profiles):
    kernel = profiles["copy_strided"]
    stalls = d.stall_reasons(kernel)
    assert [s.reason for s in stalls[:3]] == ["long_scoreboard", "drain", "short_scoreboard"]
    assert [s.name for s in stalls[:3]] == ["Long Scoreboard", "Drain", "Short Scoreboard"]
    assert stalls[0].cycles_per_issue == pytest.approx(135.340025)
    assert round(stalls[0].pct, 1) == _rule_share_pct(kernel, "scoreboard dependency on a L1TEX")
    assert round(stalls[1].pct, 1) == _rule_share_pct(kernel, "after EXIT")
    assert stalls[0].remedy == "hide-memory-latency"
    assert stalls[1].remedy == "coalesce-stores"


@pytest.mark.parametrize("name", KERNELS)
def test_stalls_are_sorted_and_exclude_selected(profiles, name):
    stalls = d.stall_reasons(profiles[name])
    cycles = [s.cycles_per_issue for s in stalls]
    assert cycles == sorted(cycles, reverse=True)
    assert "selected" not in {s.reason for s in stalls}
    assert stalls[0].reason == "long_scoreboard"
    assert round(stalls[0].pct, 1) == _rule_share_pct(profiles[name], "scoreboard dependency on a L1TEX")


def test_spill_kernel_hits_the_local_global_queue(profiles):
    stalls = {s.reason: s for s in d.stall_reasons(profiles["spill"])}
    assert stalls["lg_throttle"].name == "LG Throttle"
    assert stalls["lg_throttle"].cycles_per_issue == pytest.approx(1.974967)
    assert stalls["lg_throttle"].remedy == "lg-queue" != d.REMEDIES["mio_throttle"]
    assert stalls["imc_miss"].name == "IMC Miss" and stalls["imc_miss"].remedy is None
    assert stalls["branch_resolving"].name == "Branch Resolving"


def test_stall_reasons_need_warp_state_metrics(profiles):
    kernel = profiles["copy_coalesced"]
    bare = replace(kernel, metrics={k: m for k, m in kernel.metrics.items() if "issue_stalled" not in k})
    with pytest.raises(ncu.NcuError, match="no warp-state metrics"):
        d.stall_reasons(bare)


def test_remedies_cover_the_chapter_tree_each_with_its_words():
    chapter = {"long_scoreboard", "mio_throttle", "lg_throttle", "barrier", "math_pipe_throttle",
               "not_selected", "short_scoreboard", "wait"}
    assert chapter <= set(d.REMEDIES)
    assert len(set(d.REMEDIES.values())) == len(d.REMEDIES), "each stall reason has its own remedy"
    for remedy in [*d.REMEDIES.values(), *(f.value for f in d.Finding)]:
        for lang in ("en", "fr", "zh"):
            assert label(lang, f"value.{remedy}")


def test_rules_by_speedup(profiles):
    kernel = profiles["copy_strided"]
    rules = d.rules_by_speedup(kernel)
    assert sorted(map(id, rules)) == sorted(map(id, kernel.rules))
    rules = [r for r in rules if r.name not in d.ADVISORY_RULES]
    ranked = [r for r in rules if r.speedup_pct is not None]
    for group in ("global", "local"):
        speedups = [r.speedup_pct for r in ranked if r.speedup_type == group]
        assert speedups == sorted(speedups, reverse=True)
    types = [r.speedup_type for r in ranked]
    assert types == sorted(types, key=lambda t: t != "global")
    assert all(r.speedup_pct is None for r in rules[len(ranked):])
    # the whole-kernel estimate first, although a local one is larger
    assert (rules[0].name, rules[0].speedup_type, rules[0].speedup_pct) == ("UncoalescedGlobalAccess", "global", 87.28)
    assert ("HighPipeUtilization", "local", 95.58) in [(r.name, r.speedup_type, r.speedup_pct) for r in rules]


def test_spill_kernel_first_rule_is_its_local_stores(profiles):
    first = d.rules_by_speedup(profiles["spill"])[0]
    assert (first.name, first.speedup_pct) == ("MemoryCacheAccessPattern", 67.43)
    assert "local stores" in first.description


def test_dram_throughput_under_either_name(profiles):
    kernel = profiles["copy_coalesced"]
    older = dict(kernel.metrics)
    older["dram__throughput.avg.pct_of_peak_sustained_elapsed"] = ncu.Metric(unit="%", value=12.5)
    assert d.SpeedOfLight.from_profile(replace(kernel, metrics=older)).dram_pct == 12.5
    neither = {k: m for k, m in kernel.metrics.items() if "dram_throughput" not in k}
    with pytest.raises(ncu.NcuError, match="none of dram__throughput"):
        d.SpeedOfLight.from_profile(replace(kernel, metrics=neither))


@pytest.mark.parametrize("name", KERNELS)
def test_diagnosis_round_trips_through_json(profiles, name):
    diagnosis = d.diagnose(profiles[name])
    assert d.Diagnosis.model_validate_json(diagnosis.model_dump_json(), strict=True) == diagnosis
    assert len(diagnosis.top_stalls) == d.TOP_STALLS
    assert diagnosis.kernel == name


def test_diagnosis_of_the_coalesced_copy(profiles):
    diagnosis = d.diagnose(profiles["copy_coalesced"])
    assert diagnosis.quadrant is d.Quadrant.LATENCY_BOUND
    assert diagnosis.finding is d.Finding.LATENCY_BOUND and diagnosis.remedy == "hide-memory-latency"
    assert diagnosis.memory.sectors_per_request == 4.0
    assert [s.reason for s in diagnosis.top_stalls] == ["long_scoreboard", "wait", "short_scoreboard"]


def test_a_stored_diagnosis_gives_back_the_figures_a_page_shows(profiles):
    stored = d.Diagnosis.model_validate_json(d.diagnose(profiles["copy_strided"]).model_dump_json(), strict=True)
    assert stored.memory.sectors_per_request == 32.0
    assert stored.memory.spills is False
    assert stored.finding is d.Finding.ONCHIP_BOUND   # Memory Throughput 62 % is L2's, DRAM 55 %
    assert stored.top_stalls[0].remedy == "hide-memory-latency"


# ----- what binds, from the breakdowns, and the decision tree -----------------------------------
LAB04_RAW = PROBE.parents[2] / "labs" / "04-profiling" / "results" / "nvidia-h200"


@pytest.fixture(scope="module")
def lab04_profiles():
    merged = ncu.merge_profiles(ncu.parse_raw_csv((LAB04_RAW / "ncu_raw.csv").read_text()),
                                ncu.parse_details_csv((LAB04_RAW / "ncu_details.csv").read_text()))
    return {k.name: k for k in merged}


def test_compute_sm_throughput_is_the_busiest_of_its_breakdown(lab04_profiles):
    """Speed of Light's "Compute (SM)" is a maximum: the tiled transpose, which does no arithmetic,
    reads 66 % because its instruction issue is that busy, with ALU (index arithmetic) next. Its
    quadrant says so: instruction-bound, not compute-bound (Speed of Light alone would say compute)."""
    tiled = d.diagnose(lab04_profiles["transpose_tiled"])
    assert d.quadrant(tiled.speed_of_light) is d.Quadrant.COMPUTE_BOUND
    assert tiled.quadrant is d.Quadrant.INSTRUCTION_BOUND
    assert tiled.busiest.unit == "issue"
    assert tiled.busiest.pct == pytest.approx(tiled.speed_of_light.compute_pct, abs=0.01)
    assert "pipe_alu" in [u.unit for u in tiled.units[:3]]
    assert tiled.finding is d.Finding.ISSUE_BOUND and tiled.remedy == "issue-bound"
    assert {u.unit: u.pct for u in tiled.units}["pipe_fp64"] == 0


def test_the_naive_transpose_is_bound_on_chip_not_by_dram(lab04_profiles):
    """Memory Throughput 82 % is L2's; DRAM reads 12 %: the uncoalesced writes load the L2."""
    naive = d.diagnose(lab04_profiles["transpose_naive"])
    assert naive.busiest.unit == "l2" and naive.speed_of_light.dram_pct < 20
    assert naive.speed_of_light.memory_pct == pytest.approx(naive.busiest.pct, abs=0.6)
    assert naive.units[0].unit == "lsu_wavefronts"   # the SM's own busiest unit is the load/store path
    assert naive.finding is d.Finding.ONCHIP_BOUND
    assert naive.leading_rule.name == "UncoalescedGlobalAccess"


@pytest.mark.parametrize("name", ["scale_add", "fused_chain"])
def test_sixteen_block_kernels_are_flagged_as_a_grid_too_small(lab04_profiles, name):
    diagnosis = d.diagnose(lab04_profiles[name])
    assert diagnosis.grid_blocks == 16 < diagnosis.sm_count == 132
    assert diagnosis.finding is d.Finding.GRID_TOO_SMALL and diagnosis.remedy == "grid-too-small"


@pytest.mark.parametrize("duration_seconds, blocks, units, expected", [
    (1e-3, 100, [], d.Finding.GRID_TOO_SMALL),
    (5e-6, 1000, [("dram", "dram", 95.0)], d.Finding.LAUNCH_BOUND),
])
def test_the_decision_tree_in_order(duration_seconds, blocks, units, expected):
    sol = d.SpeedOfLight(compute_pct=50, memory_pct=90, dram_pct=90, l1_pct=10, l2_pct=10,
                         duration_seconds=duration_seconds)
    loads = [d.UnitLoad(unit=u, kind=k, pct=p) for u, k, p in units]
    assert d.finding(sol, loads, blocks, 132) is expected


@pytest.mark.parametrize("compute, memory, dram, busiest, expected", [
    (30, 85, 85, "issue", d.Finding.DRAM_BOUND),
    (30, 85, 40, "issue", d.Finding.ONCHIP_BOUND),          # Memory Throughput is L1's or L2's
    (90, 40, 40, "pipe_fma", d.Finding.ARITHMETIC_BOUND),
    (90, 40, 40, "issue", d.Finding.ISSUE_BOUND),
    (90, 40, 40, "pipe_lsu", d.Finding.ONCHIP_BOUND),
    (59, 59, 59, "issue", d.Finding.LATENCY_BOUND),
])
def test_the_higher_side_decides_and_its_breakdown_says_what(compute, memory, dram, busiest, expected):
    sol = d.SpeedOfLight(compute_pct=compute, memory_pct=memory, dram_pct=dram, l1_pct=10, l2_pct=memory,
                         duration_seconds=1e-3)
    kind = {"issue": "issue", "pipe_fma": "arithmetic", "pipe_lsu": "onchip"}[busiest]
    loads = [d.UnitLoad(unit=busiest, kind=kind, pct=compute)]
    assert d.finding(sol, loads, 1000, 132) is expected


def test_advisory_rules_never_lead(lab04_profiles):
    for profile in lab04_profiles.values():
        ranked = d.rules_by_speedup(profile)
        names = [r.name for r in ranked]
        if "MemoryL2Compression" in names:
            assert all(r.name in d.ADVISORY_RULES for r in ranked[names.index("MemoryL2Compression"):])
        assert d.diagnose(profile).leading_rule is None or d.diagnose(profile).leading_rule.name not in d.ADVISORY_RULES


def test_a_stored_profile_keeps_what_the_diagnosis_reads(lab04_profiles):
    for profile in lab04_profiles.values():
        stored = d.StoredProfile.of(profile)
        assert len(stored.metrics) < len(profile.metrics) / 10
        reloaded = d.StoredProfile.model_validate_json(stored.model_dump_json(), strict=True)
        assert reloaded.diagnosis() == d.diagnose(profile)
