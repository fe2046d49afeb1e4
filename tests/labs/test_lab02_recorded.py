"""Lab 02's results recorded on the H200: valid, and held to the issue's bars.

- the access analyzer against ncu, for every launch of the lab (labkit.labs.lab02.results,
  module docstring): equal exactly for the four global counters, the executed shared-memory
  instructions and ncu's instruction-level shared wavefronts and bank conflicts
  (``smsp__sass_l1tex_data_*``); ncu's hardware shared counters (``l1tex__data_*``) equal the
  analyzer's ideal wavefronts exactly and exceed its wavefronts and conflicts by one same excess,
  never negative, at most HARDWARE_EXCESS_BAR of the analyzer's wavefronts. The hardware counters
  cannot equal an address-only count in a busy kernel: they count the wavefronts an access loses
  to other traffic of the L1TEX data stage, which depend on timing (the record of commit 4cb7254
  shows 368 and 397 extra load wavefronts for the same launch in two runs, and about 1e6 for the
  padded transpose, 11.9 % of its load wavefronts). For an isolated warp the hardware counters equal
  the analyzer exactly: tests/labs/test_access_calibration.py, 451 patterns;
- the analyzer's figures in the record are recomputed by the analyzer as it is now (simulator);
- the shared sweep's loop really loads at every iteration (ncu's executed loads);
- the stride sweep's predicted DRAM bytes are within 5 % of ncu's at every point;
- the lab's copy reaches cupy.copyto (>= 0.97, and not above it by more than noise), the padded and
  swizzled transposes reach 0.90 of that copy (medians, same run), the conflicting tile does not;
- stride 1 reaches READ_ROOF_BAR of the read roof measured in the same run, at every element width.
Skips while no record exists.
"""

import pytest

from labkit.labs.base import lab
from labkit.labs.lab02.results import (
    COPY_BAR,
    DRAM_TOLERANCE,
    HARDWARE_EXCESS_BAR,
    READ_ROOF_BAR,
    SHARED_OPS,
    TRANSPOSE_BAR,
)
from labkit.project import Project
from labkit.records.files import read_results
from tests.conftest import REPO_ROOT

LAB = lab("lab-02")
RESULTS = LAB.lab_dir(Project(REPO_ROOT)) / "results/nvidia-h200.json"

pytestmark = pytest.mark.skipif(not RESULTS.exists(), reason="lab 02 not recorded yet: run `make lab-02` on the H200")


@pytest.fixture(scope="module")
def recorded():
    return read_results(RESULTS, LAB.results_type, LAB.id)


def test_provenance(recorded):
    prov = recorded.provenance
    assert prov.gpu == "NVIDIA H200" and not prov.simulated
    assert len(prov.git_commit.removesuffix("+dirty")) == 40


def test_ncu_and_sass_ran(recorded):
    assert recorded.results.ncu.status == "ok"
    assert recorded.results.sass.status == "ok"


def test_the_analyzer_equals_ncu_for_every_launch(recorded):
    runs = recorded.results.runs()
    differing = [f"{run.launch}: {run.mismatches()}" for run in runs if not run.counters_agree]
    assert not differing, f"{len(differing)} of {len(runs)} launches differ; first: {differing[:3]}"


def test_instruction_level_counters_equal_the_analyzer_exactly(recorded):
    # The claim's exact half, spelled out: no tolerance on these.
    for run in recorded.results.runs():
        assert run.measured_sass.model_dump() == {name: getattr(run.predicted, name)
                                                  for name in run.measured_sass.model_dump()}, run.launch
        for op in SHARED_OPS:
            assert run.measured.ideal_wavefronts(op) == run.predicted.ideal_wavefronts(op), (run.launch, op)


def test_the_hardware_excess_is_one_arbitration_count(recorded):
    # The same excess in wavefronts and in conflicts, >= 0, bounded; none where no shared access is.
    for run in recorded.results.runs():
        for op in SHARED_OPS:
            wavefronts = getattr(run.measured, f"shared_{op}_wavefronts") - getattr(run.predicted, f"shared_{op}_wavefronts")
            conflicts = getattr(run.measured, f"shared_{op}_conflicts") - getattr(run.predicted, f"shared_{op}_conflicts")
            predicted = getattr(run.predicted, f"shared_{op}_wavefronts")
            assert wavefronts == conflicts, (run.launch, op, wavefronts, conflicts)
            assert 0 <= wavefronts <= HARDWARE_EXCESS_BAR * predicted, (run.launch, op, wavefronts, predicted)


def test_the_shared_loop_loads_at_every_iteration(recorded):
    # ptxas hoisted a plain ld.shared out of the loop (commit 4cb7254): 1 load per warp, not 64.
    for point in recorded.results.shared:
        loads = point.run.measured.shared_ld_instructions
        assert loads == point.warp_accesses, (point.run.launch, loads, point.warp_accesses)


def test_the_recorded_predictions_are_the_analyzers_today(recorded):
    # A rule changed since the recording is judged against the hardware, not its old self.
    from labkit.gpu.backend import select_backend

    if select_backend() != "simulator":
        pytest.skip("the analyzer traces kernels in the simulator")
    from labkit.labs.lab02 import plan
    from labkit.labs.lab02.analysis import predict

    results = recorded.results
    launches = plan.launches(results.sizes, results.device.sm_count)
    by_name = {run.launch: run for run in results.runs()}
    # One launch of each kind, traced now (the whole set takes a minute; `make lab-02` shows it).
    chosen = {}
    for launch in launches:
        chosen.setdefault((launch.step, launch.kernel), launch)
    for launch in chosen.values():
        assert predict(launch) == by_name[launch.name].predicted, launch.name


def test_predicted_dram_bytes_within_5_percent_at_every_sweep_point(recorded):
    off = [(p.run.launch, p.dram_error) for p in recorded.results.sweep
           if p.dram_error is None or abs(p.dram_error) > DRAM_TOLERANCE]
    assert not off, off


def test_strided_reads_move_more_dram_than_their_sectors(recorded):
    # The 64-byte fetch: float32 stride 32 touches one sector of 32 per 128-byte line, DRAM moves two.
    point = next(p for p in recorded.results.sweep if (p.element_bytes, p.stride, p.offset) == (4, 32, 0))
    sectors_bytes = 32 * point.run.measured.ld_sectors
    assert point.run.measured.dram_read_bytes > 1.9 * sectors_bytes


def test_copy_reaches_cupy_copyto(recorded):
    assert COPY_BAR <= recorded.results.copy_vs_cupy <= 1.05


@pytest.mark.parametrize("kernel", ["transpose_padded", "transpose_swizzled"])
def test_conflict_free_transposes_reach_the_copy(recorded, kernel):
    ratio = recorded.results.vs_copy(kernel)
    assert TRANSPOSE_BAR <= ratio <= 1.02, ratio


def test_bank_conflicts_cost_the_tiled_transpose(recorded):
    results = recorded.results
    assert results.transpose("transpose_tiled").run.instruction_conflicts("ld") > 0
    for kernel in ("transpose_padded", "transpose_swizzled"):
        assert results.transpose(kernel).run.instruction_conflicts("ld") == 0, kernel
    assert results.vs_copy("transpose_tiled") < results.vs_copy("transpose_padded")


def test_shared_time_follows_wavefronts(recorded):
    # More wavefronts per load never cost fewer cycles, within a width, beyond 10 % noise.
    results = recorded.results
    for width in (4, 8, 16):
        points = sorted((p for p in results.shared if p.element_bytes == width),
                        key=lambda p: p.predicted_wavefronts_per_access)
        cycles = [results.cycles_per_warp_access(p) for p in points]
        assert all(later >= 0.9 * earlier for earlier, later in zip(cycles, cycles[1:])), (width, cycles)


def test_no_sm_serves_more_than_one_wavefront_per_cycle(recorded):
    # The data stage serves a wavefront per cycle (Kernel Profiling Guide: wavefronts are processed
    # on different cycles); the loop's SM cycles per warp load cannot fall below its wavefronts.
    # The hoisted loop of commit 4cb7254 read 0.27 cycles for 1 wavefront.
    results = recorded.results
    for point in results.shared:
        cycles = results.cycles_per_warp_access(point)
        assert cycles >= 0.9 * point.predicted_wavefronts_per_access, (point.run.launch, cycles)


#: Up to a stride of NEAR_STRIDE_BYTES, sweep points move DRAM bytes (the analyzer's 64-byte fetch
#: model) at this share of the read roof or more, and at most at the upper one (noise).
STRIDED_DRAM_BAR, STRIDED_DRAM_CAP = 0.80, 1.03
NEAR_STRIDE_BYTES = 128
#: Beyond it, DRAM itself delivers less (twice the same on the H200: 0.67 of the read roof at 192
#: bytes, 0.55 at 256), but never below this share: chapter 2 says so with the recorded figures.
FAR_DRAM_FLOOR = 0.50


def test_stride_1_reaches_the_read_roof_at_every_element_width(recorded):
    results = recorded.results
    for width in (4, 8, 16):
        share = results.of_read_roof(results.sweep_point(width, 1).useful_gbps)
        assert READ_ROOF_BAR <= share <= STRIDED_DRAM_CAP, (width, share)


def test_useful_bandwidth_falls_as_the_fetched_bytes_say(recorded):
    """The sweep is bandwidth-bound at every stride up to 128 bytes: what DRAM delivers (the
    analyzer's predicted bytes, sectors rounded up to 64-byte fetches) flows near the read roof's
    rate, so the useful bandwidth is the roof's times useful / fetched bytes (4-byte stride 2: half;
    stride 8: an eighth)."""
    results = recorded.results
    assert results.read_roof is not None, "recorded before the read roof: re-record lab 02"
    off = []
    for point in results.sweep:
        if point.stride * point.element_bytes > NEAR_STRIDE_BYTES:
            continue
        share = results.dram_share_of_read_roof(point)
        if not STRIDED_DRAM_BAR <= share <= STRIDED_DRAM_CAP:
            off.append((point.run.launch, round(share, 2)))
    assert not off, off


def test_beyond_128_byte_strides_dram_itself_delivers_less_and_less(recorded):
    """Past 128 bytes between elements the fetched bytes flow further below the read roof's rate, the
    lower the wider the stride, at every element width, above a floor (chapter 2 says it from 64 bytes:
    test_dram_delivers_less_and_less_beyond_64_bytes)."""
    results = recorded.results
    far = sorted({p.stride * p.element_bytes for p in results.sweep
                  if p.offset == 0 and p.stride * p.element_bytes > NEAR_STRIDE_BYTES})
    assert 256 in far, far
    shares = [results.dram_share_at_byte_stride(b, roof="read") for b in far]
    near = results.dram_share_at_byte_stride(NEAR_STRIDE_BYTES, roof="read")
    assert all(later < earlier for earlier, later in zip([near, *shares], shares)), (far, shares)
    assert min(shares) >= FAR_DRAM_FLOOR and near >= STRIDED_DRAM_BAR, (near, shares)


# ----- the sentences of chapter 2 that conclude from this record, held in both H200 recordings ----------
#
# Chapter 2 (docs/{fr,zh}/performance/02-coalescing.md) says, from lab 02's record:
#   §aos-soa: scalar AoS takes [[lab02.particles.aos_over_soa_time]] times SoA's time; its DRAM bytes
#       explain only part of it: [[lab02.particles.aos_over_soa_dram_reads]] times the reads,
#       [[lab02.particles.aos_over_soa_dram_writes]] times the writes (whole 32-byte sectors against 12
#       bytes), [[lab02.particles.aos_over_soa_dram_bytes]] times in all; vector AoS moves the same DRAM
#       bytes, read and written, [[lab02.particles.aos_scalar_over_vector_time]] times faster, its DRAM
#       rate at [[lab02.particles.aos_vector_dram_pct_of_copy]] % of the copy's (bound by its bytes),
#       the scalar one's at [[lab02.particles.aos_scalar_dram_pct_of_copy]] %, with nine instructions
#       per particle against three, each at 32 sectors per request, and L1TEX busier
#       ([[lab02.particles.l1tex_pct.aos_scalar]] % against [[lab02.particles.l1tex_pct.aos_vector]] %);
#   §stores: the naive transpose writes 32 sectors per request and holds
#       [[lab02.transpose.naive_pct_of_copy]] % of the copy;
#   §lab (sweep): the read roof passes the copy ([[lab02.read_roof.pct_of_copy]] %); over an eighth of
#       the span it reaches only [[lab02.read_roof.short_pct]] % of that, as if it paid
#       [[lab02.read_roof.fixed_us]] us per launch, partly the L2 flush's dirty lines (the probe's record);
#       the coalesced point reaches the read roof at every width
#       ([[lab02.sweep.stride1_least_pct_of_read_roof]] % at least), stride 1 over stride 2 and 8 is
#       [[lab02.sweep.stride1_over_stride2]] and [[lab02.sweep.stride1_over_stride8]]; up to 64 bytes
#       of stride DRAM delivers at the roof ([[lab02.sweep.dram_pct.b64]] %), beyond it less and less
#       ([[lab02.sweep.dram_pct.b80]], [[lab02.sweep.dram_pct.b96]], [[lab02.sweep.dram_pct.b128]],
#       [[lab02.sweep.dram_pct.b256]] %).
# A re-recording that changes one of these fails here, in either record.

import json  # noqa: E402

from tests.conftest import REPO_ROOT as _ROOT  # noqa: E402

FIRST_PASS = _ROOT / "tests/fixtures/h200-first-pass/labs/02-coalescing/results/nvidia-h200.json"
PROBE = _ROOT / "tests/gpu/recorded/nvidia-h200/issue29-lab0102/read_roof_probe.json"
#: "Only part": the time ratio is more than this many times the DRAM-bytes ratio.
BYTES_EXPLAIN_PART = 1.2
#: "The same DRAM bytes": within this share.
SAME_BYTES = 0.01
#: "Bound by its bytes": DRAM at this share of the copy's rate or more; the scalar kernel below the other.
BOUND_BY_BYTES, NOT_BOUND_BY_BYTES = 0.85, 0.70
#: "Passes the copy", "only ... over an eighth": the read roof above the copy, its short launch below this.
SHORT_LAUNCH_SHORT = 0.90
#: "Divided by 2, by 8": within this share of the fetched bytes' ratio.
AS_THE_BYTES_SAY = 0.05
#: "Up to 64 bytes at the roof", "beyond it less and less", "below 95 % from 96 bytes".
AT_THE_ROOF, FALLING_FROM_BYTES = 0.98, 64


@pytest.fixture(scope="module", params=["course", "first-pass"])
def either(request):
    """Lab 02's results in the course's record and in the first H200 recording."""
    path = RESULTS if request.param == "course" else FIRST_PASS
    return read_results(path, LAB.results_type, LAB.id).results


def _seconds(results, layout, access):
    return results.particle(layout, access).run.timing.median_seconds


def _dram(results, layout, access, what="both"):
    measured = results.particle(layout, access).run.measured
    return {"reads": measured.dram_read_bytes, "writes": measured.dram_write_bytes,
            "both": measured.dram_read_bytes + measured.dram_write_bytes}[what]


def _dram_of_copy(results, layout, access):
    return results.of_ceiling(results.particle(layout, access).run.timing.gbps(_dram(results, layout, access)))


def test_the_aos_penalty_is_more_than_its_dram_bytes_read_and_written(either):
    time_ratio = _seconds(either, "aos", "scalar") / _seconds(either, "soa", "scalar")
    ratios = {what: _dram(either, "aos", "scalar", what) / _dram(either, "soa", "scalar", what)
              for what in ("reads", "writes", "both")}
    # whole 32-byte sectors written back against 12 bytes: more than twice the writes
    assert 1 < ratios["reads"] < ratios["both"] < ratios["writes"] and ratios["writes"] > 2, ratios
    assert time_ratio > BYTES_EXPLAIN_PART * ratios["both"], (time_ratio, ratios)


def test_vector_aos_moves_the_same_dram_bytes_faster_bound_by_them(either):
    for what in ("reads", "writes"):
        assert _dram(either, "aos", "vector", what) == pytest.approx(_dram(either, "aos", "scalar", what),
                                                                     rel=SAME_BYTES), what
    assert _seconds(either, "aos", "scalar") > 1.3 * _seconds(either, "aos", "vector")
    assert _dram_of_copy(either, "aos", "vector") >= BOUND_BY_BYTES
    assert _dram_of_copy(either, "aos", "scalar") < NOT_BOUND_BY_BYTES


def test_scalar_aos_differs_by_three_times_the_32_sector_instructions_and_a_busier_l1tex(either):
    instructions = {kernel: sum(facts.global_loads_by_bits.values()) + sum(facts.global_stores_by_bits.values())
                    for kernel, facts in either.sass.kernels.items()}
    assert (instructions["drift_aos"], instructions["drift_aos_vector"]) == (9, 3)
    for access in ("scalar", "vector"):
        measured = either.particle("aos", access).run.measured
        assert measured.ld_sectors_per_request == measured.st_sectors_per_request == 32, access
    l1tex = {access: either.particle("aos", access).run.measured.l1tex_throughput_pct for access in ("scalar", "vector")}
    assert l1tex["scalar"] > l1tex["vector"], l1tex


def test_the_naive_transpose_writes_32_sectors_per_request_far_below_the_copy(either):
    naive = either.transpose("transpose_naive").run.measured
    assert naive.st_sectors_per_request == 32 and naive.ld_sectors_per_request == 4
    assert either.vs_copy("transpose_naive") < 0.2


def test_the_read_roof_passes_the_copy_and_a_short_launch_falls_short(either):
    assert either.of_ceiling(either.read_roof.gbps) > 1.0
    short = min(either.read_roofs, key=lambda roof: roof.read_bytes)
    assert either.of_read_roof(short.gbps) < SHORT_LAUNCH_SHORT
    assert either.read_roof_fixed_seconds > 0


def test_the_probe_saw_part_of_the_fixed_cost_go_with_a_flush_that_leaves_l2_clean():
    """After the timer's memset flush the read roof pays more per launch than after a read of as many
    bytes, which leaves L2 clean (labkit.calibration.read_roof_probe, one run on the H200)."""
    fits = {mode: values["fit"] for mode, values in json.loads(PROBE.read_text())["modes"].items()}
    assert 0 < fits["read"]["fixed_us"] < 0.5 * fits["memset"]["fixed_us"], fits


def test_the_coalesced_point_reaches_the_read_roof_and_strides_divide_it_as_the_bytes_say(either):
    for width in (4, 8, 16):
        assert either.of_read_roof(either.sweep_point(width, 1).useful_gbps) >= READ_ROOF_BAR, width
    stride1 = either.sweep_point(4, 1).useful_gbps
    for stride, fetched in ((2, 2), (8, 8)):
        ratio = stride1 / either.sweep_point(4, stride).useful_gbps
        assert ratio == pytest.approx(fetched, rel=AS_THE_BYTES_SAY), (stride, ratio)


def test_dram_delivers_less_and_less_beyond_64_bytes(either):
    """Up to 64 bytes of stride DRAM delivers at the read roof's rate (within 2 %); beyond, never
    more at a wider stride (beyond 1 % of noise), below 95 % from 96 bytes, and falling at each of
    the strides the chapter names."""
    strides = sorted({p.stride * p.element_bytes for p in either.sweep
                      if p.offset == 0 and p.stride * p.element_bytes >= FALLING_FROM_BYTES})
    shares = {b: either.dram_share_at_byte_stride(b, roof="read") for b in strides}
    assert {64, 80, 96, 128, 256} <= set(strides), strides
    assert all(either.dram_share_at_byte_stride(b, roof="read") >= AT_THE_ROOF for b in (16, 32, 48))
    assert shares[64] >= AT_THE_ROOF and shares[64] > shares[80] > shares[96] > shares[128] > shares[256], shares
    assert shares[96] < 0.95, shares
    ordered = [shares[b] for b in strides]
    assert all(later <= earlier + 0.01 for earlier, later in zip(ordered, ordered[1:])), shares
