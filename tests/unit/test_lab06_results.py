"""Lab 06 off the GPU: its records held to what the H200 measured (probe run 2 of
labkit.calibration.gemm_probe, tests/fixtures/h200-gemm) both ways, its plan by architecture, its sizes,
and a step's failure kept to that step."""

from __future__ import annotations

import dataclasses
import json
import sys

import pytest
from pydantic import ValidationError

from labkit.gpu.device import fp32_lanes_per_sm
from labkit.labs.base import Check, lab
from labkit.labs.lab04.results import Unavailable
from labkit.labs.lab06 import plan, sizing
from labkit.records.plausibility import impossible_device_fact
from labkit.specs.profiles import COURSE_GPU, PROFILES
from labkit.labs.lab06.results import (ADDED_ITEMS, CUBLAS, ITEMS, PEERS, SIMT_BAR, STEPS, TENSOR_BAR, Device,
                                       Lab06Results, MmaRoof, MmaRoofPoint, PeerConfig, Resources, Run)
from labkit.gpu.timing import Timing
from labkit.records.files import SCHEMA_VERSION, ResultsFile, provenance
from tests.conftest import REPO_ROOT

LAB = lab("lab-06")
PROBE = json.loads((REPO_ROOT / "tests/fixtures/h200-gemm/timings.json").read_text())
# the steps issue 33 added, as tests/gpu/tma_gemm_check.py measured them on the same H200 (another day)
TMA = json.loads((REPO_ROOT / "tests/fixtures/h200-tma/timings.json").read_text())
# ... and the Numba step on the tensor cores, as tests/gpu/numba_mma_check.py measured it (its default build)
NUMBA_MMA = json.loads((REPO_ROOT / "tests/gpu/recorded/nvidia-h200/numba_mma.json").read_text())
for _s in STEPS:
    if _s.key in ADDED_ITEMS and _s.key not in ("numba_mma", "numba_pipelined"):
        PROBE["timings"][_s.kernel] = TMA["timings"][_s.kernel]
        PROBE["registers"][_s.kernel] = TMA["registers"][_s.kernel]
PROBE["timings"]["gemm_numba_mma"] = {
    str(t["side"]): dict(median_seconds=t["median_ms"] / 1e3, min_seconds=t["min_ms"] / 1e3, max_seconds=t["max_ms"] / 1e3,
                         repeats=t["repeats"], warmup=3, l2_flushed=False, sm_clock_mhz=t["nvml_sm_mhz"],
                         mem_clock_mhz=None, back_to_back=t["back_to_back"], sm_clock_ran_mhz=t["sm_clock_ran_mhz"])
    for t in NUMBA_MMA["timings"] if t["time"] == "numba_mma_lto_128_registers"}
PROBE["registers"]["gemm_numba_mma"] = NUMBA_MMA["builds"]["lto_128_registers"]["registers"]
# ... and step 4 in Numba (tests/gpu/numba_pipelined_check.py, its unrolled build: the lab's)
NUMBA_PIPELINED = json.loads((REPO_ROOT / "tests/gpu/recorded/nvidia-h200/numba_pipelined.json").read_text())
PROBE["timings"]["gemm_pipelined"] = {
    side: dict(median_seconds=t["median"], min_seconds=t["min"], max_seconds=t["max"], repeats=20, warmup=3,
               l2_flushed=False, sm_clock_mhz=None, mem_clock_mhz=None, back_to_back=True, sm_clock_ran_mhz=t["clock"])
    for name, t in NUMBA_PIPELINED["timings"].items() if name.startswith("unrolled@") for side in [name.split("@")[1]]}
PROBE["registers"]["gemm_pipelined"] = NUMBA_PIPELINED["compiled"]["unrolled"]["registers"]
KERNEL = {**{s.key: s.kernel for s in STEPS}, **{f"cublas_{p}": f"cublas_{p}" for p in CUBLAS}}
#: What the probes timed: every item but the peers (a record without them reads as made before them).
PROBED = tuple(item for item in ITEMS if item not in PEERS)


def h200() -> Device:
    facts = COURSE_GPU
    return Device(name=facts.name, compute_capability=facts.compute_capability, sm_count=facts.sm_count,
                  max_sm_clock_mhz=facts.max_sm_clock_mhz, fp32_lanes_per_sm=fp32_lanes_per_sm(facts.compute_capability))


def probe_runs() -> list[Run]:
    """Every item the probe timed at the lab's two sizes, as the lab records them."""
    runs = []
    for item in PROBED:
        for side, timing in PROBE["timings"][KERNEL[item]].items():
            runs.append(Run(kernel=item, large=side == "8192", side=int(side), depth=int(side),
                            timing=Timing(**timing)))
    return runs


def record(**changes) -> Lab06Results:
    fields = dict(sizes=LAB.gpu_sizes, checks=[Check(name=item, passed=True) for item in PROBED], device=h200(),
                  runs=probe_runs(), resources=[Resources(kernel=s.key, registers=PROBE["registers"][s.kernel],
                                                          local_bytes=0) for s in STEPS],
                  ncu=Unavailable(status="unavailable", reason="no ncu here"))
    return Lab06Results(**{**fields, **changes})


def as_document(results: Lab06Results) -> dict:
    prov = provenance(COURSE_GPU.name, COURSE_GPU.compute_capability, "13.0", 1980.0, 3201.0, REPO_ROOT)
    document = ResultsFile[Lab06Results](schema=SCHEMA_VERSION, lab=LAB.id, provenance=prov, results=results)
    return document.model_dump(mode="json", by_alias=True)


def test_what_the_h200_measured_is_a_valid_record_that_meets_the_bars():
    results = record()
    assert impossible_device_fact(as_document(results)) is None
    for large in (False, True):
        assert results.best("fp32", large) == "pipelined" and results.versus_cublas("pipelined", large) >= SIMT_BAR
        assert results.best("fp16", large) == "tma" and results.versus_cublas("tma", large) >= TENSOR_BAR
        assert results.best("bf16", large) == "tma_bf16"
    # cuBLAS FP16 at 4096^3: 754.8 TFLOP/s at the 1965 MHz read, of 4096 FLOP x 132 SMs x 1965 MHz
    assert results.cublas_of_peak("fp16") == pytest.approx(754.8e3 / (4096 * 132 * 1965e-3), rel=1e-3)
    assert {t.id for t in LAB.tables(results)} == {"lab06.steps", "lab06.cublas"}
    gains = {g.context: g.ratio for g in LAB.gains(results)}
    assert gains["gain.lab06.cublas_tf32"] > 2 and gains["gain.lab06.mma"] > 2 and gains["gain.lab06.padding"] > 1


def test_a_step_is_compared_with_the_cublas_timed_call_for_call_with_it():
    """Decision (stop 39): a run's ``reference`` (cuBLAS timed in alternation with it) is what its
    ratio to cuBLAS reads; cuBLAS's own row (timed alone) only in older records. A step's gain over
    the one before it is the ratio of their ratios where both have a reference in one precision."""
    runs = probe_runs()
    alone = record(runs=runs)
    theirs = alone.cublas("fp16", large=True).timing

    def paired(factor: float):
        return theirs.model_copy(update={"median_seconds": theirs.median_seconds * factor,
                                         "max_seconds": max(theirs.max_seconds, theirs.median_seconds * factor)})

    factors = {"tma": 1.25, "tma_persistent": 1.10}
    with_reference = record(runs=[r.model_copy(update={"reference": paired(factors[r.kernel])})
                                  if r.large and r.kernel in factors else r for r in runs])
    for key, factor in factors.items():
        assert with_reference.versus_cublas(key, True) == pytest.approx(factor * alone.versus_cublas(key, True))
    assert with_reference.versus_cublas("tma") == alone.versus_cublas("tma")     # no reference at 4096 here
    assert with_reference.speedup_over_previous("tma", True) == pytest.approx(
        with_reference.versus_cublas("tma", True) / with_reference.versus_cublas("tma_persistent", True))
    assert with_reference.speedup_over_previous("tma") == alone.speedup_over_previous("tma")   # times, without


def _faster(runs: list[Run], kernel: str, factor: float, clock: float | None = None) -> list[Run]:
    out = []
    for r in runs:
        if r.kernel == kernel and not r.large:
            update = {"median_seconds": r.timing.median_seconds / factor, "min_seconds": r.timing.min_seconds / factor}
            if clock is not None:
                update["sm_clock_mhz"] = clock
            r = r.model_copy(update={"timing": r.timing.model_copy(update=update)})
        out.append(r)
    return out


@pytest.mark.parametrize("kernel, factor, clock, message", [
    # cuBLAS FP16 at 0.71 of its peak: 1.45 times faster is above the peak at the clock read
    ("cublas_fp16", 1.45, None, r"runs/cublas_fp16 at 4096: \d+\.\d TFLOP/s is above the GPU's fp16 peak at the 1965 MHz"),
    # as measured, but with a clock read low enough that the measured rate cannot be
    ("cublas_fp16", 1.0, 1300.0, "above the GPU's fp16 peak at the 1300 MHz read"),
    # the best SIMT step 1.1 times faster than cuBLAS SGEMM's FP32 peak allows
    ("pipelined", 1.5, None, "runs/pipelined at 4096: .* above the GPU's fp32 peak"),
])
def test_a_rate_above_the_peak_at_the_clock_read_is_refused(kernel, factor, clock, message):
    with pytest.raises(ValidationError, match=message):
        record(runs=_faster(probe_runs(), kernel, factor, clock))


def test_the_device_facts_the_peaks_come_from_are_held_to_the_datasheet():
    """A record cannot raise its own peaks: SMs and lanes are held to the H200's, not to the file."""
    forged = record(device=h200().model_copy(update={"sm_count": 264}))   # consistent with itself...
    where, why = impossible_device_fact(as_document(forged))               # ...but not an H200
    assert where == "results/device/sm_count" and "264 SMs" in why
    lanes = record(device=h200().model_copy(update={"fp32_lanes_per_sm": 256}))
    assert impossible_device_fact(as_document(lanes))[0] == "results/device/fp32_lanes_per_sm"
    clock = record(device=h200().model_copy(update={"max_sm_clock_mhz": 2600.0}))
    assert impossible_device_fact(as_document(clock))[0] == "results/device/max_sm_clock_mhz"


@pytest.mark.parametrize("changes, message", [
    ({"checks": [Check(name=item, passed=item != "mma") for item in PROBED]}, "checks against NumPy failed: mma"),
    ({"checks": [Check(name=item, passed=True) for item in PROBED if item != "wgmma"]},
     "wgmma timed but never checked"),
    ({"unavailable": {"mma": "no reason to be here"}}, "unavailable: mma also timed at the main size"),
    ({"unavailable": {"tcgen05": "not a step"}}, "unknown kernels tcgen05"),
    ({"sizes": LAB.gpu_sizes.model_copy(update={"depth": 2048})}, r"runs/naive: 4096 x 4096 x 4096, but the sizes"),
    ({"sizes": LAB.gpu_sizes.model_copy(update={"large_side": None})}, "timed at the large side, but the sizes have"),
    ({"resources": [{"kernel": "naive", "registers": 300, "local_bytes": 0}]}, "less than or equal to 255"),
])
def test_what_cannot_be_is_refused(changes, message):
    with pytest.raises(ValidationError, match=message):
        record(**changes)


def test_a_step_that_did_not_run_needs_its_reason():
    runs = [r for r in probe_runs() if r.kernel != "wgmma"]
    with pytest.raises(ValidationError, match="nothing at the main size for wgmma, and no reason given"):
        record(runs=runs)
    skipped = record(runs=runs, checks=[Check(name=i, passed=True) for i in PROBED if i != "wgmma"],
                     unavailable={"wgmma": plan.why_not_on("wgmma", PROFILES["a100-40gb"])})
    row = next(row for row in LAB.tables(skipped)[0].rows if row[0] == "step.lab06.wgmma")
    assert row[3] is None and row[-1].startswith("wgmma exists only on Hopper")


def test_a_record_made_before_the_added_steps_reads_without_them():
    added = {s.key for s in STEPS if s.key in ADDED_ITEMS}
    assert {"tma", "tma_ws"} <= added
    before = record(runs=[r for r in probe_runs() if r.kernel not in added],
                    checks=[Check(name=i, passed=True) for i in PROBED if i not in added],
                    resources=[r for r in record().resources if r.kernel not in added])
    assert before.absent_items() == added | set(PEERS) and before.best("fp16") == "wgmma"
    rows = {row[0]: row for row in LAB.tables(before)[0].rows}
    assert rows["step.lab06.tma"][3] is None and rows["step.lab06.tma"][-1].startswith("recorded before this item")
    assert record().absent_items() == frozenset(PEERS)   # the probes timed no peer


def test_a_record_holding_one_added_step_must_hold_them_all():
    # the BF16 one missing, with no reason given: a lab run that lost it, not a record from before it
    runs = [r for r in probe_runs() if r.kernel != "tma_bf16"]
    with pytest.raises(ValidationError, match="nothing at the main size for tma_bf16, and no reason given"):
        record(runs=runs, checks=[Check(name=i, passed=True) for i in PROBED if i != "tma_bf16"])


def _peer_runs(share: float) -> list[Run]:
    """Triton in each precision at ``share`` of cuBLAS's rate in it, at both sizes (a stand-in: the
    lab's record holds what it measured, tests/labs/test_lab06_recorded.py)."""
    out = []
    for peer in PEERS:
        for r in probe_runs():
            if r.kernel == f"cublas_{peer.rsplit('_', 1)[1]}":
                timing = r.timing.model_copy(update={"median_seconds": r.timing.median_seconds / share})
                out.append(r.model_copy(update={"kernel": peer, "timing": timing}))
    return out


def test_the_peer_is_timed_beside_cublas_with_what_its_autotuner_kept():
    config = dict(version="Triton 3.6.0", block_m=128, block_n=256, block_k=64, group_m=8, warps=8, stages=3)
    results = record(runs=probe_runs() + _peer_runs(0.9), checks=[Check(name=i, passed=True) for i in ITEMS],
                     peer_configs=[PeerConfig(kernel="triton_fp16", side=4096, **config)])
    assert results.absent_items() == frozenset()
    assert results.versus_cublas("triton_bf16", large=True) == pytest.approx(0.9)
    table = next(t for t in LAB.tables(results) if t.id == "lab06.peers")
    fp16, bf16 = table.rows
    assert fp16[0] == "precision.lab06.fp16" and fp16[2] == pytest.approx(0.9)
    assert fp16[-3] == "Triton 3.6.0 · 128 × 256 × 64, 8, 3" and bf16[-3] is None   # no config recorded for BF16


def test_a_peer_that_could_not_run_says_why_and_one_that_vanished_is_refused():
    absent = "Triton is not installed here (it is not a dependency of the course: pip install triton to compare)"
    one = [r for r in _peer_runs(0.9) if r.kernel == "triton_fp16"]
    results = record(runs=probe_runs() + one, checks=[Check(name=i, passed=True) for i in ITEMS if i != "triton_bf16"],
                     unavailable={"triton_bf16": absent})
    row = next(t for t in LAB.tables(results) if t.id == "lab06.peers").rows[1]
    assert row[1] is None and row[-1] == absent
    with pytest.raises(ValidationError, match="nothing at the main size for triton_bf16, and no reason given"):
        record(runs=probe_runs() + one, checks=[Check(name=i, passed=True) for i in ITEMS if i != "triton_bf16"])


# ----- the plan ----------------------------------------------------------------------------------
def test_steps_by_architecture():
    assert plan.not_on(PROFILES["h200"]) == {} and plan.not_on(PROFILES["h100-pcie"]) == {}
    hopper_only = {"wgmma", "tma_ws", "tma_persistent", "tma", "tma_bf16"}
    assert plan.SM90A_STEPS == hopper_only
    assert set(plan.not_on(PROFILES["a100-40gb"])) == set(plan.not_on(PROFILES["rtx-4090"])) == hopper_only
    assert set(plan.not_on(PROFILES["t4"])) == ({"wmma", "mma", "numba_mma", "bf16", "cublas_tf32", "cublas_bf16",
                                                 "triton_bf16"} | hopper_only)
    assert "tcgen05" in plan.why_not_on("wgmma", PROFILES["b200"]) and "tcgen05" in plan.why_not_on("tma", PROFILES["b200"])
    assert "neither wgmma nor tcgen05" in plan.why_not_on("wgmma", PROFILES["rtx-5090"])


def test_a_step_whose_shared_memory_does_not_fit_the_opt_in_is_skipped():
    # an Ampere-class part whose blocks may opt in to 64 KiB only: the 3-stage WMMA pipeline (55.5
    # KiB) fits, the 4-stage mma.sync one (74 KiB) does not
    small = dataclasses.replace(PROFILES["a100-40gb"], max_shared_bytes_per_block_optin=64 << 10)
    assert plan.why_not_on("wmma", small) is None
    assert plan.why_not_on("mma", small) == ("its kernel holds 74.0 KiB of shared memory per block; a block may opt "
                                             "in to 64 KiB on this GPU")


def test_a_launch_is_its_host_wrappers():
    assert plan.launch("naive", 4096, 4096) == plan.StepLaunch("naive", (128, 512), 256, 0, 0)
    assert plan.launch("regtile", 4096, 4096).static_shared_bytes == 4 * (8 * 132 + 8 * 128)
    assert plan.launch("pipelined", 4096, 4096) == plan.StepLaunch("pipelined", (1024, 1), 256, 16640, 0)
    assert plan.launch("wgmma", 8192, 8192).grid == (64 * 32, 1)
    # the TMA steps are persistent: one block per SM, 3 warpgroups, 4 stages of 48 KiB + 1 KiB of
    # alignment + the TMA store's 32 KiB of staging, and ptxas's 1 KiB block of mbarriers
    assert plan.launch("tma", 8192, 8192, sm_count=132) == plan.StepLaunch("tma", (132, 1), 384, 1024,
                                                                           4 * 48 * 1024 + 1024 + 32 * 1024)
    with pytest.raises(ValueError, match="SM count"):
        plan.launch("tma_bf16", 4096, 4096)
    assert plan.fitted_side("regtile", 32) == 128 and plan.fitted_side("wgmma", 4096) == 4096


# ----- the sizes ---------------------------------------------------------------------------------
def test_sizes_follow_the_memory_and_the_fp32_rate():
    assert sizing.footprint_bytes(LAB.gpu_sizes) == 36 * 8192 ** 2      # the 8192^3 phase's operands
    t4 = LAB.sizes_for(PROFILES["t4"])                # 8.1 TFLOP/s: the naive step at 4096^3 would take 0.8 s
    assert (t4.side, t4.depth, t4.large_side) == (2048, 2048, 4096)
    laptop = LAB.sizes_for(PROFILES["rtx-3060-laptop"])   # 6 GB: 8192^3's 2.4 GB exceed its budget
    assert laptop.large_side == 4096 and sizing.phase_bytes(8192, 8192) > sizing.memory_budget_bytes(
        PROFILES["rtx-3060-laptop"])
    tiny = dataclasses.replace(PROFILES["t4"], memory_bytes=2 << 30)
    assert LAB.sizes_for(tiny).large_side is None     # nothing larger than the side fits: the large size is dropped


# ----- one step's failure ------------------------------------------------------------------------
def test_a_failure_is_one_line():
    from labkit.labs.lab06.program import REASON_CHARACTERS, failure

    message = failure(RuntimeError("\nNVRTC could not compile the wgmma module for sm_90a:\n" + "x" * 1000))
    assert message.startswith("failed here: RuntimeError: NVRTC could not compile") and "\n" not in message
    assert len(message) <= REASON_CHARACTERS


def test_a_step_that_raises_is_recorded_unavailable_and_the_others_still_run(monkeypatch):
    from labkit.labs.lab06 import program
    from tests.labs.stand_in import stand_in_interleaved

    def launcher(self, item):
        if item == "shared":
            raise RuntimeError("CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure")
        return lambda: None

    monkeypatch.setattr(program.Operands, "launcher", launcher)
    runs, unavailable, _, configs = program.time_runs(stand_in_interleaved, LAB.simulator_sizes, PROFILES["a100-40gb"], {})
    assert unavailable["shared"] == "failed here: RuntimeError: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure"
    assert {r.kernel for r in runs} == {"naive", "padded", "regtile", "numba_pipelined"}   # the simulator's other steps
    assert unavailable["triton_fp16"] == "Triton needs a GPU: the simulator runs Numba kernels only" and configs == []
    failed: dict[str, str] = {}
    checks = program.check_against_numpy(LAB.simulator_sizes, None, failed)
    assert "shared" in failed and "shared" not in {c.name for c in checks}


# ----- Nsight Compute, through the one protocol ----------------------------------------------------
@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    """lab 06's ncu step through labkit.profiling.lab_profile, ncu standing in with the pages the
    H200 gave for the steps and cuBLAS at 4096^3 (probe run 1), and the command it ran."""
    from labkit.gpu import tools as cuda_tools
    from labkit.labs.lab06 import program
    from labkit.profiling import ncu
    from tests.unit.test_lab_profile import StandInNcu

    fixtures = REPO_ROOT / "tests/fixtures/h200-gemm"
    fake = StandInNcu({page: (fixtures / f"ncu_{page}.csv").read_text() for page in ("raw", "details")})
    work = tmp_path_factory.mktemp("lab06-ncu")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(ncu, "find_ncu", lambda: "/opt/ncu")
        patch.setattr(cuda_tools.subprocess, "run", fake)
        step = program.nsight_compute(LAB.gpu_sizes, work)
    return step, fake.commands[0], work


def test_the_profile_step_goes_through_the_protocol(profiled):
    step, command, work = profiled
    assert step.status == "ok", step
    assert command[:5] == ["/opt/ncu", "--clock-control", "none", "--set", "full"]
    assert command[-6:] == [sys.executable, "-m", "labkit.labs.lab06.program", "profile-target", "4096", "4096"]
    assert sorted(p.name for p in work.iterdir()) == ["ncu_details.csv", "ncu_raw.csv"]
    results = record(ncu=step)
    ncu_table = next(t for t in LAB.tables(results) if t.id == "lab06.ncu")
    profiled_steps = ["naive", "shared", "ctile", "pipelined", "mma"]      # the probe's run 1 profiled these
    assert [row[0] for row in ncu_table.rows] == [f"step.lab06.{k}" for k in profiled_steps]
    assert set(LAB.cases(results)) == set(profiled_steps)


@pytest.mark.parametrize("key", ["naive", "shared", "ctile", "pipelined", "mma"])
def test_what_diagnose_puts_first_is_the_lever_chapter_6_names(profiled, key):
    from labkit.labs.lab06.results import DIAGNOSED_FIRST
    from labkit.profiling import checklist

    profile = record(ncu=profiled[0]).profile(key)
    assessment = checklist.assess(profile.diagnosis())
    assert (assessment.items[0].item if assessment.items else None) == DIAGNOSED_FIRST[key]


def _with_clock(results: Lab06Results, kernel: str, ran_mhz: float | None) -> Lab06Results:
    runs = [r.model_copy(update={"timing": r.timing.model_copy(update={"sm_clock_ran_mhz": ran_mhz})})
            if r.kernel == kernel else r for r in results.runs]
    return record(runs=runs)


def test_the_share_of_peak_is_at_the_clock_measured_not_nvmls():
    """Issue 29: cuBLAS FP16 ran at 1.56 GHz while NVML read ~1 980 MHz; its share of the tensor
    peak is taken at 1.56 GHz (higher), and NVML's reading stays in the record."""
    nvml_only = record()
    run = nvml_only.cublas("fp16")
    measured = _with_clock(nvml_only, "cublas_fp16", 1560.0)
    assert measured.cublas("fp16").timing.sm_clock_mhz == run.timing.sm_clock_mhz
    assert measured.cublas_of_peak("fp16") == pytest.approx(
        nvml_only.cublas_of_peak("fp16") * run.timing.sm_clock_mhz / 1560.0)


def roof(rate_per_clock: float, warps=(4, 32), clock_mhz: float = 1800.0) -> MmaRoof:
    """A register-only mma.sync roof whose points run at ``rate_per_clock`` FLOP/clock/SM at ``clock_mhz``."""
    points = []
    for w in warps:
        flops = float(132 * w * 1000)
        seconds = flops / (rate_per_clock * clock_mhz * 1e6 * 132)
        points.append(MmaRoofPoint(warps_per_sm=w, blocks=132 * w // 4, flops=flops, timing=Timing(
            median_seconds=seconds, min_seconds=seconds, max_seconds=seconds, repeats=20, warmup=3,
            l2_flushed=False, sm_clock_mhz=1980.0, mem_clock_mhz=3201.0, back_to_back=True,
            sm_clock_ran_mhz=clock_mhz)))
    return MmaRoof(status="ok", accumulators=8, iterations=1000, check=Check(name="mma_roof", passed=True),
                   points=points)


def test_mma_syncs_roof_is_flop_per_clock_per_sm_at_the_clock_it_ran_at_and_is_tabled():
    results = record(mma_roof=roof(2500.0))
    assert results.mma_roof_flops_per_clock() == pytest.approx(2500.0)
    assert results.mma_roof_share() == pytest.approx(2500.0 / 4096)
    mine = results.step_flops_per_clock("mma")
    assert results.of_mma_roof("mma") == pytest.approx(mine / 2500.0)
    assert "lab06.mma_roof" in {t.id for t in LAB.tables(results)}
    assert record().mma_roof_share() is None


@pytest.mark.parametrize("changes, message", [
    (dict(mma_roof=roof(4200.0)), "above the tensor cores' dense 4096"),
    (dict(mma_roof=roof(2500.0).model_copy(update={"check": Check(name="mma_roof", passed=False)})),
     "disagreed with NumPy"),
])
def test_an_impossible_or_wrong_mma_roof_is_refused(changes, message):
    with pytest.raises(ValueError, match=message):
        record(**changes)
