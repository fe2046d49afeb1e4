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

4′. :func:`gemm_pipelined`: step 4 (:mod:`labkit.kernels.gemm_cuda`'s ``sgemm_pipelined``) in Numba,
   with what Numba lets a kernel close of the gap: 16-byte accesses to global and shared memory
   (labkit.kernels.intrinsics: ``ld.global.v4.f32``, ``ld.shared.v4.f32`` and their stores), the
   same two shared buffers (the next slice loaded into registers while this one is multiplied), the
   same layout (a thread's rows ty*4.. and 64 + ty*4.., its columns tx*4.. and 64 + tx*4..), and
   CUDA C's register bound, two blocks of 256 threads per SM (``launch_bounds``).

Steps 3 (its CUDA C twin), 4 and 5 in CUDA C: :mod:`labkit.kernels.gemm_cuda`. Chapter 6 shows
the kernels from this file (the ``--8<--`` markers).
"""

from __future__ import annotations

import numpy as np
from numba import float32

from labkit.gpu import cuda, literal_unroll
from labkit.kernels.intrinsics import load4, load4_shared, store4, store4_shared
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
#: The pipelined kernel's two shared buffers, each a slice of A (k-major, padded rows) and of B, in floats.
PL_STAGE_A = RT_BK * RT_A_ROW
PL_STAGE_B = RT_BK * RT_BN
PL_A_FLOATS = 2 * PL_STAGE_A
PL_B_FLOATS = 2 * PL_STAGE_B
#: The slice's values of k as a tuple: ``literal_unroll`` over it unrolls the loop when Numba types
#: the kernel, which a loop over ``range`` is not (LLVM keeps that loop: its body is large).
PL_KS = tuple(range(RT_BK))
#: Its register bound: two blocks of RT_THREADS per SM, as CUDA C's __launch_bounds__(256, 2).
PL_BLOCKS_PER_SM = 2


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


# --8<-- [start:gemm_pipelined]
@kernel(launch_bounds=(RT_THREADS, PL_BLOCKS_PER_SM))
def gemm_pipelined(a, b, c):
    """Step 4 in Numba: 16-byte accesses, two shared buffers, 8 x 8 outputs per thread (four 4 x 4)."""
    sa = cuda.shared.array(PL_A_FLOATS, dtype=float32)   # two slices of A, sa[s][k][m], rows of RT_A_ROW
    sb = cuda.shared.array(PL_B_FLOATS, dtype=float32)   # two slices of B, sb[s][k][n]
    acc = cuda.local.array((RT_TM, RT_TN), dtype=float32)
    tid = cuda.threadIdx.x
    ty = tid // RT_SIDE
    tx = tid % RT_SIDE
    depth = a.shape[1]
    n = b.shape[1]
    row0 = cuda.blockIdx.y * RT_BM
    col0 = cuda.blockIdx.x * RT_BN
    for i in range(RT_TM):
        for j in range(RT_TN):
            acc[i, j] = float32(0.0)
    # this thread's 16 bytes of each slice, in float4s: A row tid // 2, k (tid % 2) * 4..; B row
    # tid // 32, columns (tid % 32) * 4..
    a_quad = ((row0 + tid // 2) * depth + (tid % 2) * 4) // 4
    b_quad = ((tid // 32) * n + col0 + (tid % 32) * 4) // 4
    a_row = (tid % 2) * 4 * RT_A_ROW + tid // 2        # where its 4 values of A go in a slice (k-major)
    b_slot = ((tid // 32) * RT_BN + (tid % 32) * 4) // 4
    av = load4(a, a_quad)
    bv = load4(b, b_quad)
    for i in range(4):
        sa[a_row + i * RT_A_ROW] = av[i]
    store4_shared(sb, b_slot, bv)
    cuda.syncthreads()
    s = 0
    for k0 in range(0, depth, RT_BK):
        more = k0 + RT_BK < depth
        if more:   # the next slice into registers: these loads fly while the FMAs below run
            av = load4(a, a_quad + (k0 + RT_BK) // 4)
            bv = load4(b, b_quad + (k0 + RT_BK) * n // 4)
        for k in literal_unroll(PL_KS):
            a_at = (s * PL_STAGE_A + k * RT_A_ROW) // 4
            b_at = (s * PL_STAGE_B + k * RT_BN) // 4
            a0 = load4_shared(sa, a_at + ty)
            a1 = load4_shared(sa, a_at + RT_BM // 8 + ty)
            b0 = load4_shared(sb, b_at + tx)
            b1 = load4_shared(sb, b_at + RT_BN // 8 + tx)
            for i in range(4):
                for j in range(4):
                    acc[i, j] += a0[i] * b0[j]
                    acc[i, j + 4] += a0[i] * b1[j]
                    acc[i + 4, j] += a1[i] * b0[j]
                    acc[i + 4, j + 4] += a1[i] * b1[j]
        if more:   # the other buffer: nobody reads it until the barrier
            other = 1 - s
            for i in range(4):
                sa[other * PL_STAGE_A + a_row + i * RT_A_ROW] = av[i]
            store4_shared(sb, other * (PL_STAGE_B // 4) + b_slot, bv)
        cuda.syncthreads()
        s = 1 - s
    for i in range(4):
        for h in range(2):
            top = (row0 + ty * 4 + i) * n + col0 + h * (RT_BN // 2) + tx * 4
            bottom = top + (RT_BM // 2) * n
            store4(c, top // 4, (acc[i, 4 * h], acc[i, 4 * h + 1], acc[i, 4 * h + 2], acc[i, 4 * h + 3]))
            store4(c, bottom // 4, (acc[i + 4, 4 * h], acc[i + 4, 4 * h + 1], acc[i + 4, 4 * h + 2],
                                    acc[i + 4, 4 * h + 3]))
# --8<-- [end:gemm_pipelined]


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
TILE_OF = {"gemm_naive": 1, "gemm_shared": TILE, "gemm_shared_padded": TILE, "gemm_regtile": RT_BM,
           "gemm_pipelined": RT_BM}

#: Each Numba step: its kernel and the function that gives its launch for an (m, n, k) product.
STEPS = {
    "gemm_naive": (gemm_naive, lambda m, n, k: naive_launch(m, n)),
    "gemm_shared": (gemm_shared, shared_launch),
    "gemm_shared_padded": (gemm_shared_padded, shared_launch),
    "gemm_regtile": (gemm_regtile, regtile_launch),
    "gemm_pipelined": (gemm_pipelined, regtile_launch),
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
