"""Lab 05's records: what a valid file holds, what cannot be, and what is derived from it."""

import pytest
from pydantic import ValidationError

from labkit.gpu.timing import Timing
from labkit.labs.base import Check, lab
from labkit.labs.lab04.results import Unavailable
from labkit.labs.lab05.results import CONTROL, MYSTERIES, PLANTED, PROFILED_KERNELS, Lab05Results, Pair, Sizes
from labkit.models.roofline import Verdict, verdict
from labkit.profiling import checklist

LAB = lab("lab-05")
PEAK_GBPS = 4800.0


def timing(seconds: float) -> Timing:
    return Timing(median_seconds=seconds, min_seconds=seconds, max_seconds=seconds, repeats=30, warmup=3,
                  l2_flushed=True, sm_clock_mhz=1980.0, mem_clock_mhz=3201.0, back_to_back=True)


def results(**changes) -> Lab05Results:
    sizes = LAB.gpu_sizes
    pairs = [Pair(mystery=m, faulty=timing(2e-3), repaired=None if m == CONTROL else timing(5e-4)) for m in MYSTERIES]
    fields = dict(sizes=sizes, checks=[Check(name="kernel_a", passed=True)], hbm_peak_gbps=PEAK_GBPS,
                  copy_ceiling=timing(sizes.copy_bytes / 4200e9), pairs=pairs,
                  ncu=Unavailable(status="unavailable", reason="no ncu"))
    return Lab05Results(**{**fields, **changes})


def test_every_planted_flaw_is_a_checklist_item_a_report_shows():
    assert PLANTED[CONTROL] is None
    for mystery, item in PLANTED.items():
        if item is not None:
            assert checklist.item(item).in_reports, mystery
    assert len(set(PLANTED.values()) - {None}) == len(MYSTERIES) - 1
    assert len(PROFILED_KERNELS) == 2 * len(MYSTERIES) - 1


@pytest.mark.parametrize("change, message", [
    ({"matrix_side": 100}, "matrix_side 100 is not a multiple of 32"),
    ({"walk_steps": 10_000}, "walk_steps 10000 > list_nodes / walk_warps"),
    ({"walk_warps": 12}, "walk_warps 12: 8 warps per block of 256 threads"),
])
def test_sizes_that_cannot_run_are_refused(change, message):
    with pytest.raises(ValidationError, match=message):
        Sizes(**{**LAB.gpu_sizes.model_dump(), **change})


def test_a_valid_record_and_what_it_derives():
    record = results()
    assert record.pair("a").gain == pytest.approx(4.0)
    assert record.pair(CONTROL).gain is None
    assert record.ceiling_gbps == pytest.approx(4200)
    t_min = record.sizes.stream_bytes / (record.ceiling_gbps * 1e9)
    assert record.control_ratio_to_min == pytest.approx(2e-3 / t_min)
    assert {g.item for g in LAB.gains(record)} == set(PLANTED.values()) - {None}
    assert LAB.cases(record) == {}        # no profiles without ncu
    tables = {t.id for t in LAB.tables(record)}
    assert tables == {"lab05.kernels", "lab05.control"}


def test_the_control_verdict_is_the_roofline_one():
    record = results(pairs=[Pair(mystery=m, faulty=timing(3 * (1 << 25) * 4 / 4000e9 if m == CONTROL else 2e-3),
                                 repaired=None if m == CONTROL else timing(5e-4)) for m in MYSTERIES])
    assert verdict(record.control_ratio_to_min, 1.0) is Verdict.STOP


@pytest.mark.parametrize("change, message", [
    (lambda r: {"checks": [Check(name="kernel_b", passed=False)]}, "checks against NumPy failed: kernel_b"),
    (lambda r: {"pairs": list(reversed(r.pairs))}, "pairs: holds"),
    (lambda r: {"pairs": [p.model_copy(update={"repaired": timing(1e-3)}) if p.mystery == CONTROL else p
                          for p in r.pairs]}, "pairs/e: the control has no repaired twin"),
    (lambda r: {"pairs": [p.model_copy(update={"repaired": None}) if p.mystery == "a" else p for p in r.pairs]},
     "pairs/a: a mystery kernel needs its repaired twin's time"),
    (lambda r: {"copy_ceiling": timing(r.sizes.copy_bytes / 5000e9)}, "copy_ceiling: 5000 GB/s is above the GPU's "
                                                                    "theoretical HBM peak 4800 GB/s"),
])
def test_what_cannot_be_is_refused(change, message):
    valid = results()
    with pytest.raises(ValidationError, match=message):
        Lab05Results.model_validate({**valid.model_dump(), **{k: (v if not isinstance(v, list) else
                                                                  [x.model_dump() for x in v])
                                                              for k, v in change(valid).items()}})


def test_kernel_gs_grid_is_one_whole_wave_at_full_occupancy():
    """Chapter 5 says so: kernel_g's grid fills the H200 exactly once at full occupancy (its twin's), so
    that the partial wave ncu reports for kernel_g comes from its register-limited occupancy alone."""
    from labkit.kernels.mysteries_launch import THREADS
    from labkit.models.occupancy import SM90, waves
    from labkit.specs.datasheets import H200_SXM

    full = SM90.max_warps_per_sm // (THREADS // SM90.warp_size)
    assert waves(LAB.gpu_sizes.walk_blocks, H200_SXM.sm_count, full) == 1.0
