"""Lab 03's results recorded on the H200, held to the issue's bars both ways: the occupancy
calculator equals the driver on every recorded configuration (1000 or more, a grid that spans
each rule, the edge cases borne out), Volkov's point holds (a copy with 4 or more loads in flight
reaches 0.90 of the copy bandwidth at 25 % theoretical occupancy or less), Little's law (with a
warp's round trip: latency + its bytes at its SM's share of C) predicts each copy curve's knee
within 25 % and bounds every point, the latencies are recorded and ordered, and nothing is above
what the GPU can do. Skipped until a record exists."""

import csv
import math

import pytest

from labkit.calibration import occupancy_probe as probe
from labkit.labs.base import lab
from labkit.labs.lab03.program import DRIVER_EDGES, DRIVER_ROWS, PROFILED
from labkit.labs.lab03.results import LOW_OCCUPANCY, NcuStep
from labkit.models import occupancy
from labkit.project import Project
from labkit.records.files import raw_folder, read_results
from tests.conftest import REPO_ROOT

LAB = lab("lab-03")
RESULTS = LAB.lab_dir(Project(REPO_ROOT)) / "results/nvidia-h200.json"
#: Volkov's bar: this share of the copy bandwidth at LOW_OCCUPANCY or less, with this many loads or more.
VOLKOV_SHARE, VOLKOV_LOADS = 0.90, 4
#: Little's law's knee within this relative distance of the measured one.
KNEE_TOLERANCE = 0.25
#: The issue's bar on `make lab-03` is two minutes; the measurement itself must leave room for
#: starting Python and writing the record.
MEASURE_SECONDS = 110
#: A copy point may beat the reference copy, or any point Little's bound, by this much (noise, not a
#: faster memory or a shorter latency).
ABOVE_NOISE = 1.03
#: The driver step must leave the measurement room under the two minutes (it took 17 to 22 s).
DRIVER_SECONDS = 60

pytestmark = pytest.mark.skipif(not RESULTS.exists(),
                                reason=f"{RESULTS.relative_to(REPO_ROOT)} not recorded yet (make lab-03 on the H200)")


@pytest.fixture(scope="module")
def recorded():
    return read_results(RESULTS, LAB.results_type, LAB.id)


@pytest.fixture(scope="module")
def results(recorded):
    return recorded.results


def test_provenance(recorded):
    prov = recorded.provenance
    assert prov.gpu == "NVIDIA H200" and not prov.simulated and prov.compute_capability == "9.0"
    assert len(prov.git_commit.removesuffix("+dirty")) == 40


def test_the_measurement_leaves_make_lab_03_under_two_minutes(results):
    assert results.seconds < MEASURE_SECONDS


# ----- step 7: the calculator against the driver -------------------------------------------------------
def _csv(name):
    path = raw_folder(RESULTS) / name
    with path.open(newline="") as handle:
        rows = list(csv.DictReader(handle))

    def value(text):
        return None if text == "" else int(text) if text.lstrip("-").isdigit() else text
    return [{key: value(text) for key, text in row.items()} for row in rows]


def test_the_calculator_equals_the_driver_on_every_recorded_configuration(results):
    assert results.driver.status == "ok" and results.driver.errors == [] and results.driver.device_mismatches == []
    assert results.driver.kernels == len(probe.kernel_specs())
    assert results.driver.seconds < DRIVER_SECONDS
    rows = _csv(DRIVER_ROWS)
    assert len(rows) == results.driver.configurations >= 1000
    arch = occupancy.architecture(results.device.compute_capability)
    differing = [row for row in rows if probe.calculator_blocks(probe.launch_of(row), arch) != row["driver_blocks"]]
    assert not differing, f"{len(differing)} of {len(rows)} differ; the first: {differing[0]}"
    assert results.driver.equal == len(rows)


def test_the_driver_grid_spans_every_rule_it_checks(results):
    rows = _csv(DRIVER_ROWS)
    registers = {row["registers_per_thread"] for row in rows}
    assert min(registers) <= 16 and max(registers) == 255 and len(registers) >= 15
    assert any(row["static_shared_bytes"] % 128 for row in rows)
    assert any(row["static_shared_bytes"] + row["dynamic_shared_bytes"] > 48 * 1024 for row in rows)
    assert any(row["threads_per_block"] % 32 for row in rows)
    assert {row["carveout_percent"] for row in rows} >= {None, 0, 100}
    assert {row["driver_blocks"] for row in rows} >= {0, 32}


def test_the_driver_bears_out_every_modelled_edge_case(results):
    edges = _csv(DRIVER_EDGES)
    assert len(edges) == results.driver.edge_cases > 0
    arch = occupancy.architecture(results.device.compute_capability)
    for edge in edges:
        assert probe.edge_agrees(edge) is not False, edge
        if edge["calculator_blocks"] is None:
            continue
        now = probe.calculator_blocks(probe.launch_of(edge), arch)
        if isinstance(edge["calculator_blocks"], int):
            assert now == edge["calculator_blocks"], f"edge case {edge['case']!r}: labkit now answers {now}"
        else:
            assert str(now).startswith("refused: "), f"edge case {edge['case']!r}: labkit now answers {now}"


# ----- step 1: latency ------------------------------------------------------------------------------------
def test_l1_l2_and_hbm_latencies_are_recorded_and_ordered(results):
    l1, l2, hbm = (results.plateau(level) for level in ("l1", "l2", "hbm"))
    assert l1 and l2 and hbm and min(l1.points, l2.points, hbm.points) >= 2
    assert l1.cycles < l2.cycles / 2 and l2.cycles < hbm.cycles / 1.5
    for point in results.latency.points:
        assert 0.5 * results.device.max_sm_clock_mhz < point.clock_mhz


# ----- step 2: Little's law for memory and Volkov ------------------------------------------------------------
def test_volkov_enough_loads_in_flight_reach_the_copy_bandwidth_at_low_occupancy(results):
    copy = results.memory.copy_gbps
    best = max(((point.gbps / copy, point.loads, point.launch.warps_per_sm)
                for loads in results.sizes.stream_loads if loads >= VOLKOV_LOADS
                for point in results.low_occupancy_points(loads)), default=(0, None, None))
    assert best[0] >= VOLKOV_SHARE, f"best at <= {LOW_OCCUPANCY:.0%} occupancy: {best}"


def test_at_equal_occupancy_more_loads_in_flight_move_more_bytes(results):
    """The other way: where one load per thread is latency-bound (below its curve's knee), eight
    loads at the same warps per SM are never slower, and at the fewest warps they move at least
    twice as much. Beyond that knee both curves are at the ceiling, which the next test bounds."""
    one = {p.launch.warps_per_sm: p.gbps for p in results.memory.curve(1)}
    eight = {p.launch.warps_per_sm: p.gbps for p in results.memory.curve(8)}
    bound = results.memory_knee(1).x
    shared = sorted(w for w in set(one) & set(eight) if w < bound)
    assert len(shared) >= 3
    assert all(one[w] <= ABOVE_NOISE * eight[w] for w in shared)
    assert eight[shared[0]] >= 2 * one[shared[0]]


def test_no_copy_point_beats_the_reference_copy_by_more_than_noise(results):
    for point in results.memory.points:
        assert point.gbps <= ABOVE_NOISE * results.memory.copy_gbps, (point.loads, point.launch)


def test_no_copy_point_beats_littles_bound(results):
    """Little's law with the round trip is an upper bound: no point moves more than its warps'
    bytes per (unloaded latency + transfer at the SM's share), nor more than C."""
    for point in results.memory.points:
        bound = results.predicted_copy_gbps(point.loads, point.launch.warps_per_sm)
        assert point.gbps <= ABOVE_NOISE * bound, (point.loads, point.launch.warps_per_sm, point.gbps, bound)


def test_littles_law_predicts_where_each_curve_saturates(results):
    curves = results.memory_curves()
    within = [curve for curve in curves if curve.knee.within]
    assert len(within) >= 3, [(c.loads, c.knee.side) for c in curves]
    for curve in within:
        assert abs(curve.knee_ratio - 1) <= KNEE_TOLERANCE, \
            f"{curve.loads} loads: predicted {curve.predicted_knee:.2f}, measured {curve.knee.x:.2f} warps per SM"
        # the page says: the round trip's knee is optimistic (at or before the measured one), and the
        # latency alone would put it earlier still
        assert curve.latency_warps < curve.predicted_knee <= curve.knee.x, curve
    warps = sorted({p.launch.warps_per_sm for p in results.memory.points})
    for curve in curves:
        if curve.knee.side == "below":
            assert curve.predicted_knee <= warps[0] * (1 + KNEE_TOLERANCE), curve
        elif curve.knee.side == "above":
            assert curve.predicted_knee >= curve.max_warps_per_sm * (1 - KNEE_TOLERANCE), curve


def test_more_loads_in_flight_need_fewer_warps(results):
    knees = [curve.knee.x for curve in results.memory_curves()]
    assert knees == sorted(knees, reverse=True)


# ----- step 3: Little's law for arithmetic ------------------------------------------------------------------
def test_fma_throughput_stays_under_littles_bound_and_meets_it_where_the_latency_binds(results):
    """Little's law for arithmetic bounds every point, min(peak, warps x chains / (schedulers x
    latency x issue rate)) of the peak, and the points it puts well below their curve's own plateau
    (latency-bound) reach it. Where a curve's plateau lies below the FP32 peak (one or two chains),
    its knee is not Little's law's: the page shows that gap; no bar is set on it."""
    assert 2 <= results.arithmetic.fma_latency_cycles <= 8
    latency_bound = 0
    for chains in results.sizes.fma_chains:
        plateau = results.fma_knee(chains).plateau
        for point in results.arithmetic.curve(chains):
            bound = results.predicted_fma_gflops(chains, point.launch.warps_per_sm)
            assert point.gflops <= ABOVE_NOISE * bound, (chains, point.launch.warps_per_sm)
            if bound < plateau:
                latency_bound += 1
                assert point.gflops >= (1 - KNEE_TOLERANCE) * bound, (chains, point.launch.warps_per_sm)
    assert latency_bound >= 2
    peak = results.fp32_peak_gflops()
    top = max(point.gflops for point in results.arithmetic.points)
    assert 0.85 * peak <= top <= peak


def test_one_or_two_chains_level_off_below_the_peak_so_their_knees_come_early(results):
    """What the page says of step 3: with one or two chains per thread the curve stops well below
    the FP32 peak, whatever the warps, and its measured knee comes before Little's (computed for
    the peak); with four or more, the curve comes close to the peak."""
    peak = results.fp32_peak_gflops()
    for chains in results.sizes.fma_chains:
        best = max(point.gflops for point in results.arithmetic.curve(chains))
        knee = results.fma_knee(chains)
        if chains <= 2:
            assert best < 0.8 * peak and knee.within and knee.x < results.predicted_fma_knee(chains), chains
        else:
            assert best >= 0.85 * peak, chains


def test_at_equal_warps_more_chains_never_compute_less(results):
    chains = results.sizes.fma_chains
    by_chains = {c: {p.launch.warps_per_sm: p.gflops for p in results.arithmetic.curve(c)} for c in chains}
    for fewer, more in zip(chains, chains[1:]):
        for warps in set(by_chains[fewer]) & set(by_chains[more]):
            assert by_chains[fewer][warps] <= ABOVE_NOISE * by_chains[more][warps], (fewer, more, warps)


# ----- step 4: register pressure -----------------------------------------------------------------------------
def test_limits_below_what_the_kernel_needs_spill_and_more_occupancy_is_not_faster(results):
    variants = results.registers.variants
    free = next(v for v in variants if v.max_registers is None)
    assert free.local_bytes_per_thread == 0
    tight = [v for v in variants if v.max_registers and v.max_registers < free.registers_per_thread]
    assert tight and all(v.local_bytes_per_thread > 0 for v in tight)
    occupancy_of = {v.max_registers: results.register_occupancy(v).occupancy for v in variants}
    slower_with_more = [(a.max_registers, b.max_registers) for a in variants for b in variants
                        if occupancy_of[b.max_registers] > occupancy_of[a.max_registers]
                        and b.timing.median_seconds > 1.1 * a.timing.median_seconds]
    assert slower_with_more
    assert results.fastest_register_variant().local_bytes_per_thread == 0


# ----- step 5: waves -----------------------------------------------------------------------------------------
def test_time_steps_at_whole_waves_and_one_block_more_costs_a_wave(results):
    slots = results.wave_slots()
    by_grid = {p.grid_blocks: p.timing.median_seconds for p in results.waves.points}
    for whole in (1, 2, 3, 4):
        if whole * slots in by_grid and whole * slots + 1 in by_grid:
            assert by_grid[whole * slots + 1] / by_grid[whole * slots] == pytest.approx((whole + 1) / whole, rel=0.12)
    for point in results.waves.points:
        ratio = point.timing.median_seconds / results.predicted_wave_seconds(point.grid_blocks)
        assert 0.85 <= ratio <= 1.15, (point.grid_blocks, ratio)


# ----- step 6: Nsight Compute ----------------------------------------------------------------------------------
#: The launches issue 29 added to step 6 (labkit.labs.lab03.program.PROFILED).
ISSUE_29_LAUNCHES = ("fma_1_chain_64_warps", "fma_1_chain_imm_64_warps")


def test_ncu_sees_the_calculators_theoretical_occupancy_and_achieves_at_most_it(results):
    assert isinstance(results.ncu, NcuStep), results.ncu
    launches = {launch.label: launch for launch in results.ncu.launches}
    # a record from before issue 29 lacks the one-chain kernel at full occupancy, a in a register and immediate
    expected = [label for label in PROFILED if results.arithmetic.immediate_points or label not in ISSUE_29_LAUNCHES]
    assert list(launches) == expected
    arch = results.device.arch
    for launch in launches.values():
        assert launch.theoretical_pct == pytest.approx(100 * launch.calculated(arch).occupancy, abs=0.5), launch.label
        assert launch.achieved_pct <= launch.theoretical_pct + 2, launch.label
    # the tail: one block more than a wave leaves most SMs idle half the time (achieved occupancy, over
    # active cycles only, does not show it)
    assert launches["waves_one_plus_one"].sm_active_share < 0.7 * launches["waves_one"].sm_active_share
    assert launches["registers_32"].local_sectors > 0 == launches["registers_free"].local_sectors
    # step 3 on the page: one chain, 16 warps per SM, the scheduler idle part of the time, its warps
    # waiting on a fixed-latency dependency; eight chains and one warp per scheduler: no latency to
    # wait on, yet not an issue every cycle
    one_chain, eight_chains = launches["fma_1_chain_16_warps"], launches["fma_8_chains_4_warps"]
    assert one_chain.issue_active_pct < 80
    assert one_chain.stall_wait > max(one_chain.stall_not_selected, one_chain.stall_long_scoreboard)
    assert eight_chains.stall_wait < 0.5 and eight_chains.issue_active_pct < 97
    low, high = launches["copy_1_load_16_warps"], launches["copy_8_loads_16_warps"]
    assert math.isclose(low.theoretical_pct, high.theoretical_pct)
    assert low.duration_seconds > high.duration_seconds


# ----- chapter 3's conclusions from this record, held on it and on the first H200 recording ----------------
# Each test holds one or more sentences of docs/{fr,zh}/performance/03-occupancy.md that draw a conclusion
# from lab 03's figures; a re-recording that changes the lesson fails here, and the page must follow.
#
#   latencies (« Trois réserves »): the L1 answers to the end of its plateau, the L2 at a constant latency to
#     well under half the driver's L2, HBM's latency is paid before the working set fills the L2
#     -> test_chapter3_the_l2_plateau_ends_near_half_the_l2
#   little-arithmetic (« l'un de ses résultats ne suit pas ce raisonnement »): one chain per thread levels off
#     well under the peak and is still there at the most warps, several times Little's knee; two chains too;
#     four approach the peak -> test_chapter3_one_chain_levels_off_with_warps_to_spare
#   little-arithmetic (« L'étape 6 le confirme sans l'expliquer »): from 2 to ~3.3 achieved warps per
#     scheduler the issue share does not rise and each warp's Wait grows
#     -> test_chapter3_more_warps_do_not_raise_the_one_chain_issue_rate
#   lab list, step 3 (« un warp seul n'émet pas à chaque cycle »): eight chains at one warp per scheduler,
#     no Wait, issuing on most but not all cycles -> test_ncu_sees_the_calculators_theoretical_occupancy...
#   quiz q03-fma-bound (« Le lab 03 mesure moins à ce point »): test_the_fma_quiz_point_is_under_its_little_bound
#     (tests/docs/test_chapter_figures.py); q03-spills' local sectors: test_limits_below_what_the_kernel_needs...
#
# The one-chain plateau's cause is not settled by these records (issue 29 records the SASS and the stall
# reasons at 64 warps per SM that will); the page says so and teaches no rule from it.
FIRST_PASS_RESULTS = REPO_ROOT / "tests/fixtures/h200-first-pass/labs/03-occupancy/results/nvidia-h200.json"
BOTH_RECORDS = [pytest.param(RESULTS, id="course-record"), pytest.param(FIRST_PASS_RESULTS, id="first-pass")]


@pytest.fixture(scope="module", params=BOTH_RECORDS)
def each_record(request):
    return read_results(request.param, LAB.results_type, LAB.id).results


def test_chapter3_the_l2_plateau_ends_near_half_the_l2(each_record):
    l1_end = each_record.plateau_end_bytes("l1")
    l2_end = each_record.plateau_end_bytes("l2")
    hbm_from = each_record.level_reached_bytes("hbm")
    l2 = each_record.device.l2_bytes
    assert 128 << 10 <= l1_end <= 256 << 10
    assert 0.3 <= l2_end / l2 <= 0.5, l2_end / l2       # "s'arrête avant la moitié"
    assert l2_end < hbm_from < l2                        # HBM latency before the L2 is full
    between = [p for p in each_record.latency.points if l2_end < p.working_set_bytes < hbm_from]
    assert len(between) == 1                             # "le lab n'a qu'un point entre les deux"
    l2_cycles, hbm_cycles = each_record.plateau("l2").cycles, each_record.plateau("hbm").cycles
    assert l2_cycles < between[0].cycles_per_step < hbm_cycles   # "de latence intermédiaire"


def test_chapter3_one_chain_levels_off_with_warps_to_spare(each_record):
    peak = each_record.fp32_peak_gflops()
    best = {c: max(p.gflops for p in each_record.arithmetic.curve(c)) / peak for c in each_record.sizes.fma_chains}
    assert best[1] < 0.5 and best[2] < 0.7 and best[4] >= 0.85
    one = {p.launch.warps_per_sm: p.gflops / peak for p in each_record.arithmetic.curve(1)}
    most = max(one)
    assert most >= 3.5 * each_record.predicted_fma_knee(1)        # "x fois le coude de la loi de Little"
    assert one[most] >= 0.97 * best[1]                             # "y est encore à 64 warps par SM"
    assert each_record.predicted_fma_gflops(1, most) >= 0.99 * peak  # Little's law allows the peak there
    assert all(one[w] >= 0.85 * best[1] for w in one if w >= 8)     # flat from 8 warps per SM up


def test_chapter3_more_warps_do_not_raise_the_one_chain_issue_rate(each_record):
    launches = {launch.label: launch for launch in each_record.ncu.launches}
    fewer, more = launches["waves_one"], launches["fma_1_chain_16_warps"]
    assert fewer.kernel == more.kernel == "fma_chains_1"
    assert more.achieved_pct > 1.4 * fewer.achieved_pct               # 2 -> ~3.3 warps per scheduler
    assert more.issue_active_pct <= fewer.issue_active_pct + 1        # "ne monte pas"
    assert more.stall_wait > 1.2 * fewer.stall_wait                   # "l'attente Wait ... s'allonge"
    assert more.stall_wait > max(more.stall_not_selected, more.stall_long_scoreboard)


def test_chapter3_the_one_chain_plateau_is_the_reading_of_three_register_operands(each_record):
    """Chapter 3, #little-arithmetic: at the most warps per SM, the one-chain FFMA with a in a register
    issues in well under the cycles it could, held back at dispatch; the same chain with a as an
    immediate (two register reads) issues nearly every cycle without Dispatch Stall, and reaches what
    its loop's FFMA share of the issue allows, far above the register version."""
    launches = {launch.label: launch for launch in each_record.ncu.launches}
    register, immediate = launches["fma_1_chain_64_warps"], launches["fma_1_chain_imm_64_warps"]
    assert register.issue_active_pct < 70 and register.stall_dispatch > 2
    assert immediate.issue_active_pct > 85 and immediate.stall_dispatch < 0.5
    assert register.ffma_share == pytest.approx(immediate.ffma_share, abs=0.01)   # the same loop
    peak = each_record.fp32_peak_gflops()
    with_register = each_record.arithmetic.curve(1)[-1].gflops / peak
    with_immediate = each_record.arithmetic.immediate_curve()[-1].gflops / peak
    assert with_immediate > with_register + 0.15
    allowed = immediate.issue_active_pct / 100 * immediate.ffma_share
    assert 0.9 * allowed < with_immediate <= 1.02 * allowed
