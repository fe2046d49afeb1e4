"""Chapter 3's exercises: their targets are the chapter's own figures, and their own metrics count
what they say (labkit/exercises/ch03.py; the checks themselves run in tests/labs/test_exercises.py)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from labkit.course import figures
from labkit.exercises import ch03
from labkit.exercises.watch import Evidence, Launch
from labkit.labs.recorded import little_inputs
from labkit.models import latency, occupancy
from labkit.models.access import WarpAccess
from labkit.simulator.trace import KernelTrace, TracedInstruction


def test_the_in_flight_target_is_the_chapter_s_little_law_example():
    """The target is the knee of the chapter's example (lab 03's measured C and HBM latency, the
    figures the page shows) falling at 16 warps per SM: W* = W_l + 1 <= 16."""
    little = little_inputs()
    per_sm = latency.bytes_in_flight_per_sm(little.copy_gbps / 2, little.latency_seconds, little.sm_count)
    assert per_sm / 1024 == pytest.approx(figures.figure_value("ch03.little.copy_reads_per_sm_kib"), abs=0.05)
    assert ch03.ILP_WARPS_PER_SM == 16
    knee = latency.copy_knee_warps_per_sm(little.copy_gbps, ch03.ilp_target_bytes_per_warp(), little.latency_seconds,
                                          little.sm_count)
    assert knee == pytest.approx(ch03.ILP_WARPS_PER_SM)
    assert 2 * 128 < ch03.ilp_target_bytes_per_warp() <= 3 * 128     # three float32 warp loads, where the skeleton has one
    assert ch03.ilp_target_bytes_per_warp() < 16 * 128               # our solution's 16 loads are well above the minimum


def _load(block, warp, line, lanes=32, op="load"):
    addresses = tuple(4 * lane if lane < lanes else None for lane in range(32))
    return TracedInstruction(block=block, warp=warp, array="x", function="copy", line=line, instance=0,
                             access=WarpAccess(addresses, 4, op))


def test_bytes_in_flight_are_the_loads_a_warp_issues_before_a_store():
    unrolled = [_load((0, 0, 0), 0, 1)] * 8 + [_load((0, 0, 0), 0, 2, op="store")] * 8
    single = [_load((0, 0, 0), 0, 3, lanes=16), _load((0, 0, 0), 0, 4, lanes=16, op="store")]
    evidence = Evidence(elements=1, launches=[Launch("copy", (1, 1, 1), (32, 1, 1),
                                                     KernelTrace(unrolled * 3 + single))])
    assert ch03.bytes_in_flight_per_warp(evidence) == 8 * 128     # the remainder's lone half-warp load is a minority
    interleaved = [_load((0, 0, 0), 0, 1), _load((0, 0, 0), 0, 2, op="store")] * 4
    evidence = Evidence(elements=1, launches=[Launch("copy", (1, 1, 1), (32, 1, 1), KernelTrace(interleaved))])
    assert ch03.bytes_in_flight_per_warp(evidence) == 128


def test_the_tail_kernel_s_residency_differs_across_the_gpus():
    assert [ch03.blocks_per_sm(cc) for _, _, cc in ch03.GPUS] == [4, 4, 3, 2, 2, 1]
    assert ch03.blocks_per_sm(ch03.TAIL_SIMULATOR_GPU[1]) == 1


def test_the_skeleton_s_grid_is_a_quarter_wave_too_many_on_an_h200():
    per_block = ch03.TAIL_THREADS * ch03.TAIL_PER_THREAD
    grid = -(-ch03.TAIL_GPU_ELEMENTS // per_block)
    assert occupancy.waves(grid, 132, 4) == 1.25
    assert occupancy.tail_efficiency(grid, 132, 4) == 0.625
    # one wave instead: every thread takes the same 40 elements, against 2 x 32 in the skeleton's two rounds
    assert ch03.TAIL_GPU_ELEMENTS / (132 * 4 * ch03.TAIL_THREADS) == 40


@pytest.mark.parametrize("blocks, worst", [
    (lambda n, sms, cc: sms * ch03.blocks_per_sm(cc), 1.0),
    (lambda n, sms, cc: 2 * sms * ch03.blocks_per_sm(cc), 1.0),
    (lambda n, sms, cc: 132 * ch03.blocks_per_sm(cc), 528 / 456 / 2),     # H200's SMs on an H100 PCIe
    (lambda n, sms, cc: 4 * sms, 432 / 324 / 2),                          # H200's residency on an A100
])
def test_wave_efficiency_is_the_worst_gpu_s(blocks, worst):
    module = SimpleNamespace(__file__=__file__, blocks=blocks)
    assert ch03.wave_efficiency(Evidence(elements=1, module=module)) == pytest.approx(worst)


def test_xorshift32_is_marsaglia_s():
    assert ch03.xorshift32(np.array([1], np.uint32), 1)[0] == 270369
    assert ch03.xorshift32(np.array([2463534242], np.uint32), 1)[0] == 723471715
