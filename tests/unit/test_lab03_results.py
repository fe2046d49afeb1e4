"""Lab 03's record (labkit.labs.lab03.results) on a model H200 (tests/labs/lab03_synthetic.py): what
it derives (plateaus, Little's-law predictions, knees, occupancies, waves), what it refuses, and that
its tables and figures render in every language."""

import math
import xml.etree.ElementTree as etree

import pytest
from pydantic import ValidationError

from labkit.labs.lab03 import LAB
from labkit.labs.lab03.results import LOW_OCCUPANCY, Launch
from labkit.models import latency
from labkit.report.labels import label
from labkit.report.tables import format_cell
from tests.labs import lab03_synthetic as syn


@pytest.fixture(scope="module")
def record():
    return syn.results()


def test_the_plateaus_are_the_medians_of_their_windows(record):
    assert record.plateau("l1").cycles == 32 and record.plateau("l2").cycles == 270
    hbm = record.plateau("hbm")
    # the working sets of 8 x L2 and more: 512 MiB, 768 MiB and 1 GiB; the median is 768 MiB's
    assert hbm.points == 3 and hbm.cycles == pytest.approx(syn.load_cycles(768 << 20), rel=1e-3)
    assert record.plateau("l1").ns == pytest.approx(32 / syn.CLOCK_MHZ * 1e3, rel=1e-3)


def test_the_copy_knee_is_littles_law_with_a_warps_round_trip(record):
    hbm_seconds = record.plateau("hbm").ns * 1e-9
    for loads in (1, 8):
        read_bytes = loads * 16 * 32
        alone = (syn.COPY_GBPS / 2) * 1e9 * hbm_seconds / syn.SMS / read_bytes
        assert record.latency_copy_warps(loads) == pytest.approx(alone, rel=1e-3)
        trip = hbm_seconds + 2 * read_bytes * syn.SMS / (syn.COPY_GBPS * 1e9)
        assert record.predicted_round_trip_seconds(loads) == pytest.approx(trip, rel=1e-3)
        knee = record.predicted_copy_knee(loads)
        assert knee == pytest.approx(syn.COPY_GBPS * 1e9 / syn.SMS * trip / (2 * read_bytes), rel=1e-3)
        assert knee == pytest.approx(alone + 1, rel=1e-3)
        assert record.predicted_copy_gbps(loads, knee) == pytest.approx(syn.COPY_GBPS, rel=1e-3)
        assert record.predicted_copy_gbps(loads, knee / 2) == pytest.approx(syn.COPY_GBPS / 2, rel=1e-3)
        assert record.predicted_copy_gbps(loads, 4 * knee) == pytest.approx(syn.COPY_GBPS)


def test_the_measured_round_trip_is_littles_law_on_the_measurement(record):
    for curve in record.memory_curves():
        first = record.memory.curve(curve.loads)[0]
        moved = 2 * curve.loads * 16 * 32 * first.launch.warps_per_sm * syn.SMS
        assert curve.first_warps_per_sm == first.launch.warps_per_sm == 1
        assert curve.first_round_trip_seconds == pytest.approx(moved / (first.gbps * 1e9))
        # the synthetic copy's rounded corner makes it slower than the bound: its round trip longer
        assert curve.first_round_trip_seconds > curve.round_trip_model_seconds


def test_measured_knees_follow_the_model_and_would_show_a_blunter_corner(record):
    sharp = {c.loads: c for c in record.memory_curves()}
    for loads in (1, 2, 4):
        assert sharp[loads].knee.within and 0.8 < sharp[loads].knee_ratio < 1.1
    blunt = {c.loads: c for c in syn.results(copy_sharpness=1.0).memory_curves()}
    assert all(blunt[n].knee_ratio < sharp[n].knee_ratio for n in (4, 8, 16))
    assert blunt[1].knee.plateau < 0.7 * syn.COPY_GBPS  # one load per thread: still far from C at 64 warps


def test_curves_end_where_registers_stop_them(record):
    ends = {c.loads: c.max_warps_per_sm for c in record.memory_curves()}
    # 48 registers: 10 warps per scheduler; 80 registers: 6
    assert ends[1] == 64 and ends[8] == 40 and ends[16] == 24


def test_low_occupancy_points_are_those_at_a_quarter_or_less(record):
    low = record.low_occupancy_points(8)
    assert {p.launch.warps_per_sm for p in low} == {1, 2, 3, 4, 6, 8, 12, 16}
    assert all(record.theoretical_occupancy(p.launch, 48) <= LOW_OCCUPANCY for p in low)


def test_the_fma_knee_is_the_schedulers_latency_times_issue_rate(record):
    assert record.arithmetic.fma_latency_cycles == pytest.approx(syn.FMA_LATENCY)
    assert record.predicted_fma_knee(1) == pytest.approx(16) and record.predicted_fma_knee(2) == pytest.approx(8)
    assert record.fma_knee(1).x == pytest.approx(16, rel=0.01) and record.fma_knee(2).x == pytest.approx(8, rel=0.01)
    assert not record.fma_knee(8).within
    peak = record.fp32_peak_gflops()
    assert record.predicted_fma_gflops(1, 8) == pytest.approx(peak / 2)


def test_register_variants_read_as_occupancy(record):
    by_cap = {v.max_registers: v for v in record.registers.variants}
    assert record.register_occupancy(by_cap[None]).occupancy == pytest.approx(0.375)
    assert record.register_occupancy(by_cap[32]).occupancy == 1.0
    assert record.fastest_register_variant() is by_cap[None]


def test_waves(record):
    slots = record.wave_slots()
    assert slots == syn.SMS * 2
    one = record.one_wave_seconds()
    assert record.predicted_wave_seconds(slots) == one
    assert record.predicted_wave_seconds(slots + 1) == 2 * one
    assert record.predicted_wave_seconds(slots // 4) == one


def test_tables_and_figures_render_in_every_language(record):
    for lang in ("en", "fr", "zh"):
        for table in LAB.tables(record):
            for row in table.rows:
                assert len(row) == len(table.columns)
                assert all(format_cell(v, c.kind, lang, lambda key: label(lang, key))
                           for v, c in zip(row, table.columns))
        figures = LAB.figures(record, lang)
        assert len(figures) == 4
        for figure in figures:
            text = etree.tostring(figure, encoding="unicode")
            assert "nan" not in text.lower() and "inf" not in text.lower().replace("infl", "")


# ----- what the record refuses -----------------------------------------------------------------
def test_a_failed_check_is_refused():
    with pytest.raises(ValidationError, match="checks against NumPy failed: synthetic"):
        syn.results(checks_pass=False)


def test_a_copy_above_the_hbm_peak_is_refused(record):
    fast = record.memory.model_copy(update={"reference": syn.timing(record.memory.copy_bytes / 5000e9)})
    with pytest.raises(ValidationError, match="memory reference copy: 5000 GB/s is above the GPU's theoretical HBM"):
        syn.results(memory=fast)


def test_a_launch_that_does_not_hold_its_blocks_is_refused(record):
    point = record.memory.points[0]
    wrong = point.model_copy(update={"launch": Launch(threads_per_block=32, blocks_per_sm=1, dynamic_shared_bytes=0)})
    memory = record.memory.model_copy(update={"points": [wrong, *record.memory.points[1:]]})
    with pytest.raises(ValidationError, match="holds 32 blocks per SM, not the 1 recorded"):
        syn.results(memory=memory)


def test_a_clock_faster_than_the_sm_is_refused(record):
    first = record.latency.points[0]
    fast = first.model_copy(update={"nanoseconds": first.cycles // 3})
    step = record.latency.model_copy(update={"points": [fast, *record.latency.points[1:]]})
    with pytest.raises(ValidationError, match="imply an SM clock of .* above the maximum"):
        syn.results(latency=step)


def test_an_fma_rate_above_the_peak_is_refused(record):
    point = record.arithmetic.points[-1]
    fast = point.model_copy(update={"timing": syn.timing(point.flops / 80e12)})
    step = record.arithmetic.model_copy(update={"points": [*record.arithmetic.points[:-1], fast]})
    with pytest.raises(ValidationError, match="above the FP32 peak"):
        syn.results(arithmetic=step)


def test_a_missing_curve_is_refused(record):
    memory = record.memory.model_copy(update={"points": [p for p in record.memory.points if p.loads != 4]})
    with pytest.raises(ValidationError, match="the curve of 4 loads per thread has fewer than two points"):
        syn.results(memory=memory)


def test_the_little_functions_agree_with_the_record(record):
    hbm = record.hbm_latency_seconds
    bytes_per_warp = latency.bytes_in_flight_per_warp(4, 16)
    assert record.predicted_copy_knee(4) == pytest.approx(
        latency.copy_knee_warps_per_sm(record.memory.copy_gbps, bytes_per_warp, hbm, syn.SMS))
    assert record.predicted_copy_gbps(4, 2) == pytest.approx(
        latency.copy_gbps(2, bytes_per_warp, hbm, record.memory.copy_gbps, syn.SMS))
    assert math.isfinite(record.predicted_copy_knee(1))


def _immediate(record, rate_share: float = 0.7, blocks_per_sm: int | None = None):
    """The one-chain curve again as the immediate-operand kernel's, at ``rate_share`` of the peak."""
    peak = record.fp32_peak_gflops() * 1e9
    points = []
    for point in record.arithmetic.curve(1):
        launch = point.launch if blocks_per_sm is None else point.launch.model_copy(
            update={"blocks_per_sm": blocks_per_sm})
        points.append(point.model_copy(update={"launch": launch, "timing": syn.timing(point.flops / (peak * rate_share))}))
    return record.arithmetic.model_copy(update={
        "immediate_kernel": record.arithmetic.kernel(1), "immediate_points": points})


def test_the_immediate_operand_curve_is_held_like_the_others(record):
    step = _immediate(record)
    held = syn.results(arithmetic=step)
    assert held.arithmetic.immediate_curve()[-1].launch.warps_per_sm == 64
    (table,) = [t for t in LAB.tables(held) if t.id == "lab03.fma_operands"]
    assert [row[0] for row in table.rows] == ["fma_operand_register", "fma_operand_immediate"]
    assert table.rows[1][5] == pytest.approx(0.7) and table.rows[0][1] is None   # no SASS in this record
    for lang in ("en", "fr", "zh"):
        assert label(lang, f"table.{table.id}") and all(label(lang, f"column.{c.id}") for c in table.columns)
    assert "lab03.fma_operands" not in {t.id for t in LAB.tables(record)}
    with pytest.raises(ValidationError, match="above the FP32 peak"):
        syn.results(arithmetic=_immediate(record, rate_share=1.2))
    with pytest.raises(ValidationError, match="immediate operand at .* holds .* blocks per SM"):
        syn.results(arithmetic=_immediate(record, blocks_per_sm=40))
