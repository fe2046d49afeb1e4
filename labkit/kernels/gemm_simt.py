"""Chapter 6's Numba matrix multiplies, C = A @ B on float32 (row-major, square or not), the first
three steps of the case study; each is checked against :func:`gemm_reference`.

1. :func:`gemm_naive`: one thread per element of C; x runs along the columns, so that a warp's
   loads of B are one row segment (coalesced: chapter 2's sectors) and its loads of A are one word
   for all lanes (a broadcast). Every operand comes from global memory (L1 and L2 serve most).
2. :func:`gemm_shared` / :func:`gemm_shared_padded`: 32 x 32 tiles of A and B staged in shared
   memory, so that each element brought from global memory serves 32 multiply-adds. The A tile is
   stored k-major (``sa[k, m]``): the steps after this one read a thread's rows of A at one k as
   consecutive words, 16-byte vectors in step 4. Storing it that way is chapter 2's transpose: the
   32 lanes of a warp write one column, 32 words that are 32 words apart, all in one bank (a
   32-way conflict). ``gemm_shared_padded`` pads each row by one word, which spreads them over the
   32 banks; nothing else differs.
3. :func:`gemm_regtile`: each block computes a 128 x 128 tile of C with 256 threads, each thread
   8 x 8 outputs held in registers (``cuda.local.array`` indexed by unrolled loops), the K dimension
   in slices of 8. Per slice a thread reads 8 words of A and 8 of B from shared memory and does 64
   FMAs: 4 FMAs per shared word where step 2 did 0.5. Its rows are ty + 16 i and its columns
   tx + 16 j, so that a warp's reads of a B row are 16 consecutive words (no conflict) and of an A
   row two words (broadcasts). The A slice is k-major, padded by 4 words (the 32 lanes of a warp
   store 8 values of k for 4 rows: with a stride of 132 words those land in 32 banks).

Steps 3 (its CUDA C twin), 4 and 5 in CUDA C: :mod:`labkit.kernels.gemm_cuda`. Chapter 6 shows
the kernels from this file (the ``--8<--`` markers).
"""

from __future__ import annotations

import numpy as np
from numba import float32

from labkit.gpu import cuda
from labkit.kernels.jit import kernel

#: Naive kernel: threads per block (x along the columns of C, y along its rows).
NAIVE_BLOCK = (32, 8)
#: Shared-memory tiles: side of the square tiles and of the thread block.
TILE = 32
#: The padded A tile's row: a shared array's shape must be a name Numba reads as a constant
#: (``TILE + 1`` written in the call is refused when compiling for a GPU).
TILE_PADDED = TILE + 1
#: Register tiling: C tile per block, K slice, outputs per thread, threads per block.
RT_BM = 128
RT_BN = 128
RT_BK = 8
RT_TM = 8
RT_TN = 8
RT_THREADS = 256
#: Words added to each row of the k-major A slice, and the row it makes.
RT_A_PAD = 4
RT_A_ROW = RT_BM + RT_A_PAD
#: Threads along a block's columns (and rows) in the register-tiled kernel: 128 / 8.
RT_SIDE = RT_BN // RT_TN


# --8<-- [start:gemm_naive]
@kernel
def gemm_naive(a, b, c):
    """c[row, col] = sum over k of a[row, k] * b[k, col], one thread per element of c."""
    col, row = cuda.grid(2)
    if row < c.shape[0] and col < c.shape[1]:
        acc = float32(0.0)
        for k in range(a.shape[1]):
            acc += a[row, k] * b[k, col]
        c[row, col] = acc
# --8<-- [end:gemm_naive]


# --8<-- [start:gemm_shared]
@kernel
def gemm_shared(a, b, c):
    """32 x 32 tiles in shared memory, the A tile stored k-major without padding (32-way store conflict)."""
    sa = cuda.shared.array((TILE, TILE), dtype=float32)  # sa[k, m]
    sb = cuda.shared.array((TILE, TILE), dtype=float32)  # sb[k, n]
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for k0 in range(0, a.shape[1], TILE):
        # lanes tx = 0..31 read one row of A (coalesced) and write one column of sa
        sa[tx, ty] = a[cuda.blockIdx.y * TILE + ty, k0 + tx]
        sb[ty, tx] = b[k0 + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[k, ty] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc
# --8<-- [end:gemm_shared]


@kernel
def gemm_shared_padded(a, b, c):
    """As :func:`gemm_shared`, with the A tile's rows padded by one word: the column store is conflict-free."""
    sa = cuda.shared.array((TILE, TILE_PADDED), dtype=float32)  # sa[k, m], one word of padding per row
    sb = cuda.shared.array((TILE, TILE), dtype=float32)
    tx = cuda.threadIdx.x
    ty = cuda.threadIdx.y
    row = cuda.blockIdx.y * TILE + ty
    col = cuda.blockIdx.x * TILE + tx
    acc = float32(0.0)
    for k0 in range(0, a.shape[1], TILE):
        sa[tx, ty] = a[cuda.blockIdx.y * TILE + ty, k0 + tx]
        sb[ty, tx] = b[k0 + ty, col]
        cuda.syncthreads()
        for k in range(TILE):
            acc += sa[k, ty] * sb[k, tx]
        cuda.syncthreads()
    c[row, col] = acc


# --8<-- [start:gemm_regtile]
@kernel
def gemm_regtile(a, b, c):
    """128 x 128 tile of c per block of 256 threads, 8 x 8 outputs per thread in registers."""
    sa = cuda.shared.array((RT_BK, RT_A_ROW), dtype=float32)  # sa[k, m]
    sb = cuda.shared.array((RT_BK, RT_BN), dtype=float32)  # sb[k, n]
    acc = cuda.local.array((RT_TM, RT_TN), dtype=float32)
    ra = cuda.local.array(RT_TM, dtype=float32)
    rb = cuda.local.array(RT_TN, dtype=float32)
    tid = cuda.threadIdx.x
    ty = tid // RT_SIDE
    tx = tid % RT_SIDE
    row0 = cuda.blockIdx.y * RT_BM
    col0 = cuda.blockIdx.x * RT_BN
    for i in range(RT_TM):
        for j in range(RT_TN):
            acc[i, j] = float32(0.0)
    for k0 in range(0, a.shape[1], RT_BK):
        for i in range(RT_BM * RT_BK // RT_THREADS):
            e = tid + RT_THREADS * i
            sa[e % RT_BK, e // RT_BK] = a[row0 + e // RT_BK, k0 + e % RT_BK]
            sb[e // RT_BN, e % RT_BN] = b[k0 + e // RT_BN, col0 + e % RT_BN]
        cuda.syncthreads()
        for k in range(RT_BK):
            for i in range(RT_TM):
                ra[i] = sa[k, ty + RT_SIDE * i]
            for j in range(RT_TN):
                rb[j] = sb[k, tx + RT_SIDE * j]
            for i in range(RT_TM):
                for j in range(RT_TN):
                    acc[i, j] += ra[i] * rb[j]
        cuda.syncthreads()
    for i in range(RT_TM):
        for j in range(RT_TN):
            c[row0 + ty + RT_SIDE * i, col0 + tx + RT_SIDE * j] = acc[i, j]
# --8<-- [end:gemm_regtile]


def naive_launch(m: int, n: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(grid, block) of :func:`gemm_naive` for an m x n result: every element covered, the edges guarded."""
    bx, by = NAIVE_BLOCK
    return ((n + bx - 1) // bx, (m + by - 1) // by), NAIVE_BLOCK


def shared_launch(m: int, n: int, k: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """(grid, block) of the shared-tile kernels; m, n, k multiples of TILE (no edge guards)."""
    if m % TILE or n % TILE or k % TILE:
        raise ValueError(f"the shared-tile kernels need M, N, K multiples of {TILE}; got {m} x {n} x {k}")
    return (n // TILE, m // TILE), (TILE, TILE)


def regtile_launch(m: int, n: int, k: int) -> tuple[tuple[int, int], int]:
    """(grid, threads) of :func:`gemm_regtile`; m, n multiples of 128 and k of 8 (no edge guards)."""
    if m % RT_BM or n % RT_BN or k % RT_BK:
        raise ValueError(f"gemm_regtile needs M and N multiples of {RT_BM} and K of {RT_BK}; got {m} x {n} x {k}")
    return (n // RT_BN, m // RT_BM), RT_THREADS


#: The tile of C each Numba step needs M and N to be multiples of (1: any size).
TILE_OF = {"gemm_naive": 1, "gemm_shared": TILE, "gemm_shared_padded": TILE, "gemm_regtile": RT_BM}

#: Each Numba step: its kernel and the function that gives its launch for an (m, n, k) product.
STEPS = {
    "gemm_naive": (gemm_naive, lambda m, n, k: naive_launch(m, n)),
    "gemm_shared": (gemm_shared, shared_launch),
    "gemm_shared_padded": (gemm_shared_padded, shared_launch),
    "gemm_regtile": (gemm_regtile, regtile_launch),
}


def launch(name: str, a, b, c) -> None:
    """c = a @ b with the Numba step ``name`` (device arrays, float32, C-contiguous)."""
    step, shape = STEPS[name]
    m, k = a.shape
    k2, n = b.shape
    if k2 != k or tuple(c.shape) != (m, n):
        raise ValueError(f"shapes do not chain: {tuple(a.shape)} @ {tuple(b.shape)} -> {tuple(c.shape)}")
    grid, block = shape(m, n, k)
    step[grid, block](a, b, c)


def gemm_reference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """NumPy's product, accumulated in float64 and rounded to float32 once."""
    return (a.astype(np.float64) @ b.astype(np.float64)).astype(np.float32)
