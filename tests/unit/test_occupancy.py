"""The occupancy calculator: each limit, the allocation rules' edges, published examples, charts, waves."""

import dataclasses

import pytest

from labkit.models import occupancy as occ
from labkit.models.launch import LaunchConfigError
from labkit.models.occupancy import ARCHITECTURES, SM90, KernelLaunch, calculate

SM70 = ARCHITECTURES[(7, 0)]
SM75 = ARCHITECTURES[(7, 5)]
KIB = 1024


def blocks(threads, registers, static=0, dynamic=0, arch=SM90, **kwargs):
    return calculate(KernelLaunch(threads, registers, static, dynamic, **kwargs), arch).blocks_per_sm


# --- the architecture table -------------------------------------------------------------------

def test_h200_limits_are_those_the_driver_reports():
    # Read on the lent H200 (shared/GPU.md): 228 KiB per SM, 227 KiB opt-in, 1 KiB reserved, 64K registers.
    assert (SM90.shared_bytes_per_sm, SM90.max_shared_bytes_per_block_optin) == (233472, 232448)
    assert SM90.reserved_shared_bytes_per_block == 1024 and SM90.registers_per_sm == 65536
    assert (SM90.max_warps_per_sm, SM90.max_blocks_per_sm, SM90.max_threads_per_block) == (64, 32, 1024)
    assert SM90.shared_carveouts_bytes == tuple(k * KIB for k in (0, 8, 16, 32, 64, 100, 132, 164, 196, 228))


@pytest.mark.parametrize("arch", ARCHITECTURES.values(), ids=lambda a: a.label)
def test_every_architecture_is_self_consistent(arch):
    assert arch.shared_carveouts_bytes == tuple(sorted(arch.shared_carveouts_bytes))
    assert arch.shared_carveouts_bytes[-1] == arch.shared_bytes_per_sm
    # the opt-in limit is what is left of the SM once the block's reservation is taken
    assert arch.max_shared_bytes_per_block_optin == arch.shared_bytes_per_sm - arch.reserved_shared_bytes_per_block
    assert arch.max_threads_per_sm % arch.warp_size == 0


# The Guide's technical specifications per compute capability: resident warps and blocks per SM,
# shared memory per SM and the most a block may opt in to (KiB); the Header's allocation unit.
@pytest.mark.parametrize("cc, warps, blocks_, shared_kib, optin_kib, unit, reserved", [
    ((7, 0), 64, 32, 96, 96, 256, 0), ((7, 5), 32, 16, 64, 64, 256, 0), ((8, 0), 64, 32, 164, 163, 128, 1024),
    ((8, 6), 48, 16, 100, 99, 128, 1024), ((8, 7), 48, 16, 164, 163, 128, 1024), ((8, 9), 48, 24, 100, 99, 128, 1024),
    ((9, 0), 64, 32, 228, 227, 128, 1024), ((10, 0), 64, 32, 228, 227, 128, 1024),
    ((10, 3), 64, 32, 228, 227, 128, 1024), ((11, 0), 48, 24, 228, 227, 128, 1024),
    ((12, 0), 48, 24, 100, 99, 128, 1024), ((12, 1), 48, 24, 100, 99, 128, 1024),
])
def test_per_generation_limits(cc, warps, blocks_, shared_kib, optin_kib, unit, reserved):
    arch = ARCHITECTURES[cc]
    assert (arch.max_warps_per_sm, arch.max_blocks_per_sm) == (warps, blocks_)
    assert (arch.shared_bytes_per_sm, arch.max_shared_bytes_per_block_optin) == (shared_kib * KIB, optin_kib * KIB)
    assert (arch.shared_allocation_unit_bytes, arch.reserved_shared_bytes_per_block) == (unit, reserved)


def test_the_calculator_knows_every_compute_capability_of_the_header_from_7_0():
    # cuda_occupancy.h of CUDA 13.5 (its switch statements): 7.0 ... 12.1
    assert list(ARCHITECTURES) == [(7, 0), (7, 5), (8, 0), (8, 6), (8, 7), (8, 9), (9, 0), (10, 0), (10, 3), (11, 0),
                                   (12, 0), (12, 1)]
    assert [cc for _, cc in occ.CALCULATOR_GPUS] == list(ARCHITECTURES)


def test_unknown_compute_capability_is_named():
    with pytest.raises(ValueError, match=r"^compute capability 6\.1: the occupancy calculator knows 7\.0, 7\.5, .*12\.1$"):
        occ.architecture((6, 1))
    assert occ.architecture((8, 6)) is ARCHITECTURES[(8, 6)]


# --- published examples -----------------------------------------------------------------------

def test_best_practices_guide_example_on_compute_capability_7_0():
    # Best Practices Guide, "Calculating Occupancy": 37 registers per thread on 7.0 give 75 %
    # occupancy with 12 active 128-thread blocks, and 63 % with four 320-thread blocks.
    small = calculate(KernelLaunch(128, 37), SM70)
    assert (small.blocks_per_sm, small.occupancy, small.limiters) == (12, 0.75, ("registers",))
    large = calculate(KernelLaunch(320, 37), SM70)
    assert (large.blocks_per_sm, large.occupancy) == (4, 0.625)  # "63 %"


@pytest.mark.parametrize("arch", [SM70, SM90], ids=lambda a: a.label)
def test_full_occupancy_needs_at_most_32_registers(arch):
    # Best Practices Guide: 64K registers for 2048 threads, "each thread can use at most 32 registers".
    assert calculate(KernelLaunch(256, 32), arch).occupancy == 1.0
    assert calculate(KernelLaunch(256, 33), arch).occupancy < 1.0


# --- each limit, binding and not --------------------------------------------------------------

def test_warps_limit_binds_for_large_blocks_and_not_for_small_ones():
    big = calculate(KernelLaunch(1024, 16))
    assert (big.blocks_per_sm, big.limiters, big.limits.warps) == (2, ("warps",), 2)
    small = calculate(KernelLaunch(32, 16))
    assert small.limits.warps == 64 and "warps" not in small.limiters


def test_blocks_limit_binds_for_tiny_blocks_and_not_for_large_ones():
    tiny = calculate(KernelLaunch(32, 16))
    assert (tiny.blocks_per_sm, tiny.limiters, tiny.occupancy) == (32, ("blocks",), 0.5)
    assert "blocks" not in calculate(KernelLaunch(256, 16)).limiters


def test_registers_limit_binds_at_64_registers_and_not_at_16():
    heavy = calculate(KernelLaunch(256, 64))
    assert (heavy.blocks_per_sm, heavy.limiters, heavy.occupancy) == (4, ("registers",), 0.5)
    assert "registers" not in calculate(KernelLaunch(256, 16)).limiters


def test_shared_memory_limit_binds_at_47_kib_and_not_without():
    # 47 KiB dynamic + 1 KiB reserved = 48 KiB a block: 228 // 48 = 4 blocks.
    fat = calculate(KernelLaunch(128, 16, dynamic_shared_bytes=47 * KIB))
    assert (fat.blocks_per_sm, fat.limiters, fat.limits.shared_memory) == (4, ("shared_memory",), 4)
    assert "shared_memory" not in calculate(KernelLaunch(128, 16)).limiters


def test_ties_name_every_limiting_resource_in_header_order():
    # 256 threads x 32 registers: 8 blocks by warps and 8 by registers.
    assert calculate(KernelLaunch(256, 32)).limiters == ("warps", "registers")
    # 64 threads x 16 registers: 32 blocks by warps and by the block limit.
    assert calculate(KernelLaunch(64, 16)).limiters == ("warps", "blocks")


# --- register allocation: 256 registers per warp, four sub-partitions --------------------------

@pytest.mark.parametrize("registers, per_warp", [(1, 256), (8, 256), (9, 512), (32, 1024), (33, 1280),
                                                 (40, 1280), (64, 2048), (65, 2304), (128, 4096), (255, 8192)])
def test_registers_are_allocated_per_warp_in_units_of_256(registers, per_warp):
    assert occ.registers_per_warp(registers) == per_warp


@pytest.mark.parametrize("registers, threads, expected", [
    (32, 1024, 2), (33, 1024, 1),      # one register more halves a 1024-thread kernel
    (33, 96, 16),                      # 12 warps per sub-partition x 4 = 48 warps, not 65536 // 1280 = 51
    (40, 96, 16),                      # 33 to 40 registers cost the same
    (64, 1024, 1), (65, 1024, 0),      # 2304 x 32 warps > 65536: cannot launch
    (65, 256, 3), (65, 64, 14),        # 7 warps per sub-partition: 28 warps
    (128, 512, 1), (128, 1024, 0),
    (255, 256, 1), (255, 288, 0),      # 8192 registers a warp: at most 8 warps a block
    (255, 64, 4), (255, 128, 2),
])
def test_register_limit_edges(registers, threads, expected):
    assert blocks(threads, registers) == expected


def test_a_block_too_big_for_the_register_file_gets_zero_blocks_limited_by_registers():
    result = calculate(KernelLaunch(1024, 128))
    assert (result.blocks_per_sm, result.limiters, result.occupancy) == (0, ("registers",), 0.0)
    assert result.registers_per_block == 4096 * 32


def test_the_per_block_register_check_counts_warps_in_fours():
    # Every tabled capability has as many registers per block as per SM, so this Header check
    # never binds before the per-SM limit; on a made-up SM with half as many per block it does:
    # 13 warps of 65 registers take 29952 registers, but the hardware counts 16 warps (36864).
    half = dataclasses.replace(SM90, max_registers_per_block=32768)
    assert blocks(416, 65) == 2 and blocks(416, 65, arch=half) == 0
    assert blocks(480, 64, arch=half) == 2  # 16 warps x 2048 = 32768: fits


def test_zero_registers_set_no_limit():
    assert calculate(KernelLaunch(32, 0)).limits.registers is None


# --- shared memory: reservation, allocation unit, carve-out -----------------------------------

@pytest.mark.parametrize("dynamic, allocated", [(0, 1024), (1, 1152), (127, 1152), (128, 1152), (129, 1280)])
def test_shared_memory_is_reserved_then_rounded_to_128_bytes_on_9_0(dynamic, allocated):
    assert occ.shared_bytes_per_block(KernelLaunch(32, 16, dynamic_shared_bytes=dynamic)) == allocated


def test_volta_rounds_to_256_bytes_and_reserves_nothing():
    assert occ.shared_bytes_per_block(KernelLaunch(32, 16, dynamic_shared_bytes=1), SM70) == 256
    assert calculate(KernelLaunch(32, 16), SM70).limits.shared_memory is None


def test_a_kernel_without_shared_memory_still_holds_the_reserved_kib():
    assert calculate(KernelLaunch(32, 16)).limits.shared_memory == 228


def test_the_reserved_kib_costs_a_block_at_57_kib():
    # Four 57 KiB blocks fill 228 KiB; with the reserved KiB a 57 KiB request takes 58 KiB.
    assert blocks(64, 16, dynamic=56 * KIB) == 4
    assert blocks(64, 16, dynamic=57 * KIB) == 3
    assert blocks(64, 16, static=40 * KIB, dynamic=16 * KIB) == 4  # static and dynamic add up


def test_a_byte_over_the_allocation_unit_can_cost_a_block():
    # 56 KiB + 1 byte + 1 KiB reserved rounds to 57 KiB + 128: 233472 // 58496 = 3.
    assert blocks(64, 16, dynamic=56 * KIB + 1) == 3


def test_the_default_carveout_is_the_whole_shared_memory():
    for block_bytes in (1024, 60 * KIB, 200 * KIB):
        assert occ.shared_bytes_per_sm(block_bytes, None) == 228 * KIB


@pytest.mark.parametrize("block_bytes, percent, configured", [
    (1024, 0, 8 * KIB),          # max L1: the smallest capacity that holds one block
    (1024, 10, 32 * KIB),        # 10 % of 228 KiB = 22.8 KiB, rounded up to 32 KiB
    (1024, 25, 64 * KIB),        # 57 KiB -> 64 KiB
    (1024, 50, 132 * KIB),       # 114 KiB -> 132 KiB
    (1024, 100, 228 * KIB),
    (60 * KIB, 25, 64 * KIB),    # the preference holds a block: kept
    (70 * KIB, 25, 100 * KIB),   # it does not: the smallest capacity that holds one block
])
def test_a_carveout_preference_is_rounded_up_to_a_supported_capacity(block_bytes, percent, configured):
    assert occ.shared_bytes_per_sm(block_bytes, percent) == configured


def test_a_small_carveout_preference_limits_blocks():
    assert blocks(64, 16, carveout_percent=0) == 8            # 8 KiB / 1 KiB reserved
    assert blocks(64, 16, dynamic=69 * KIB, carveout_percent=25) == 1
    assert blocks(64, 16, dynamic=69 * KIB) == 3


def test_turing_has_no_carveout_below_32_kib():
    assert occ.shared_bytes_per_sm(256, 0, SM75) == 32 * KIB
    assert blocks(32, 16, dynamic=8 * KIB, arch=SM75, carveout_percent=0) == 4


def test_dynamic_shared_memory_over_the_kernels_attribute_cannot_launch():
    default = 48 * KIB - 4096  # the driver's default attribute: 48 KiB minus the static size
    assert blocks(128, 16, static=4096, dynamic=default, max_dynamic_shared_bytes=default) == 4
    over = calculate(KernelLaunch(128, 16, 4096, default + 1, max_dynamic_shared_bytes=default))
    assert (over.blocks_per_sm, over.limiters) == (0, ("shared_memory",))
    assert blocks(128, 16, static=4096, dynamic=default + 1) == 4  # None: the kernel opted in


def test_the_largest_block_fits_once():
    result = calculate(KernelLaunch(1024, 32, 48 * KIB, 179 * KIB))
    assert (result.shared_bytes_per_block, result.blocks_per_sm, result.limiters) == (228 * KIB, 1, ("shared_memory",))


# --- block sizes that are not a multiple of 32 --------------------------------------------------

@pytest.mark.parametrize("threads, warps, expected_blocks", [(1, 1, 32), (33, 2, 32), (100, 4, 16), (1000, 32, 2)])
def test_a_partial_warp_takes_a_whole_warp(threads, warps, expected_blocks):
    result = calculate(KernelLaunch(threads, 16))
    assert (result.warps_per_block, result.blocks_per_sm) == (warps, expected_blocks)
    assert result.active_warps_per_sm == warps * expected_blocks


def test_partial_warps_are_allocated_whole_registers():
    # 100 threads = 4 warps: 4 x 2048 registers at 64 registers per thread.
    assert calculate(KernelLaunch(100, 64)).registers_per_block == 4 * 2048
    assert blocks(100, 64) == 8


# --- refused inputs ---------------------------------------------------------------------------

@pytest.mark.parametrize("launch, message", [
    (KernelLaunch(0, 32), r"^threads per block: 0 requested, at least 1 is needed$"),
    (KernelLaunch(1025, 32), r"^threads per block: 1025 requested, compute capability 9\.0 allows at most 1024$"),
    (KernelLaunch(256, 256), r"^registers per thread: 256 requested, compute capability 9\.0 allows 0 to 255$"),
    (KernelLaunch(256, -1), r"^registers per thread: -1 requested"),
    (KernelLaunch(256, 32, -1), r"^static shared memory per block: -1 bytes requested, cannot be negative$"),
    (KernelLaunch(256, 32, 0, -1), r"^dynamic shared memory per block: -1 bytes requested, cannot be negative$"),
    (KernelLaunch(256, 32, 49153), r"^static shared memory per block: 49153 bytes \(48\.0 KiB\) requested, at most 49152"),
    (KernelLaunch(256, 32, 1024, 231425),
     r"^shared memory per block: 232449 bytes \(227\.0 KiB\) requested \(static \+ dynamic\), compute capability "
     r"9\.0 allows at most 232448 bytes \(227\.0 KiB\) \(opt-in\)$"),
    (KernelLaunch(256, 32, 1024, 0, max_dynamic_shared_bytes=231425),
     r"^max dynamic shared memory attribute: 231425 bytes requested, compute capability 9\.0 allows 0 to 231424"),
    (KernelLaunch(256, 32, carveout_percent=101), r"^shared memory carve-out: 101 % requested"),
])
def test_impossible_inputs_raise_one_line_naming_the_limit(launch, message):
    with pytest.raises(LaunchConfigError, match=message) as caught:
        calculate(launch)
    assert isinstance(caught.value, ValueError) and "\n" not in str(caught.value)


def test_the_limits_themselves_are_accepted():
    assert blocks(1024, 16) == 2
    assert blocks(32, 255) == 8
    assert blocks(32, 16, static=48 * KIB, dynamic=179 * KIB) == 1


def test_volta_allows_96_kib_per_block():
    assert blocks(32, 16, dynamic=96 * KIB, arch=SM70) == 1
    with pytest.raises(LaunchConfigError, match="compute capability 7.0 allows at most 98304 bytes"):
        blocks(32, 16, dynamic=96 * KIB + 1, arch=SM70)


# --- the spreadsheet's charts -----------------------------------------------------------------

def test_block_size_chart_covers_every_whole_warp_and_marks_the_current_point():
    launch = KernelLaunch(100, 64)
    chart = occ.block_size_chart(launch)
    assert [x for x, _ in chart.points] == list(range(32, 1025, 32))
    assert chart.current == (100, calculate(launch).occupancy)
    assert dict(chart.points)[1024] == 0.5 and dict(chart.points)[32] == 0.5


def test_registers_chart_steps_every_8_registers_and_ends_at_255():
    launch = KernelLaunch(256, 37)
    chart = occ.registers_chart(launch)
    xs = [x for x, _ in chart.points]
    assert xs[:3] == [8, 16, 24] and xs[-2:] == [248, 255] and len(xs) == 32
    for x, y in chart.points:  # within a step of 8 registers, occupancy does not change
        assert calculate(dataclasses.replace(launch, registers_per_thread=x - (x - 1) % 8)).occupancy == y
    assert chart.current == (37, 0.75)


def test_shared_memory_chart_spans_zero_to_the_opt_in_limit_every_kib():
    launch = KernelLaunch(128, 16, 4096, 10_000, max_dynamic_shared_bytes=20_000)
    chart = occ.shared_memory_chart(launch)
    assert chart.points[0] == (0, 1.0) and chart.points[-1] == (227 * KIB, 4 / 64)
    assert len(chart.points) == 228
    assert chart.current == (14_096, calculate(launch).occupancy)


# --- waves -------------------------------------------------------------------------------------

def test_waves_and_tail_efficiency():
    assert occ.waves(264, 132, 1) == 2.0 and occ.tail_efficiency(264, 132, 1) == 1.0
    assert occ.waves(133, 132, 1) == pytest.approx(133 / 132)
    assert occ.tail_efficiency(133, 132, 1) == pytest.approx(133 / 264)
    assert occ.tail_efficiency(132 * 8 * 3 + 1, 132, 8) == pytest.approx((3 * 1056 + 1) / (4 * 1056))
    assert occ.tail_efficiency(0, 132, 8) == 0.0


@pytest.mark.parametrize("args", [(-1, 132, 1), (10, 0, 1), (10, 132, 0)])
def test_waves_refuse_impossible_arguments(args):
    with pytest.raises(ValueError, match="^waves need"):
        occ.waves(*args)


# --- residency set by dynamic shared memory -------------------------------------------------------
@pytest.mark.parametrize("threads, registers, arch", [
    (32, 48, SM90), (64, 30, SM90), (128, 25, SM90), (256, 80, SM90), (1024, 32, SM90), (128, 40, ARCHITECTURES[(8, 6)]),
    (96, 64, SM70),
])
def test_dynamic_shared_memory_sets_every_residency_the_kernel_allows(threads, registers, arch):
    most = calculate(KernelLaunch(threads, registers), arch).blocks_per_sm
    for wanted in range(1, most + 1):
        dynamic = occ.dynamic_shared_for_blocks(wanted, KernelLaunch(threads, registers), arch)
        assert blocks(threads, registers, 0, dynamic, arch) == wanted
        if dynamic:  # the least such size: one allocation unit less holds one more block
            fewer = dynamic - arch.shared_allocation_unit_bytes
            assert blocks(threads, registers, 0, fewer, arch) > wanted
        else:
            assert wanted == most


def test_static_shared_memory_counts_toward_the_cap():
    launch = KernelLaunch(128, 32, static_shared_bytes=10_000)
    dynamic = occ.dynamic_shared_for_blocks(4, launch)
    assert calculate(dataclasses.replace(launch, dynamic_shared_bytes=dynamic)).blocks_per_sm == 4
    assert dynamic == occ.dynamic_shared_for_blocks(4, KernelLaunch(128, 32)) - 10_000


def test_one_block_per_sm_takes_more_than_half_the_shared_memory():
    dynamic = occ.dynamic_shared_for_blocks(1, KernelLaunch(128, 32))
    assert 2 * (dynamic + SM90.reserved_shared_bytes_per_block) > SM90.shared_bytes_per_sm
    assert dynamic + SM90.reserved_shared_bytes_per_block <= SM90.max_shared_bytes_per_block_optin + KIB


@pytest.mark.parametrize("wanted", [0, 9])
def test_residency_shared_memory_cannot_give_is_refused(wanted):
    # 256 threads x 64 registers: the registers already stop at 4 blocks
    with pytest.raises(LaunchConfigError, match=f"{wanted} resident blocks per SM requested: .* allow 1 to 4"):
        occ.dynamic_shared_for_blocks(wanted, KernelLaunch(256, 64))
