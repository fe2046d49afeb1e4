"""Lab 03's launch arithmetic: block shapes of the copy sweep, capped launches, FMA trips, wave grids."""

import pytest

from labkit.labs.lab03 import LAB
from labkit.labs.lab03.program import capped_launch, copy_shape, fma_trips, wave_grid
from labkit.models.occupancy import SM90


@pytest.mark.parametrize("warps, shape", [(1, (32, 1)), (16, (32, 16)), (32, (32, 32)), (48, (64, 24)), (64, (64, 32))])
def test_copy_shapes(warps, shape):
    assert copy_shape(warps) == shape


def test_blocks_grow_where_the_sm_holds_fewer_blocks_and_a_count_above_its_warps_has_no_shape():
    from labkit.models.occupancy import ARCHITECTURES

    assert copy_shape(33) == (96, 11)                             # 33 one-warp blocks: more than 32
    assert copy_shape(20, ARCHITECTURES[(7, 5)]) == (64, 10)      # a T4's SM holds 16 blocks
    assert copy_shape(48, ARCHITECTURES[(8, 6)]) == (96, 16)      # an RTX 3090's: 16 blocks of 3 warps
    with pytest.raises(ValueError, match="compute capability 7.5 holds 1 to 32"):
        copy_shape(48, ARCHITECTURES[(7, 5)])


def test_every_copy_point_of_the_lab_has_a_shape_and_its_launch_holds_its_warps():
    for warps in LAB.gpu_sizes.stream_warps:
        launch = capped_launch(*copy_shape(warps), 30, SM90)
        assert launch.warps_per_sm == warps
        assert launch.calculated(30, SM90).blocks_per_sm == launch.blocks_per_sm


def test_registers_end_a_curve():
    assert capped_launch(*copy_shape(24), 80, SM90) is not None
    assert capped_launch(*copy_shape(32), 80, SM90) is None  # 80 registers: 6 warps per scheduler, 24 per SM


def test_every_thread_does_the_same_fmas_whatever_its_chains():
    sizes = LAB.gpu_sizes
    work = {chains * fma_trips(sizes, chains) for chains in sizes.fma_chains}
    assert work == {sizes.fma_trips * max(sizes.fma_chains)}
    with pytest.raises(ValueError, match="3 chains does not divide 8"):
        fma_trips(sizes, 3)


def test_wave_grids():
    assert wave_grid(4, 0, 264) == 264 and wave_grid(4, 1, 264) == 265 and wave_grid(1, 0, 264) == 66
    assert wave_grid(1, 0, 2) == 1  # never an empty grid
