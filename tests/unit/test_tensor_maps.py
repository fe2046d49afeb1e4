"""The host side of chapter 6's TMA kernels without a GPU: the tensor maps' arguments, the order in
which a persistent grid walks the tiles, and the launch arithmetic of labkit.kernels.gemm_cuda."""

from __future__ import annotations

import pytest

from labkit.kernels import gemm_cuda, tensor_maps


def test_the_operand_maps_are_k_major_boxes_of_128_bytes():
    a, b = tensor_maps.operand_maps(4096, 8192, 2048, 128, 256, 64)
    # innermost first: K, then the rows; one stride, a row of K two-byte elements
    assert (a.global_dims, a.global_strides_bytes, a.box_dims) == ((2048, 4096), (4096,), (64, 128))
    assert (b.global_dims, b.global_strides_bytes, b.box_dims) == ((2048, 8192), (4096,), (64, 256))
    # what the producer's expect_tx counts for one stage: the two boxes
    assert a.box_bytes + b.box_bytes == (128 + 256) * 128


@pytest.mark.parametrize(("args", "rule"), [
    ((4096, 4096, 128, 128), "at most 128"),          # 256 bytes along K: wider than the swizzle
    ((4096, 4096, 128, 4), "multiple of 16 bytes"),   # an 8-byte inner box
    ((4096, 4096, 512, 64), "1 to 256"),              # a box of 512 rows
    ((4096, 4100, 128, 64), "row stride"),            # rows of 8200 bytes
    ((4000, 4096, 128, 64), "whole number"),          # no partial tiles
    ((0, 4096, 128, 64), "non-empty"),
])
def test_a_map_the_driver_would_refuse_is_refused_first_with_its_rule(args, rule):
    with pytest.raises(ValueError, match=rule):
        tensor_maps.tensor_map(*args)


@pytest.mark.parametrize(("tiles_m", "tiles_n", "group"), [(32, 16, 8), (12, 5, 8), (3, 7, 8), (64, 32, 16), (1, 1, 8)])
def test_the_tile_order_covers_every_tile_once_in_groups_of_rows(tiles_m, tiles_n, group):
    order = tensor_maps.tile_order(tiles_m, tiles_n, group)
    assert sorted(order) == [(i, j) for i in range(tiles_m) for j in range(tiles_n)]
    # inside a group, consecutive work items walk down a column of at most `group` rows
    per_group = group * tiles_n
    for t, (row, col) in enumerate(order):
        assert (t // per_group) * group <= row < (t // per_group + 1) * group
        rows = min(tiles_m - (t // per_group) * group, group)
        assert col == (t % per_group) // rows


def test_the_first_wave_of_a_persistent_grid_reads_fewer_panels_than_row_major_order():
    # 8192^3 in 128 x 256 tiles: 64 x 32 tiles. The 132 CTAs' first tiles, grouped by 8 rows, cover
    # 8 tile rows and 17 tile columns: 8 x 128 rows of A and 17 x 256 rows of Bt, 5 376 rows of K;
    # in row-major order they would cover 5 tile rows and all 32 columns: 640 + 8 192 = 8 832 rows
    def rows_read(tiles):
        return 128 * len({r for r, _ in tiles}) + 256 * len({c for _, c in tiles})

    grouped = tensor_maps.tile_order(64, 32, 8)[:132]
    row_major = [(t // 32, t % 32) for t in range(132)]
    assert (rows_read(grouped), rows_read(row_major)) == (5376, 8832)


def test_a_persistent_grid_is_one_cta_per_sm_in_whole_clusters():
    assert tensor_maps.persistent_grid(512, 132) == 132
    assert tensor_maps.persistent_grid(100, 132) == 100
    assert tensor_maps.persistent_grid(512, 132, cluster=2) == 132
    assert tensor_maps.persistent_grid(512, 131, cluster=2) == 130
    assert tensor_maps.tiles_per_cta(512, 132) == (3, 4)   # 3.88 waves: a tail
    with pytest.raises(ValueError, match="whole clusters"):
        tensor_maps.persistent_grid(511, 132, cluster=2)


def test_the_tma_kernels_launch_arithmetic():
    spec = gemm_cuda.KERNELS["hgemm_tma_ws_128x256_persistent"]
    assert spec.threads == 384 and spec.precision == "fp16" and spec.name in gemm_cuda.TAKES_B_TRANSPOSED
    # 4 stages of (128 + 256) rows of 128 bytes, 1 KiB to align them, within the 227 KiB a block may opt in to
    assert spec.dynamic_shared_bytes == 4 * 384 * 128 + 1024 and spec.shared_bytes <= 227 * 1024
    assert spec.grid(4096, 4096, 4096, sm_count=132) == (132,)
    assert gemm_cuda.KERNELS["hgemm_tma_ws_128x256"].grid(4096, 4096, 4096) == (512,)
    with pytest.raises(ValueError, match="SM count"):
        spec.grid(4096, 4096, 4096)
    cluster = gemm_cuda.KERNELS["bgemm_tma_ws_256x128_cluster"]
    assert (cluster.cluster_m, cluster.precision) == (2, "bf16")
    # pairs of CTAs on consecutive tile rows: M a multiple of two tiles
    with pytest.raises(ValueError, match="M a multiple of 512"):
        cluster.grid(256 * 3, 4096, 4096, sm_count=132)


def test_every_tma_kernel_has_its_entry_point_in_the_source():
    names = [n for n, k in gemm_cuda.KERNELS.items() if k.module == "tma"]
    assert len(names) == 16
    for name in names:
        assert f"TMA_ENTRY({name}," in gemm_cuda.TMA_SOURCE
