"""Lab 05's mystery kernels: each has one planted flaw and a repaired twin; one (``kernel_e``) has
none and runs at the DRAM roof, the negative control. Each kernel has its NumPy reference.

============  ===================================================================  ===========================
kernel        planted flaw                                                          repair
============  ===================================================================  ===========================
``kernel_a``  neighbouring threads walk down a column of a row-major matrix          threads walk along rows
``kernel_b``  Python float literals turn a float32 FMA chain into FP64              float32 constants
``kernel_c``  one launch of 16 blocks per slice of 4,096 elements                   one launch for all slices
``kernel_d``  a transpose through a ``[32][32]`` shared tile: 32-way conflicts       a ``[32][33]`` tile
``kernel_e``  none: a streaming a * x + y with four loads in flight per thread      (negative control)
``kernel_f``  a per-thread histogram in a dynamically indexed local array           a column of shared memory
``kernel_g``  a rarely taken path keeps 64 values live: few warps fit on an SM      ``max_registers=32``
``kernel_h``  even and odd elements take different branches in every warp           a warp per parity
============  ===================================================================  ===========================

The names say nothing of the flaws on purpose: chapter 5 asks the reader to find them from the
profiles. The chapter shows each kernel's source from this file (the ``--8<--`` markers).
"""

from __future__ import annotations

import types

import numpy as np
from numba import float32, int32

from labkit.gpu import cuda
from labkit.kernels.jit import kernel
from labkit.kernels.mysteries_launch import (A, A2, A3, B, B2, B3, IN_FLIGHT, REPAIRED_MAX_REGISTERS, STEPS, THREADS,
                                             parity_reference)

#: kernel_d's tile.
TILE = 32
ROWS = 8
#: kernel_d's twin pads each tile row by one float (a compile-time constant: a shared array's shape
#: must be one).
TILE_PADDED = TILE + 1
#: kernel_f: bins of the per-thread histogram, values per thread.
BINS = 32
BINS_F = np.float32(BINS)
HIST_ITEMS = 64
#: kernel_g: values the rarely taken path keeps live; words of a list node (one per lane).
LIVE = 64
NODE_WORDS = 32


# --8<-- [start:kernel_a]
@kernel
def kernel_a(x, y, a):
    """y = a * x on a rows x cols matrix, one element per thread."""
    t = cuda.grid(1)
    rows, cols = x.shape
    if t < rows * cols:
        r = t % rows
        c = t // rows
        y[r, c] = a * x[r, c]
# --8<-- [end:kernel_a]


@kernel
def kernel_a_repaired(x, y, a):
    t = cuda.grid(1)
    rows, cols = x.shape
    if t < rows * cols:
        r = t // cols
        c = t % cols
        y[r, c] = a * x[r, c]


def scale_reference(x: np.ndarray, a: np.float32) -> np.ndarray:
    return (a * x).astype(np.float32)


# --8<-- [start:kernel_b]
@kernel
def kernel_b(x, y):
    """y = f(x), f applied STEPS times: v <- 0.999 v + 0.001."""
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        for _ in range(STEPS):
            v = v * 0.999 + 0.001
        y[i] = v
# --8<-- [end:kernel_b]


@kernel
def kernel_b_repaired(x, y):
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        for _ in range(STEPS):
            v = v * A + B
        y[i] = v


def chain_reference(x: np.ndarray, dtype) -> np.ndarray:
    """The STEPS steps in ``dtype`` (float64 is what kernel_b computes, float32 its twin)."""
    v = x.astype(dtype)
    a, b = dtype(0.999), dtype(0.001)
    for _ in range(STEPS):
        v = v * a + b
    return v.astype(np.float32)


# --8<-- [start:kernel_c]
@kernel
def kernel_c(x, y, a, b):
    """y = a * x + b on one slice."""
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + b


def run_c(x, y, a, b, slice_elements: int, stream=0) -> None:
    """The whole vector, one launch per slice of slice_elements."""
    for start in range(0, x.size, slice_elements):
        part = slice(start, start + slice_elements)
        kernel_c[(slice_elements + THREADS - 1) // THREADS, THREADS, stream](x[part], y[part], a, b)
# --8<-- [end:kernel_c]


@kernel
def kernel_c_repaired(x, y, a, b):
    i = cuda.grid(1)
    if i < x.size:
        y[i] = a * x[i] + b


def run_c_repaired(x, y, a, b, stream=0) -> None:
    """The whole vector in one launch."""
    kernel_c_repaired[(x.size + THREADS - 1) // THREADS, THREADS, stream](x, y, a, b)


def affine_reference(x: np.ndarray, a: np.float32, b: np.float32) -> np.ndarray:
    return (a * x + b).astype(np.float32)


# --8<-- [start:kernel_d]
@kernel
def kernel_d(source, target):
    """target = source transposed, a 32 x 32 tile per block of 32 x 8 threads (side: a multiple of 32)."""
    tile = cuda.shared.array(shape=(TILE, TILE), dtype=float32)
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y0 = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, ROWS):
        tile[ty + k, tx] = source[y0 + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y0 = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, ROWS):
        target[y0 + k, x] = tile[tx, ty + k]
# --8<-- [end:kernel_d]


@kernel
def kernel_d_repaired(source, target):
    tile = cuda.shared.array(shape=(TILE, TILE_PADDED), dtype=float32)   # a padded row: a column spans 32 banks
    tx, ty = cuda.threadIdx.x, cuda.threadIdx.y
    x = cuda.blockIdx.x * TILE + tx
    y0 = cuda.blockIdx.y * TILE + ty
    for k in range(0, TILE, ROWS):
        tile[ty + k, tx] = source[y0 + k, x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + tx
    y0 = cuda.blockIdx.x * TILE + ty
    for k in range(0, TILE, ROWS):
        target[y0 + k, x] = tile[tx, ty + k]


def transpose_shape(side: int) -> tuple[tuple[int, int], tuple[int, int]]:
    return (side // TILE, side // TILE), (TILE, ROWS)


# --8<-- [start:kernel_e]
@kernel
def kernel_e(x, y, a):
    """y = a * x + y, each thread on IN_FLIGHT elements a block apart, all loads before the stores."""
    base = cuda.blockIdx.x * cuda.blockDim.x * IN_FLIGHT + cuda.threadIdx.x
    step = cuda.blockDim.x
    if base + 3 * step < x.size:
        x0, x1, x2, x3 = x[base], x[base + step], x[base + 2 * step], x[base + 3 * step]
        y0, y1, y2, y3 = y[base], y[base + step], y[base + 2 * step], y[base + 3 * step]
        y[base] = a * x0 + y0
        y[base + step] = a * x1 + y1
        y[base + 2 * step] = a * x2 + y2
        y[base + 3 * step] = a * x3 + y3
    else:
        for k in range(IN_FLIGHT):
            if base + k * step < x.size:
                y[base + k * step] = a * x[base + k * step] + y[base + k * step]
# --8<-- [end:kernel_e]


def e_blocks(n: int) -> int:
    return (n + THREADS * IN_FLIGHT - 1) // (THREADS * IN_FLIGHT)


# --8<-- [start:kernel_f]
@kernel
def kernel_f(x, counts):
    """counts[:, t] = histogram of the HIST_ITEMS values of thread t (values in [0, 1))."""
    t = cuda.grid(1)
    threads = cuda.gridsize(1)
    h = cuda.local.array(BINS, int32)
    for k in range(BINS):
        h[k] = 0
    for k in range(HIST_ITEMS):
        b = min(int32(x[k * threads + t] * BINS_F), BINS - 1)
        h[b] += 1
    for k in range(BINS):
        counts[k, t] = h[k]
# --8<-- [end:kernel_f]


@kernel
def kernel_f_repaired(x, counts):
    t = cuda.grid(1)
    threads = cuda.gridsize(1)
    lane = cuda.threadIdx.x
    h = cuda.shared.array((BINS, THREADS), int32)   # a column per thread: bank = thread % 32, whatever the bin
    for k in range(BINS):
        h[k, lane] = 0
    for k in range(HIST_ITEMS):
        b = min(int32(x[k * threads + t] * BINS_F), BINS - 1)
        h[b, lane] += 1
    for k in range(BINS):
        counts[k, t] = h[k, lane]


def histogram_reference(x: np.ndarray, threads: int) -> np.ndarray:
    values = x[:HIST_ITEMS * threads].reshape(HIST_ITEMS, threads)
    bins = np.minimum((values * BINS_F).astype(np.int32), BINS - 1)
    counts = np.zeros((BINS, threads), dtype=np.int32)
    for k in range(BINS):
        counts[k] = (bins == k).sum(axis=0)
    return counts


# --8<-- [start:kernel_g]
def walk(nodes, starts, out, steps, rare, a):
    """Each warp walks `steps` nodes of a linked list of 32-word nodes from node starts[warp]: lane
    l reads word l of the node, and every word of a node holds the next node's index; out[thread]
    sums what its lane read. When rare > 0, a long update of LIVE values follows."""
    t = cuda.grid(1)
    lane = cuda.threadIdx.x % NODE_WORDS
    node = starts[t // NODE_WORDS]
    total = int32(0)
    for _ in range(steps):
        node = nodes[node, lane]
        total += node
    if rare > 0:
        v = cuda.local.array(LIVE, float32)
        for k in range(LIVE):
            v[k] = float32(total) + float32(k)
        for _ in range(rare):
            for k in range(LIVE):
                v[k] = cuda.fma(v[(k + 1) % LIVE], a, v[k])
        for k in range(LIVE):
            total += int32(v[k])
    out[t] = total
# --8<-- [end:kernel_g]


def _renamed(function, name: str):
    """The same Python function under another name: two compilations of it, told apart by ncu."""
    copy = types.FunctionType(function.__code__, function.__globals__, name, function.__defaults__,
                              function.__closure__)
    copy.__qualname__ = name
    return copy


#: kernel_g is walk with registers as the compiler allocates them, the rare path's LIVE values included.
kernel_g = kernel(_renamed(walk, "kernel_g"))
#: Its twin: the same function with at most REPAIRED_MAX_REGISTERS per thread (the rare path spills; it never runs).
kernel_g_repaired = kernel(_renamed(walk, "kernel_g_repaired"), max_registers=REPAIRED_MAX_REGISTERS)


def list_nodes(records: int, rng: np.random.Generator) -> np.ndarray:
    """A linked list through every node once, in a random order: node order[i] links to order[i+1]
    (the last to the first); each of its NODE_WORDS words holds that index."""
    order = rng.permutation(records).astype(np.int32)
    nxt = np.empty(records, dtype=np.int32)
    nxt[order] = np.roll(order, -1)
    return np.repeat(nxt[:, None], NODE_WORDS, axis=1), order


def walk_starts(order: np.ndarray, warps: int) -> np.ndarray:
    """Warp w starts at position w x (records / warps) of the list, so that walks of up to that many
    steps never meet."""
    spacing = order.size // warps
    return order[np.arange(warps) * spacing].astype(np.int32)


def walk_reference(nodes: np.ndarray, starts: np.ndarray, steps: int) -> np.ndarray:
    node = starts.astype(np.int64)
    total = np.zeros(starts.size, dtype=np.int64)
    for _ in range(steps):
        node = nodes[node, 0].astype(np.int64)
        total += node
    return np.repeat(total.astype(np.int32), NODE_WORDS)


# --8<-- [start:kernel_h]
@kernel
def kernel_h(x, y):
    """Even elements: STEPS steps v <- A v + B; odd ones: STEPS / 2 double steps of two other maps."""
    i = cuda.grid(1)
    if i < x.size:
        v = x[i]
        if i % 2 == 0:
            for _ in range(STEPS):
                v = cuda.fma(v, A, B)
        else:
            for _ in range(STEPS // 2):
                v = cuda.fma(v, A2, B2)
                v = cuda.fma(v, A3, B3)
        y[i] = v
# --8<-- [end:kernel_h]


@kernel
def kernel_h_repaired(x, y):
    """The same maps, each pair of warps taking 64 consecutive elements: the first warp the even ones,
    the second the odd ones, so that every branch is taken by a whole warp."""
    t = cuda.grid(1)
    i = (t // 64) * 64 + 2 * (t % 32) + (t // 32) % 2
    if i < x.size:
        v = x[i]
        if i % 2 == 0:
            for _ in range(STEPS):
                v = cuda.fma(v, A, B)
        else:
            for _ in range(STEPS // 2):
                v = cuda.fma(v, A2, B2)
                v = cuda.fma(v, A3, B3)
        y[i] = v


