"""labkit.kernels.gemm_numba_mma without a GPU: the CUDA C source it links is there, shipped, and
defines the foreign function with the parameters Python declares; the tile arithmetic the kernel
relies on holds; the launch shape and the walk over the tiles cover C; the simulator refuses in one
line. Whether the kernel computes the product is the GPU check's (tests/gpu/numba_mma_check.py)."""

from __future__ import annotations

import fnmatch
import sys

import numpy as np
import pytest

from labkit.errors import LabkitError
from labkit.gpu.backend import NoGPUError
from labkit.kernels import gemm_numba_mma as g

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def test_the_source_is_shipped_as_package_data():
    assert g.SOURCE.is_file()
    root = g.SOURCE.parents[2]
    patterns = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["labkit"]
    relative = g.SOURCE.relative_to(root / "labkit").as_posix()
    assert any(fnmatch.fnmatch(relative, p) for p in patterns), (relative, patterns)


def test_the_source_defines_the_function_python_declares():
    """Numba's ABI: an int status and a void* return slot, then PARAMETERS' C types in order."""
    types = g.c_prototype_types(g.SOURCE.read_text())
    assert types == ["void*"] + [c_type for _, _, c_type in g.PARAMETERS]
    # each Numba type corresponds to its C type
    corresponding = {"float32*": "float*", "uint32*": "const unsigned*", "int32": "int"}
    assert all(corresponding[numba_type] == c_type for _, numba_type, c_type in g.PARAMETERS)


def test_a_prototype_that_differs_is_seen():
    text = g.SOURCE.read_text().replace("int lane, int warp_m", "int lane, float warp_m")
    assert g.c_prototype_types(text) != ["void*"] + [c for _, _, c in g.PARAMETERS]
    with pytest.raises(ValueError, match=g.FOREIGN_FUNCTION):
        g.c_prototype_types(text.replace(g.FOREIGN_FUNCTION, "renamed"))


def test_the_sizes_are_read_from_the_source():
    assert g.source_defines("#define NUMBA_MMA_BK 64\n#define OTHER 3\n") == {"NUMBA_MMA_BK": 64}
    assert (g.BM, g.BN, g.BK, g.WARP_M, g.WARP_N) == (128, 128, 32, 64, 32)
    assert g.THREADS == 256 and g.ACCUMULATORS == 64


def test_the_tile_arithmetic_the_kernel_relies_on():
    # the kernel copies exactly two 16-byte chunks of A and two of B per thread and slice
    assert g.A_CHUNKS == 2 and g.B_CHUNKS == 2
    assert g.A_CHUNKS * g.THREADS * 8 == g.BM * g.BK and g.B_CHUNKS * g.THREADS * 8 == g.BK * g.BN
    # 16-byte stores need rows of whole 16-byte units; ldmatrix's eight rows of a phase then start in
    # eight different groups of four banks (row strides of an odd number of 16-byte units)
    assert g.A_ROW_WORDS % 4 == 0 and (g.A_ROW_WORDS // 4) % 2 == 1
    assert g.B_ROW_WORDS % 4 == 0 and (g.B_ROW_WORDS // 4) % 2 == 1
    assert g.SHARED_BYTES == 2 * (128 * 40 + 32 * 136) * 2 <= 48 * 1024   # static shared memory limit
    assert g.MIN_BLOCKS * g.THREADS * 128 <= 65536   # 128 registers per thread at 2 blocks per SM


def test_launch_shape_and_refusals():
    assert g.launch_shape(4096, 4096, 4096) == ((1024,), (256,))
    assert g.launch_shape(1152, 1280, 352) == ((90,), (256,))
    for bad in ((4096, 4096, 4080), (100, 128, 32), (128, 192, 32), (0, 128, 32)):
        with pytest.raises(ValueError, match="multiples of 128"):
            g.launch_shape(*bad)


@pytest.mark.parametrize("tiles_m, tiles_n", [(9, 10), (8, 8), (1, 3), (32, 32)])
def test_the_blocks_cover_every_tile_once(tiles_m, tiles_n):
    seen = [g.block_tile(block, tiles_m, tiles_n) for block in range(tiles_m * tiles_n)]
    assert sorted(seen) == [(i, j) for i in range(tiles_m) for j in range(tiles_n)]
    # consecutive blocks stay in one group of GROUP_M tile rows
    assert {i // g.GROUP_M for i, _ in seen[:min(g.GROUP_M, tiles_m) * tiles_n]} == {0}


def test_words_views_fp16_pairs():
    x = np.arange(12, dtype=np.float16).reshape(3, 4)
    w = g.words(x)
    assert w.shape == (3, 2) and w.dtype == np.uint32 and np.shares_memory(w, x)
    for bad in (np.zeros((3, 3), np.float16), np.zeros((3, 4), np.float32), np.zeros((4, 3), np.float16).T):
        with pytest.raises(ValueError, match="FP16"):
            g.words(bad)


def test_the_simulator_refuses_in_one_line():
    g.compiled.cache_clear()
    with pytest.raises(NoGPUError) as raised:
        g.compiled()
    assert isinstance(raised.value, LabkitError)
    assert str(raised.value) == g.SIMULATOR_REFUSAL and "\n" not in g.SIMULATOR_REFUSAL
    with pytest.raises(NoGPUError):
        g.launch(np.zeros((128, 32), np.float16), np.zeros((32, 128), np.float16), np.zeros((128, 128), np.float16))
