"""The access analyzer's rules, each checked where its count must be high and where it must be low.

Expected counts are derived by hand in the comments (addresses in bytes, banks = (a // 4) % 32).
"""

import math

import pytest

from labkit.models.access import (NCU_METRICS, WarpAccess, analyze, broadcast, pairs_share_addresses, shared_phases,
    strided, tile_column, total)


def shared(addresses, width, op="load"):
    return analyze(WarpAccess(addresses, width, op, "shared"))


def glob(addresses, width, op="load"):
    return analyze(WarpAccess(addresses, width, op, "global"))


def lanes(function):
    return tuple(function(lane) for lane in range(32))


# Global memory: one request per instruction, distinct 32-byte sectors, distinct 128-byte lines.

@pytest.mark.parametrize("width, sectors, lines", [(1, 1, 1), (2, 2, 1), (4, 4, 1), (8, 8, 2), (16, 16, 4)])
@pytest.mark.parametrize("op", ["load", "store"])
def test_coalesced_warp_touches_width_times_32_bytes(width, sectors, lines, op):
    # 32 lanes x width bytes, contiguous from 0: 32 * width / 32 sectors, / 128 lines.
    counts = glob(strided(1, width), width, op)
    assert (counts.requests, counts.sectors, counts.lines) == (1, sectors, lines)
    assert counts.unique_bytes == 32 * width


def test_misaligned_start_costs_one_more_sector_and_line():
    # 4 + [0, 128) spans bytes 4..131: sectors 0..4 (5), lines 0..1 (2).
    counts = glob(strided(1, 4, offset_bytes=4), 4)
    assert (counts.sectors, counts.lines) == (5, 2)
    # 64 + [0, 128): sectors 2..5 (4, still aligned to 32) but lines 0 and 1.
    counts = glob(strided(1, 4, offset_bytes=64), 4)
    assert (counts.sectors, counts.lines) == (4, 2)


@pytest.mark.parametrize("stride, sectors, lines", [
    (2, 8, 2),     # 8 bytes apart: 256 bytes, 8 sectors, 2 lines
    (3, 12, 3),    # 12 bytes apart: 0..375, every sector 0..11 hit (12i // 32 steps by < 1), lines 0..2
    (8, 32, 8),    # 32 bytes apart: one sector per lane, 4 lanes per line
    (32, 32, 32),  # 128 bytes apart: one line per lane
    (33, 32, 32),  # 132 bytes apart: 132i // 128 grows by >= 1 each lane
])
def test_strided_warp_spreads_over_more_sectors(stride, sectors, lines):
    counts = glob(strided(stride, 4), 4)
    assert (counts.requests, counts.sectors, counts.lines) == (1, sectors, lines)
    assert counts.unique_bytes == 128


def test_sectors_grow_with_stride_until_one_per_lane():
    # 4-byte lanes at stride s elements: ceil(31 * 4s / 32) + 1 sectors while 4s < 32, then 32.
    for stride in range(1, 41):
        expected = min(32, (31 * 4 * stride) // 32 + 1)
        assert glob(strided(stride, 4), 4).sectors == expected, stride


def test_global_broadcast_is_one_sector():
    counts = glob(broadcast(96), 4)
    assert (counts.requests, counts.sectors, counts.lines, counts.unique_bytes) == (1, 1, 1, 4)


def test_random_addresses_within_two_lines():
    # Lanes spread over sectors 0, 1, 5 (line 0, 1) only.
    addresses = lanes(lambda lane: [0, 36, 160, 164][lane % 4])
    assert (glob(addresses, 4).sectors, glob(addresses, 4).lines) == (3, 2)


def test_inactive_lanes_do_not_count():
    counts = glob(strided(1, 4, active_lanes=16), 4)
    assert (counts.active_lanes, counts.requests, counts.sectors) == (16, 1, 2)
    empty = glob((None,) * 32, 4)
    assert (empty.requests, empty.sectors, empty.lines) == (0, 0, 0)


# Shared memory, 4 bytes and less: one phase of 32 lanes, wavefronts = most distinct words per bank.

def test_4_byte_stride_conflict_degree_is_gcd_with_32():
    # Lane i reads word s*i: bank s*i mod 32, hit by gcd(s, 32) lanes on distinct words.
    for stride in range(1, 65):
        counts = shared(strided(stride, 4), 4)
        degree = math.gcd(stride, 32)
        assert (counts.wavefronts, counts.bank_conflicts) == (degree, degree - 1), stride


@pytest.mark.parametrize("op", ["load", "store"])
def test_4_byte_transpose_tile_column(op):
    # [32][32] floats: column = stride 32 words, all in one bank: 32-way.
    assert shared(tile_column(0, 32, 4), 4, op).wavefronts == 32
    # [32][33]: stride 33 words, bank i + c: conflict free.
    assert shared(tile_column(0, 33, 4), 4, op).wavefronts == 1
    # XOR swizzle tile[i][c ^ i] in a [32][32] tile: bank c ^ i, distinct: conflict free.
    for column in (0, 5, 31):
        assert shared(tile_column(column, 32, 4, xor_swizzle=True), 4, op).bank_conflicts == 0


@pytest.mark.parametrize("op", ["load", "store"])
def test_one_word_for_many_lanes_costs_nothing_extra(op):
    # Broadcast (load) / one write per word (store).
    assert (shared(broadcast(8), 4, op).wavefronts, shared(broadcast(8), 4, op).bank_conflicts) == (1, 0)
    # Lanes 0-15 on word 0, 16-31 on word 32: same bank, 2 words: 2-way.
    two = lanes(lambda lane: 0 if lane < 16 else 128)
    assert (shared(two, 4, op).wavefronts, shared(two, 4, op).bank_conflicts) == (2, 1)
    # Lanes 0-15 on word 0, 16-31 on word 1: different banks: 1 wavefront.
    assert shared(lanes(lambda lane: 0 if lane < 16 else 4), 4, op).wavefronts == 1


@pytest.mark.parametrize("op", ["load", "store"])
def test_sub_word_lanes_in_one_word_share_it(op):
    # 1-byte lanes 0..31: words 0..7, one each: 1 wavefront; 2-byte: words 0..15: 1.
    assert shared(strided(1, 1), 1, op).wavefronts == 1
    assert shared(strided(1, 2), 2, op).wavefronts == 1
    # 1-byte lanes 128 bytes apart: 32 words of bank 0.
    assert shared(strided(128, 1), 1, op).wavefronts == 32
    # 2-byte lanes 2 apart (4 bytes): words 0..31 -> one per bank.
    assert shared(strided(2, 2), 2, op).wavefronts == 1


def test_lane_wavefronts_follow_first_appearance_per_bank():
    # Stride 2 words: lane i and lane i + 16 share bank 2i mod 32, lane i first.
    counts = shared(strided(2, 4), 4)
    assert counts.lane_wavefronts == (0,) * 16 + (1,) * 16
    assert shared(strided(1, 4, active_lanes=3), 4).lane_wavefronts == (0, 0, 0) + (None,) * 29
    assert glob(strided(1, 4), 4).lane_wavefronts == (None,) * 32


# 8 bytes: half-warps.

@pytest.mark.parametrize("op", ["load", "store"])
def test_8_byte_half_warps(op):
    # Stride 1: each half-warp 16 x 8 = 128 bytes over 32 banks: 1 wavefront each.
    counts = shared(strided(1, 8), 8, op)
    assert (counts.wavefronts, counts.bank_conflicts, counts.ideal_wavefronts) == (2, 0, 2)
    # Stride 2 (16 bytes): in a half, lanes i and i + 8 share banks 4i, 4i+1: 2 per half.
    counts = shared(strided(2, 8), 8, op)
    assert (counts.wavefronts, counts.bank_conflicts) == (4, 2)
    # Stride 32 doubles (a [32][32] double tile's column): 16 distinct words per bank per half.
    # ncu on an 8-byte transpose: 32 wavefronts per STS.64, 30 of them conflicts (forums /t/217015).
    counts = shared(tile_column(0, 32, 8), 8, op)
    assert (counts.wavefronts, counts.bank_conflicts) == (32, 30)
    # [32][33] doubles: 66 words apart, banks 2i: the 16 lanes of a half cover all 32 banks.
    assert shared(tile_column(0, 33, 8), 8, op).wavefronts == 2


def test_8_byte_lanes_of_different_halves_never_conflict():
    # Lane i and lane i + 16 on the same 8 bytes, 8*(i % 16): each half is 128 distinct bytes.
    addresses = lanes(lambda lane: 8 * (lane % 16))
    assert (shared(addresses, 8).wavefronts, shared(addresses, 8).bank_conflicts) == (2, 0)
    # Lane i at 256 * (i // 16): both halves on banks 0-1, but one address per half.
    assert shared(lanes(lambda lane: 256 * (lane // 16)), 8, "store").wavefronts == 2


# 16 bytes: quarter-warps.

@pytest.mark.parametrize("op", ["load", "store"])
def test_16_byte_quarter_warps(op):
    counts = shared(strided(1, 16), 16, op)
    assert (counts.wavefronts, counts.bank_conflicts, counts.ideal_wavefronts) == (4, 0, 4)
    # 128 bytes apart: the 8 lanes of a quarter all on banks 0-3: 8 per quarter, 32 in all,
    # 28 conflicts: the LDS.128 of forums /t/359822 (32 wavefronts, 28 conflicts per instruction).
    counts = shared(strided(8, 16), 16, op)
    assert (counts.wavefronts, counts.bank_conflicts) == (32, 28)
    # Non-power-of-two stride 3 (48 bytes): quarter lanes at banks 12i mod 32 = 0,12,24,4,16,28,8,20: free.
    assert shared(strided(3, 16), 16, op).wavefronts == 4


def test_16_byte_no_broadcast_across_quarters():
    # forums /t/373160, access pattern 1 (H100): lane i and i + 16 on 32 * (i % 16).
    # Quarter lanes at banks 8i mod 32: lanes i, i + 4 collide: 2 per quarter, 8 in all.
    addresses = lanes(lambda lane: 32 * (lane % 16))
    assert not pairs_share_addresses(addresses)
    assert (shared(addresses, 16).wavefronts, shared(addresses, 16).bank_conflicts) == (8, 4)


def test_16_byte_paired_loads_use_half_warps():
    # forums /t/373160, access pattern 2 (H100, measured 2): lanes 0-15 on 0, 16-31 on 32.
    halves = lanes(lambda lane: 0 if lane < 16 else 32)
    assert pairs_share_addresses(halves)
    assert [len(p) for p in shared_phases(WarpAccess(halves, 16, "load", "shared"))] == [16, 16]
    assert (shared(halves, 16).wavefronts, shared(halves, 16).bank_conflicts) == (2, 0)
    # forums /t/77228 (CC 7.x): lane i on 16 * (i % 4) is not paired: 4 wavefronts ...
    assert shared(lanes(lambda lane: 16 * (lane % 4)), 16).wavefronts == 4
    # ... pairing n and n ^ 1 instead brings it to 2.
    assert shared(lanes(lambda lane: 16 * ((lane // 2) % 8)), 16).wavefronts == 2
    # Pairs n and n ^ 2 (lanes 0, 2 on 0; 1, 3 on 16; 4, 6 on 32...): half-warps too.
    assert shared(lanes(lambda lane: 16 * (2 * (lane // 4) + lane % 2)), 16).wavefronts == 2
    # A whole-warp broadcast is paired: 2 wavefronts, the floor for 16 bytes.
    assert shared(broadcast(0), 16).wavefronts == 2


def test_stores_are_not_paired():
    halves = lanes(lambda lane: 0 if lane < 16 else 32)
    assert shared(halves, 16, "store").wavefronts == 4
    assert shared(broadcast(0), 16, "store").wavefronts == 4
    assert shared(broadcast(0), 8, "store").wavefronts == 2


def test_8_byte_paired_load_is_one_phase():
    # Documented for CC 7.x; to be confirmed on the H200 by the probe.
    assert shared(broadcast(0), 8).wavefronts == 1
    assert shared(lanes(lambda lane: 8 * (lane // 2)), 8).wavefronts == 1
    # Paired but conflicting: pairs at 128 * (lane // 2): 16 distinct words per bank.
    counts = shared(lanes(lambda lane: 128 * (lane // 2)), 8)
    assert (counts.wavefronts, counts.bank_conflicts) == (16, 15)


def test_pairing_is_per_lane_pair_not_per_bank():
    # Lanes n, n ^ 1 equal except one pair: no pairing, quarter-warps again.
    addresses = list(lanes(lambda lane: 16 * (lane // 2)))
    addresses[31] = 512
    assert not pairs_share_addresses(addresses)
    assert shared(addresses, 16).wavefronts == 4


def test_inactive_lanes_take_no_part_in_shared_phases():
    # 16 bytes, only the first quarter active: 1 wavefront, and it is the ideal.
    counts = shared(strided(1, 16, active_lanes=8), 16, "store")
    assert (counts.wavefronts, counts.ideal_wavefronts, counts.bank_conflicts) == (1, 1, 0)
    # 4 bytes, 8 active lanes 128 bytes apart: 8-way.
    counts = shared(strided(32, 4, active_lanes=8), 4)
    assert (counts.wavefronts, counts.bank_conflicts) == (8, 7)
    # An inactive partner counts as paired: even lanes of the first half only.
    # Loads: half-warp phases, lanes 0..14 at 0..112: 1 wavefront per half with active lanes.
    evens = lanes(lambda lane: 8 * lane if lane % 2 == 0 and lane < 16 else None)
    assert shared(evens, 16).wavefronts == 1
    assert shared(evens, 16, "store").wavefronts == 2
    empty = shared((None,) * 32, 16)
    assert (empty.wavefronts, empty.bank_conflicts, empty.ideal_wavefronts) == (0, 0, 0)


# A kernel: sums per space and direction, and the DRAM floor.

def naive_transpose_warps(n=64):
    """Warp (row y) of a naive n x n float32 transpose: reads row y coalesced, writes column y."""
    for y in range(8):
        yield WarpAccess(strided(1, 4, offset_bytes=4 * n * y), 4, "load", "global")
        yield WarpAccess(strided(n, 4, offset_bytes=(1 << 20) + 4 * y), 4, "store", "global")


def test_totals_per_space_and_direction():
    counts = total(naive_transpose_warps())
    load, store = counts.of("global", "load"), counts.of("global", "store")
    # Loads: 8 requests x 4 sectors; stores: 8 requests x 32 sectors (one per lane, 256 bytes apart).
    assert (load.instructions, load.requests, load.sectors, load.sectors_per_request) == (8, 8, 32, 4.0)
    assert (store.requests, store.sectors, store.sectors_per_request) == (8, 256, 32.0)
    # The first 128 bytes of rows 0..7: 32 distinct sectors read, 1 KiB.
    assert counts.dram_read_bytes == 32 * 32
    # Columns 0..7, 4 bytes each, in the same sector of each of the 32 rows: 32 sectors written.
    assert counts.dram_write_bytes == 32 * 32
    assert counts.of("shared", "load").wavefronts == 0


def test_dram_floor_counts_each_sector_once():
    warp = WarpAccess(strided(1, 4), 4, "load", "global")
    counts = total([warp, warp, warp])
    assert counts.of("global", "load").sectors == 12
    assert counts.dram_read_bytes == 128


def test_ncu_metrics_name_every_prediction():
    tile = total([
        WarpAccess(strided(1, 4), 4, "store", "shared"),
        WarpAccess(tile_column(0, 32, 4), 4, "load", "shared"),
        WarpAccess(strided(1, 4), 4, "load", "global"),
    ])
    metrics = tile.ncu_metrics()
    assert set(metrics) == set(NCU_METRICS) | {"dram__bytes_read.sum"}
    assert metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 32
    assert metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 31
    assert metrics["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"] == 1
    assert metrics["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 4
    assert metrics["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 0
    assert metrics["dram__bytes_read.sum"] == 128
    assert tile.of("shared", "load").wavefronts_per_instruction == 32


def test_shared_accesses_do_not_reach_dram():
    assert total([WarpAccess(strided(1, 4), 4, "load", "shared")]).dram_read_bytes == 0


# Input errors: one clear line each.

@pytest.mark.parametrize("make, message", [
    (lambda: WarpAccess((0,) * 31, 4), "needs 32 lane addresses, got 31"),
    (lambda: WarpAccess("0" * 32, 4), "got a string"),
    (lambda: WarpAccess(strided(1, 4), 3), "width_bytes must be one of 1, 2, 4, 8, 16, got 3"),
    (lambda: WarpAccess(strided(1, 4), True), "width_bytes must be one of"),
    (lambda: WarpAccess(strided(1, 4, offset_bytes=2), 4), "lane 0 address 2 is not aligned to its 4-byte width"),
    (lambda: WarpAccess(strided(1, 16, offset_bytes=8), 16), "lane 0 address 8 is not aligned to its 16-byte width"),
    (lambda: WarpAccess((-4,) + (0,) * 31, 4), "lane 0 address -4 is negative"),
    (lambda: WarpAccess((1.0,) * 32, 1), "lane 0 address must be an integer or None, got 1.0"),
    (lambda: WarpAccess(strided(1, 4), 4, "read"), "op must be 'load' or 'store', got 'read'"),
    (lambda: WarpAccess(strided(1, 4), 4, "load", "local"), "space must be 'global' or 'shared', got 'local'"),
    (lambda: strided(-1, 4), "stride_elements and offset_bytes must be >= 0"),
    (lambda: strided(1, 4, active_lanes=33), "active_lanes must be 0..32, got 33"),
])
def test_bad_input_is_refused_in_one_line(make, message):
    with pytest.raises(ValueError, match=message) as error:
        make()
    assert "\n" not in str(error.value)


def test_inputs_are_normalised():
    import numpy as np

    access = WarpAccess([np.int64(4 * lane) for lane in range(32)], 4, "store", "shared")
    assert access.addresses == strided(1, 4) and type(access.addresses[0]) is int
    assert access.op.value == "store" and access.space.value == "shared"
    assert access.active_lanes == tuple(range(32))
