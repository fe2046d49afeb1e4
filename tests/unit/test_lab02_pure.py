"""Lab 02's pure pieces: the DRAM fetch model, the union of translates, the launch plan, the
shared sweep's reference, the chart's ticks, the SASS widths."""

import random

import numpy as np
import pytest

from labkit.models.access import fetched_bytes, translates_union
from labkit.kernels.coalescing_cuda import (
    SHARED_SLOTS,
    shared_stride_reference,
    tile_shape,
    transpose_launch,
)
from labkit.profiling.sass import read_memory_widths


def test_fetched_bytes_counts_aligned_64_byte_blocks():
    assert fetched_bytes([0, 4, 60]) == 64                  # one block
    assert fetched_bytes([0, 64]) == 128                    # two
    assert fetched_bytes([i * 128 for i in range(32)]) == 32 * 64   # float32 stride 32: one sector, two moved
    assert fetched_bytes([]) == 0


def test_translates_union_equals_brute_force():
    rng = random.Random(7)
    for _ in range(2000):
        blocks = [rng.randrange(0, rng.choice([4, 40, 400, 4000])) for _ in range(rng.randrange(1, 10))]
        shift, count = rng.randrange(1, 25), rng.randrange(0, 80)
        assert translates_union(blocks, shift, count) == len({b + k * shift for b in blocks for k in range(count)})


def test_translates_union_refuses_a_non_positive_shift():
    with pytest.raises(ValueError, match="shift must be positive"):
        translates_union([1], 0, 3)


def test_shared_reference_sums_the_slot_each_lane_reads():
    out = shared_stride_reference(16, 64, 3, 5)
    assert out[1] == 5 * 4 * 3 and out[33] == out[1]       # lane 1 of either warp: slot 3, 4 words
    assert shared_stride_reference(4, 32, 64, 1)[31] == (31 * 64) % SHARED_SLOTS


def test_transpose_launch_and_tile_names():
    assert transpose_launch(16384, 64, 4) == ((256, 256), (64, 4))
    with pytest.raises(ValueError, match="multiple of the tile"):
        transpose_launch(100, 64, 4)
    assert tile_shape("padded", 32) == "[32][33]" and tile_shape("tiled", 64) == "[64][64]"


def test_sass_widths_of_stores_and_shared_accesses():
    text = "\n".join(f"        /*{i:04x}*/                   {op} R2, [R4] ;" for i, op in enumerate(
        ["LDG.E.128", "LDG.E.64", "STG.E.128", "STG.E", "LDS.128", "STS", "LDS"]))
    facts = read_memory_widths(text)
    assert facts.global_loads_by_bits == {64: 1, 128: 1}
    assert facts.global_stores_by_bits == {32: 1, 128: 1}
    assert facts.shared_loads_by_bits == {32: 1, 128: 1} and facts.shared_stores_by_bits == {32: 1}


def test_plan_has_every_launch_once_with_whole_grids():
    from labkit.labs.lab02 import LAB
    from labkit.kernels.coalescing import SWEEP_LOADS
    from labkit.labs.lab02.plan import launches, sweep_elements

    plan = launches(LAB.gpu_sizes, 132)
    names = [launch.name for launch in plan]
    assert len(names) == len(set(names)) == 54 + 4 + 54 + 5
    by_name = {launch.name: launch for launch in plan}
    sizes = LAB.gpu_sizes
    coalesced = by_name["sweep.4B.s1.o0"]
    assert coalesced.blocks * 256 * SWEEP_LOADS == sweep_elements(coalesced) == sizes.sweep_elements
    # the same useful bytes at every width...
    for width in (8, 16):
        assert sweep_elements(by_name[f"sweep.{width}B.s1.o0"]) * width == 4 * sizes.sweep_elements
    # ...fewer elements where the reads would span more than sweep_span_bytes
    for launch in (launch for launch in plan if launch.step == "sweep"):
        span = (sweep_elements(launch) - 1) * launch.stride * launch.element_bytes + launch.offset * launch.element_bytes
        assert span < sizes.sweep_span_bytes, launch.name
    far = by_name["sweep.4B.s64.o0"]
    assert sweep_elements(far) == sizes.sweep_span_bytes // (64 * 4)
    with pytest.raises(ValueError, match="sweep_span_bytes"):
        launches(sizes.model_copy(update={"sweep_span_bytes": 1 << 18}), 132)
    with pytest.raises(ValueError, match="multiple"):
        launches(LAB.gpu_sizes.model_copy(update={"sweep_elements": 1000}), 132)
    with pytest.raises(ValueError, match="multiple"):   # whole threads but not whole loads per thread
        launches(LAB.gpu_sizes.model_copy(update={"sweep_elements": 256 * (SWEEP_LOADS + 1)}), 132)
    assert np.all([launch.blocks > 0 for launch in plan])


def _counts(**changes):
    from labkit.labs.lab02.results import Counts

    base = {"ld_requests": 8, "ld_sectors": 32, "st_requests": 8, "st_sectors": 32, "shared_ld_instructions": 8,
            "shared_st_instructions": 8, "shared_ld_wavefronts": 256, "shared_ld_conflicts": 248,
            "shared_st_wavefronts": 8, "shared_st_conflicts": 0, "dram_read_bytes": None}
    return Counts(**{**base, **changes})


def _sass(predicted, **changes):
    from labkit.labs.lab02.results import SassShared

    return SassShared(**{**{name: getattr(predicted, name) for name in SassShared.model_fields}, **changes})


def test_the_claim_holds_with_an_arbitration_excess_within_the_bar():
    from labkit.labs.lab02.results import (
        HARDWARE_EXCESS_BAR,
        hardware_excess,
        mismatches,
    )

    predicted = _counts()
    # 2 extra load wavefronts, counted as conflicts too: the ideal wavefronts (8) are unchanged.
    measured = _counts(shared_ld_wavefronts=258, shared_ld_conflicts=250)
    assert predicted.ideal_wavefronts("ld") == measured.ideal_wavefronts("ld") == 8
    assert hardware_excess(predicted, measured, "ld") == 2 <= HARDWARE_EXCESS_BAR * 256
    assert mismatches(predicted, measured, _sass(predicted)) == []


def test_the_claim_breaks_on_each_kind_of_difference():
    from labkit.labs.lab02.results import mismatches

    predicted = _counts()
    sass = _sass(predicted)
    cases = {
        "ld_sectors": (_counts(ld_sectors=33), sass),
        "shared_ld_instructions": (_counts(shared_ld_instructions=1), sass),         # a hoisted load
        "instruction level": (predicted, _sass(predicted, shared_st_wavefronts=9)),
        "ideal wavefronts": (_counts(shared_ld_wavefronts=257), sass),                 # excess not in conflicts
        "outside": (_counts(shared_st_wavefronts=11, shared_st_conflicts=3), sass),    # 3 > 0.25 x 8 predicted
    }
    for phrase, (measured, measured_sass) in cases.items():
        found = mismatches(predicted, measured, measured_sass)
        assert any(phrase in line for line in found), (phrase, found)
    below = _counts(shared_ld_wavefronts=255, shared_ld_conflicts=247)                 # ncu below the analyzer
    assert any("hardware excess -1" in line for line in mismatches(predicted, below, sass))


def test_a_launch_without_shared_accesses_allows_no_excess():
    from labkit.labs.lab02.results import mismatches

    predicted = _counts(shared_ld_instructions=0, shared_st_instructions=0, shared_ld_wavefronts=0,
                        shared_ld_conflicts=0, shared_st_wavefronts=0, shared_st_conflicts=0)
    measured = predicted.model_copy(update={"shared_ld_wavefronts": 1, "shared_ld_conflicts": 1})
    assert mismatches(predicted, measured, _sass(predicted))


def test_instruction_level_conflicts_are_instruction_wavefronts_minus_the_hardware_ideal():
    """ncu has no instruction-level conflict counter for LDS/STS on gh100: the conflicts are the
    instruction-level wavefronts minus the ideal ones, which arbitration leaves exact."""
    from labkit.gpu.timing import Timing
    from labkit.labs.lab02.results import KernelRun

    predicted = _counts()
    timing = Timing(median_seconds=1e-3, min_seconds=1e-3, max_seconds=1e-3, repeats=1, warmup=0, l2_flushed=False,
                    sm_clock_mhz=None, mem_clock_mhz=None, back_to_back=True)
    run = KernelRun(launch="x", kernel="k", source="numba", timing=timing, predicted=predicted,
                    measured=_counts(shared_ld_wavefronts=258, shared_ld_conflicts=250), measured_sass=_sass(predicted))
    assert run.instruction_conflicts("ld") == 256 - 8 == predicted.shared_ld_conflicts
    assert run.instruction_conflicts("st") == 0
    assert run.model_copy(update={"measured": None}).instruction_conflicts("ld") is None


def test_the_read_roof_probe_fits_a_fixed_cost_and_a_bandwidth():
    from labkit.calibration.read_roof_probe import _fit

    # 12 us fixed and 4 600 GB/s, sampled at four sizes: the line gives both back
    points = [(b, 12e-6 + b / 4600e9) for b in (256 << 20, 512 << 20, 1 << 30, 2 << 30)]
    fit = _fit(points)
    assert fit["fixed_us"] == pytest.approx(12.0, rel=1e-6) and fit["gbps"] == pytest.approx(4600, rel=1e-9)


def test_lab02_read_roof_reference_is_each_blocks_xor():
    from labkit.kernels.coalescing_cuda import ROOF_LOADS, read_roof_blocks, read_roof_reference

    words = np.arange(2 * 32 * ROOF_LOADS * 4, dtype=np.uint32)
    first, second = np.split(words, 2)
    assert list(read_roof_reference(words, threads=32)) == [np.bitwise_xor.reduce(first), np.bitwise_xor.reduce(second)]
    assert read_roof_blocks(2 * 256 * ROOF_LOADS * 16) == 2
    with pytest.raises(ValueError, match="multiple"):
        read_roof_blocks(100)
