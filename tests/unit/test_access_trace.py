"""Accesses recorded from kernels run in the simulator, grouped into warp instructions and counted.

Each kernel's totals are derived by hand in the comments (64 x 64 matrices, 32 x 8 blocks of
8 warps: 2 x 2 blocks, 32 warps; each thread moves 4 elements, so 4 instructions per warp and
access: 128 instructions per access of the kernel).
"""

import numpy as np
import pytest

from labkit.gpu.backend import select_backend

if select_backend() != "simulator":
    pytest.skip("the access trace runs kernels in Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1)",
                allow_module_level=True)

from numba import cuda, float32, float64  # noqa: E402

from labkit.models.access import Op, Space  # noqa: E402
from labkit.simulator.trace import trace_launch  # noqa: E402

N = 64
TILE = 32
ROWS = 8


@cuda.jit
def copy(source, target):
    i = cuda.grid(1)
    if i < target.size:
        target[i] = source[i]


@cuda.jit
def copy_strided(source, target, stride):
    i = cuda.grid(1)
    if i < target.size:
        target[i] = source[i * stride]


@cuda.jit
def transpose_naive(source, target):
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y0 = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    for k in range(0, TILE, ROWS):
        target[x, y0 + k] = source[y0 + k, x]


def tiled_transpose(pitch, dtype, swizzle=False):
    """A [TILE][pitch] shared tile; with ``swizzle``, row r's column c is stored at column c ^ r."""

    @cuda.jit
    def transpose_tiled(source, target):
        tile = cuda.shared.array(shape=(TILE, pitch), dtype=dtype)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        x = cuda.blockIdx.x * TILE + tx
        y0 = cuda.blockIdx.y * TILE + ty
        for k in range(0, TILE, ROWS):
            row = ty + k
            tile[row, (tx ^ row) if swizzle else tx] = source[y0 + k, x]
        cuda.syncthreads()
        x = cuda.blockIdx.y * TILE + tx
        y0 = cuda.blockIdx.x * TILE + ty
        for k in range(0, TILE, ROWS):
            column = ty + k
            target[y0 + k, x] = tile[tx, (column ^ tx) if swizzle else column]

    return transpose_tiled


def run_transpose(kernel, dtype=np.float32):
    source = np.arange(N * N, dtype=dtype).reshape(N, N)
    target = np.zeros_like(source)
    trace = trace_launch(kernel, (N // TILE, N // TILE), (TILE, ROWS), source, target)
    np.testing.assert_array_equal(target, source.T)  # the traced run still computes the transpose
    return trace


def test_coalesced_copy():
    source = np.arange(256, dtype=np.float32)
    target = np.zeros_like(source)
    trace = trace_launch(copy, 2, 128, source, target)
    np.testing.assert_array_equal(target, source)
    counts = trace.counts()
    # 8 warps x 128 contiguous bytes: 1 request, 4 sectors each way; 1 KiB read once.
    load, store = counts.of("global", "load"), counts.of("global", "store")
    assert (load.requests, load.sectors, store.requests, store.sectors) == (8, 32, 8, 32)
    assert counts.dram_read_bytes == 1024
    assert [i.array for i in trace.instructions[:2]] == ["source", "target"]
    assert trace.instructions[0].function == "copy" and trace.instructions[0].access.op is Op.LOAD


@pytest.mark.parametrize("dtype, stride, sectors_per_request", [
    (np.float32, 1, 4), (np.float32, 2, 8), (np.float32, 3, 12), (np.float32, 8, 32),
    (np.float64, 1, 8), (np.float64, 2, 16), (np.float64, 5, 32),
])
def test_strided_copy(dtype, stride, sectors_per_request):
    # Lane i reads element i * stride: span 32 * stride * size bytes, capped at one sector a lane
    # (float32 stride 3: 12-byte steps hit sectors 0..11, as in the analyzer's tests).
    source = np.arange(64 * stride, dtype=dtype)
    target = np.zeros(64, dtype=dtype)
    counts = trace_launch(copy_strided, 2, 32, source, target, stride).counts()
    np.testing.assert_array_equal(target, source[::stride])
    assert counts.of("global", "load").sectors_per_request == sectors_per_request
    assert counts.of("global", "store").sectors_per_request == np.dtype(dtype).itemsize  # 32 x size / 32


def test_naive_transpose():
    counts = run_transpose(transpose_naive).counts()
    load, store = counts.of("global", "load"), counts.of("global", "store")
    # Reads along rows: 128 requests x 4 sectors. Writes down columns, 256 bytes apart: 32 each.
    assert (load.requests, load.sectors, store.requests, store.sectors) == (128, 512, 128, 4096)
    assert (load.sectors_per_request, store.sectors_per_request) == (4, 32)
    # Every element read once: 16 KiB; the writes cover the target once: 16 KiB.
    assert (counts.dram_read_bytes, counts.dram_write_bytes) == (N * N * 4, N * N * 4)
    assert counts.of("shared", "load").wavefronts == 0


@pytest.mark.parametrize("pitch, load_wavefronts, load_conflicts", [
    (32, 128 * 32, 128 * 31),  # column of a [32][32] tile: one bank, 32-way
    (33, 128, 0),              # [32][33]: stride 33 words, 32 banks
])
def test_tiled_transpose_float32(pitch, load_wavefronts, load_conflicts):
    trace = run_transpose(tiled_transpose(pitch, float32))
    counts = trace.counts()
    shared_load, shared_store = counts.of("shared", "load"), counts.of("shared", "store")
    assert (shared_load.instructions, shared_load.wavefronts, shared_load.bank_conflicts) == (
        128, load_wavefronts, load_conflicts)
    # Rows written: 128 x 1 wavefront, conflict free with or without padding.
    assert (shared_store.instructions, shared_store.wavefronts, shared_store.bank_conflicts) == (128, 128, 0)
    # Both global sides coalesced: 4 sectors per request.
    assert counts.of("global", "load").sectors_per_request == 4
    assert counts.of("global", "store").sectors_per_request == 4
    assert trace.by_array()[("tile", Op.LOAD)].wavefronts == load_wavefronts
    assert {i.access.space for i in trace.instructions if i.array == "tile"} == {Space.SHARED}


def test_swizzled_tile_is_conflict_free_without_padding():
    # Row r's column c at c ^ r: the 32 lanes of a row or of a column hit 32 distinct banks.
    counts = run_transpose(tiled_transpose(32, float32, swizzle=True)).counts()
    assert counts.of("shared", "load").wavefronts == 128
    assert counts.of("shared", "store").wavefronts == 128
    assert counts.of("shared", "load").bank_conflicts == 0


@pytest.mark.parametrize("pitch, load_wavefronts, load_conflicts", [
    (32, 128 * 32, 128 * 30),  # 256 bytes apart: each half-warp's 16 lanes on banks 0-1
    (33, 128 * 2, 0),          # 264 bytes apart: banks 2i, 2i+1 cover the 32 banks per half
])
def test_tiled_transpose_float64(pitch, load_wavefronts, load_conflicts):
    counts = run_transpose(tiled_transpose(pitch, float64), np.float64).counts()
    assert counts.of("shared", "load").wavefronts == load_wavefronts
    assert counts.of("shared", "load").bank_conflicts == load_conflicts
    # A row of 32 doubles, 256 bytes: 2 half-warp wavefronts.
    assert counts.of("shared", "store").wavefronts == 128 * 2
    assert counts.of("global", "load").sectors_per_request == 8


def test_the_labs_own_transpose_kernels():
    from labkit.kernels import transpose

    source = np.arange(N * N, dtype=np.float32).reshape(N, N)
    target = np.zeros_like(source)
    grid, block = transpose.launch_shape(N, N)
    naive = trace_launch(transpose.transpose_naive, grid, block, source, target).counts()
    tiled = trace_launch(transpose.transpose_tiled, grid, block, source, target).counts()
    np.testing.assert_array_equal(target, source.T)
    assert naive.of("global", "store").sectors_per_request == 32
    assert tiled.of("global", "store").sectors_per_request == 4
    assert tiled.of("shared", "load").bank_conflicts == 0  # the lab pads its tile to 33


def test_warps_are_formed_x_first_across_rows():
    # Block (16, 2): warp 0 = rows 0 and 1 of 16 lanes; a 64-float row is 256 bytes,
    # so lanes 0-15 read bytes 0..63 (2 sectors) and lanes 16-31 bytes 256..319 (2 sectors).
    @cuda.jit
    def rows(source, target):
        x, y = cuda.threadIdx.x, cuda.threadIdx.y
        target[y, x] = source[y, x]

    source = np.ones((2, 64), dtype=np.float32)
    trace = trace_launch(rows, 1, (16, 2), source, np.zeros_like(source))
    load = trace.instructions[0].access
    assert load.addresses[15] - load.addresses[0] == 60 and load.addresses[16] - load.addresses[0] == 256
    assert (trace.counts().of("global", "load").sectors, trace.counts().of("global", "load").requests) == (4, 1)


def test_call_sites_and_loop_iterations_are_separate_instructions():
    @cuda.jit(device=True)
    def fetch(array, i):
        return array[i]

    @cuda.jit
    def two_sites(source, target):
        i = cuda.grid(1)
        total = fetch(source, i) + fetch(source, i + 32)
        for k in range(3):
            total += source[i + k]
        target[i] = total

    source = np.arange(64, dtype=np.float32)
    target = np.zeros(32, dtype=np.float32)
    trace = trace_launch(two_sites, 1, 32, source, target)
    # Two call sites of fetch, three iterations of one load, one store: 6 instructions of 32 lanes.
    assert [(i.array, i.access.op.value, i.instance, len(i.access.active_lanes)) for i in trace.instructions] == [
        ("source", "load", 0, 32), ("source", "load", 0, 32),
        ("source", "load", 0, 32), ("source", "load", 1, 32), ("source", "load", 2, 32),
        ("target", "store", 0, 32),
    ]
    assert trace.instructions[0].function == "fetch"
    assert trace.instructions[1].access.addresses[0] - trace.instructions[0].access.addresses[0] == 128
    np.testing.assert_array_equal(target, source[:32] + source[32:] + source[:32] * 3 + 3)


def test_divergent_lanes_are_inactive():
    @cuda.jit
    def evens(source, target):
        i = cuda.grid(1)
        if i % 2 == 0:
            target[i] = source[i]

    trace = trace_launch(evens, 1, 32, np.ones(32, np.float32), np.zeros(32, np.float32))
    load = trace.instructions[0].access
    assert load.active_lanes == tuple(range(0, 32, 2))
    assert trace.counts().of("global", "load").sectors == 4  # even lanes still span 128 bytes


def test_complex128_is_two_8_byte_accesses():
    # Numba compiles a complex128 element into two LDG.E.64 (+0, +8): on the H200,
    # 2 requests per warp and 16 sectors per request (tests/fixtures/h200-probe).
    source = np.arange(64, dtype=np.complex128)
    target = np.zeros_like(source)
    counts = trace_launch(copy, 2, 32, source, target).counts()
    np.testing.assert_array_equal(target, source)
    load = counts.of("global", "load")
    assert (load.requests, load.sectors_per_request) == (4, 16)


def test_atomics_and_host_accesses_are_not_recorded():
    @cuda.jit
    def count(source, counter):
        cuda.atomic.add(counter, 0, source[cuda.grid(1)])

    source = np.ones(32, dtype=np.int32)
    counter = np.zeros(1, dtype=np.int32)
    trace = trace_launch(count, 1, 32, source, counter)
    assert counter[0] == 32
    assert [i.array for i in trace.instructions] == ["source"]


def test_unsupported_uses_are_refused_in_one_line():
    @cuda.jit
    def dynamic(source):
        buffer = cuda.shared.array(0, dtype=float32)
        buffer[0] = source[0]

    with pytest.raises(ValueError, match="dynamic shared memory"):
        trace_launch(dynamic, 1, 32, np.ones(4, np.float32))

    @cuda.jit
    def slice_store(target):
        target[:] = 1

    with pytest.raises(ValueError, match="element accesses only"):
        trace_launch(slice_store, 1, 1, np.zeros(4, np.float32))

    with pytest.raises(ValueError, match="NUMBA_ENABLE_CUDASIM=1") as error:
        trace_launch(copy.py_func, 1, 32, np.ones(4), np.ones(4))
    assert "\n" not in str(error.value)


def test_vector_records_are_one_access_of_their_size():
    from labkit.simulator.trace import vector_dtype

    float4 = vector_dtype("f4", 4)

    @cuda.jit
    def copy4(source, target):
        i = cuda.grid(1)
        v = source[i]
        target[i] = (v["x"], v["y"], v["z"], v["w"])

    source = np.zeros(64, float4)
    counts = trace_launch(copy4, 2, 32, source, np.zeros_like(source)).counts()
    # 32 lanes x 16 contiguous bytes: one request of 16 sectors each way.
    assert counts.of("global", "load").sectors_per_request == 16
    assert counts.of("global", "load").requests == 2


def test_scaling_a_trace_to_its_grid_matches_tracing_the_whole_grid():
    from labkit.simulator.trace import scale_to_grid

    source = np.arange(8 * 128 * 3 + 1, dtype=np.float32)
    whole = trace_launch(copy_strided, 8, 128, source, np.zeros(8 * 128, np.float32), 3)
    part = trace_launch(copy_strided, 2, 128, source, np.zeros(8 * 128, np.float32), 3)
    scaled = scale_to_grid(part, 8)
    assert scaled.counts.of("global", "load") == whole.counts().of("global", "load")
    assert scaled.dram_fetched_bytes == fetched(whole)


def fetched(trace):
    from labkit.models.access import fetched_bytes

    return fetched_bytes(a for i in trace.instructions if i.access.space is Space.GLOBAL
                         and i.access.op is Op.LOAD for a in i.access.addresses if a is not None)


def test_scaling_refuses_blocks_that_do_not_repeat_the_first():
    from labkit.simulator.trace import NotTranslationInvariant, scale_to_grid

    @cuda.jit
    def uneven(source, target):
        i = cuda.grid(1)
        target[i] = source[i * (1 + cuda.blockIdx.x)]

    source = np.zeros(1024, np.float32)
    trace = trace_launch(uneven, 2, 32, source, np.zeros(64, np.float32))
    with pytest.raises(NotTranslationInvariant):
        scale_to_grid(trace, 10)
