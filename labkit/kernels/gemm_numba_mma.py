"""Tensor cores from Numba (issue 33): an FP16 matrix multiply whose kernel is written in Numba and
whose tensor-core work is a CUDA C device function linked into it.

C = A @ B: A row-major M x K FP16, B row-major K x N FP16 (not transposed: n contiguous, as
:mod:`labkit.kernels.gemm_cuda`'s ``mma`` step takes it), C row-major M x N FP16, the products
accumulated in FP32 (rounded to FP16 once, at the end). M and N multiples of 128, K of 32.

Why two languages. Numba has no intrinsic for ``mma.sync`` (the warp-level tensor-core
instruction, ``HMMA`` in SASS) nor for ``ldmatrix`` (the shared-memory load that hands each lane its
fragment of a 16 x 16 tile): its CUDA target stops at the SIMT instructions, which is where
:mod:`labkit.kernels.gemm_simt` stops. numba-cuda's foreign-function interface ("Calling foreign
functions from Python kernels") closes the gap: :func:`cuda.declare_device` declares a CUDA C
``__device__`` function by name and Numba signature, and ``@cuda.jit(link=[numba_mma.cu])`` has
numba-cuda compile that file with NVRTC and link it into the kernel, as LTO-IR when nvJitLink is
present (numba-cuda's default), so that the linker may inline it and keep what it touches in
registers. It does: the SASS has no CALL to it, and the accumulators, a Numba local array whose
address the C function receives, live in registers in the K loop (no local loads or stores there:
tests/gpu/numba_mma_check.py reads it). Compiled separately instead (each PTX by ptxas, then linked:
what a link without LTO does), the function is a CALL and the accumulators go through local memory
(read offline with CUDA 13's ptxas and nvlink: 50 local loads and stores).

What runs in Numba (this file, :func:`_kernel_function`):

- the block's tile of C (128 x 128) and its place, the blocks walking the tiles in groups of
  ``GROUP_M`` tile rows (as the CUDA C steps do, so that blocks resident together share slices in L2);
- the loop over K in slices of 32, double-buffered in shared memory with one barrier per slice: the
  next slice is read from global memory into registers (16-byte loads, ``ld.global.v4.u32``, two
  of A and two of B per thread) before the warps multiply the current one, and stored into the other
  buffer (16-byte ``st.shared.v4.u32``) after (``cp.async`` is not reachable from Numba either);
- all the indexing: which 16 bytes each thread copies, where each warp's tile lies, and the FP32
  accumulators, a ``cuda.local.array`` of 64 floats per thread whose address is passed to C;
- the epilogue: each accumulator rounded to FP16 and stored into C.

The two 16-byte accesses and the address of an element are Numba intrinsics (``numba.cuda.extending``,
LLVM IR built in Python), as :mod:`labkit.kernels.intrinsics` writes its vector accesses. An
intrinsic could emit ``mma.sync`` as inline PTX the same way; the foreign function keeps the
tensor-core code in CUDA C instead, where it reads as the CUDA C steps' does (fragment arrays,
``#pragma unroll``, the same inline PTX), and shows what the issue asks: Numba reaching CUDA C.

What runs in CUDA C (``numba_mma.cu``, :data:`FOREIGN_FUNCTION`): one warp's share of one
slice: for each 16-wide step of K, 4 ``ldmatrix.x4`` of A, 2 ``ldmatrix.x4.trans`` of B and
4 x 4 ``mma.sync.m16n8k16`` into the warp's 64 x 32 tile of accumulators. 8 warps (2 x 4) per block.

The simulator cannot run it: numba-cuda refuses ``link=`` there, and a CUDA C function cannot run on
the host, so :func:`compiled` raises one line (:data:`SIMULATOR_REFUSAL`).
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from labkit.gpu import SIMULATED, cuda, require_gpu

#: The CUDA C file numba-cuda compiles and links (shipped beside this module as package data).
SOURCE = Path(__file__).with_name("numba_mma.cu")
#: The foreign function's name in that file (``extern "C"``, so unmangled).
FOREIGN_FUNCTION = "numba_mma_warp_slice"
#: Its parameters after the ``void*`` return slot of Numba's ABI: (name, Numba type, C type).
PARAMETERS = (
    ("acc", "float32*", "float*"),
    ("a_stage", "uint32*", "const unsigned*"),
    ("b_stage", "uint32*", "const unsigned*"),
    ("lane", "int32", "int"),
    ("warp_m", "int32", "int"),
    ("warp_n", "int32", "int"),
)
SIMULATOR_REFUSAL = ("gemm_numba_mma calls a CUDA C function (numba_mma.cu) that the Numba simulator cannot run: "
                     "run it on a CUDA GPU of compute capability 8.0 or newer")


def source_defines(text: str) -> dict[str, int]:
    """The integer ``#define NUMBA_MMA_*`` of the CUDA C source: its tile sizes, read by this module
    so that they are written once."""
    return {name: int(value) for name, value in re.findall(r"^#define\s+(NUMBA_MMA_\w+)\s+(\d+)\s*$", text, re.M)}


_SIZES = source_defines(SOURCE.read_text())
#: Tile of C per block, slice of K, padding of the shared rows (2-byte elements), a warp's tile.
BM = _SIZES["NUMBA_MMA_BM"]
BN = _SIZES["NUMBA_MMA_BN"]
BK = _SIZES["NUMBA_MMA_BK"]
PAD = _SIZES["NUMBA_MMA_PAD"]
WARP_M = _SIZES["NUMBA_MMA_WARP_M"]
WARP_N = _SIZES["NUMBA_MMA_WARP_N"]
WARPS_N = BN // WARP_N
THREADS = 32 * (BM // WARP_M) * WARPS_N
#: A thread's FP32 accumulators: (WARP_M / 16) x (WARP_N / 8) mma tiles of 4 (16 x 8 / 32 lanes).
ACCUMULATORS = WARP_M * WARP_N // 32
#: Blocks per SM the kernel is compiled for by default: 2 asks ptxas for at most 128 registers
#: (65 536 / (256 x 2)); it then spills a few registers in the epilogue only (SASS read offline).
MIN_BLOCKS = 2
#: Tile rows per group in the blocks' walk over C (gemm_cuda's GROUP_M).
GROUP_M = 8
#: Shared memory, in 32-bit words (two FP16 each): a row of each slice, a stage of each, and the
#: 16-byte chunks per thread per slice.
A_ROW_WORDS = (BK + PAD) // 2
B_ROW_WORDS = (BN + PAD) // 2
A_STAGE_WORDS = BM * A_ROW_WORDS
B_STAGE_WORDS = BK * B_ROW_WORDS
A_CHUNKS = BM * BK // 8 // THREADS
B_CHUNKS = BK * BN // 8 // THREADS
#: Both stages of each (a shared array's shape must be one name: an expression is refused on a GPU).
A_SHARED_WORDS = 2 * A_STAGE_WORDS
B_SHARED_WORDS = 2 * B_STAGE_WORDS
SHARED_BYTES = (A_SHARED_WORDS + B_SHARED_WORDS) * 4


def c_prototype_types(text: str) -> list[str]:
    """The C types of FOREIGN_FUNCTION's parameters as ``text`` defines it (the return slot first)."""
    match = re.search(r'extern\s+"C"\s+__device__\s+int\s+' + FOREIGN_FUNCTION + r"\s*\(([^)]*)\)", text)
    if match is None:
        raise ValueError(f'{SOURCE.name} has no extern "C" __device__ int {FOREIGN_FUNCTION}(...)')
    types = []
    for parameter in match.group(1).split(","):
        words = " ".join(parameter.split())
        types.append(re.sub(r"\s*\w+$", "", words).replace(" *", "*"))
    return types


def tiles(m: int, n: int, k: int) -> int:
    """Blocks (tiles of C) for an m x n x k product; M and N multiples of BM, BN and K of BK (no
    bounds checks in the kernel)."""
    if min(m, n, k) < 1 or m % BM or n % BN or k % BK:
        raise ValueError(f"gemm_numba_mma needs M and N multiples of {BM} and K of {BK}; got {m} x {n} x {k}")
    return (m // BM) * (n // BN)


def launch_shape(m: int, n: int, k: int) -> tuple[tuple[int], tuple[int]]:
    """(grid, block): one block of THREADS per tile of C, on a 1-D grid (the kernel orders the tiles)."""
    return (tiles(m, n, k),), (THREADS,)


def block_tile(block: int, tiles_m: int, tiles_n: int) -> tuple[int, int]:
    """(tile row, tile column) of block ``block``: tile rows in groups of GROUP_M, each group walked
    column by column (gemm_cuda's block_tile); the kernel calls this function, compiled by Numba."""
    per_group = GROUP_M * tiles_n
    first_m = (block // per_group) * GROUP_M
    rows = min(tiles_m - first_m, GROUP_M)
    return first_m + (block % per_group) % rows, (block % per_group) // rows


def _intrinsics():
    """The Numba intrinsics the kernel needs (GPU only): a 16-byte global load and shared store of
    four 32-bit words at a flat index of a C-contiguous array, and the generic address of an element."""
    from llvmlite import ir
    from numba.cuda import types
    from numba.cuda.extending import intrinsic

    word = ir.IntType(32)
    four = ir.VectorType(word, 4)
    quad = types.UniTuple(types.uint32, 4)

    def element(context, builder, array_type, array, index):
        data = context.make_array(array_type)(context, builder, value=array).data
        return builder.gep(data, [index])

    @intrinsic
    def load16(typingctx, array, index):
        """array.flat[index .. index + 3] (index a multiple of 4) as one ld.global.v4.u32."""
        def codegen(context, builder, signature, args):
            pointer = builder.addrspacecast(element(context, builder, signature.args[0], *args), ir.PointerType(word, 1))
            vector = builder.load(builder.bitcast(pointer, ir.PointerType(four, 1)), align=16)
            return context.make_tuple(builder, quad, [builder.extract_element(vector, ir.Constant(word, k))
                                                      for k in range(4)])

        return quad(array, index), codegen

    @intrinsic
    def store16(typingctx, array, index, values):
        """array.flat[index .. index + 3] = values as one st.shared.v4.u32 (``array`` in shared memory)."""
        def codegen(context, builder, signature, args):
            pointer = builder.addrspacecast(element(context, builder, signature.args[0], args[0], args[1]),
                                            ir.PointerType(word, 3))
            vector = ir.Constant(four, ir.Undefined)
            for k in range(4):
                vector = builder.insert_element(vector, builder.extract_value(args[2], k), ir.Constant(word, k))
            builder.store(vector, builder.bitcast(pointer, ir.PointerType(four, 3)), align=16)
            return context.get_dummy_value()

        return types.void(array, index, values), codegen

    @intrinsic
    def address(typingctx, array, index):
        """&array.flat[index], a generic pointer (what a C pointer parameter receives)."""
        def codegen(context, builder, signature, args):
            return element(context, builder, signature.args[0], *args)

        return types.CPointer(array.dtype)(array, index), codegen

    return load16, store16, address


def foreign_signature():
    """The Numba signature of FOREIGN_FUNCTION, from PARAMETERS (GPU only: numba.cuda's types)."""
    from numba.cuda import types

    by_name = {"float32*": types.CPointer(types.float32), "uint32*": types.CPointer(types.uint32),
               "int32": types.int32}
    return types.void(*[by_name[numba_type] for _, numba_type, _ in PARAMETERS])


def _kernel_function():
    """The kernel as a Python function, its helpers bound (GPU only; :func:`compiled` jits it)."""
    from numba.cuda.types import float16, float32, uint32

    load16, store16, address = _intrinsics()
    warp_slice = cuda.declare_device(FOREIGN_FUNCTION, foreign_signature())
    tile_of = cuda.jit(device=True)(block_tile)

    def gemm_numba_mma(a, b, c):
        """c (M x N, fp16) = a (M x K/2 words: fp16 pairs) @ b (K x N/2 words), one block per 128 x 128 tile."""
        sa = cuda.shared.array(A_SHARED_WORDS, dtype=uint32)
        sb = cuda.shared.array(B_SHARED_WORDS, dtype=uint32)
        acc = cuda.local.array(ACCUMULATORS, dtype=float32)
        a_words = a.shape[1]          # K / 2
        b_words = b.shape[1]          # N / 2
        tiles_m = c.shape[0] // BM
        tiles_n = c.shape[1] // BN
        tile_m, tile_n = tile_of(cuda.blockIdx.x, tiles_m, tiles_n)
        tid = cuda.threadIdx.x
        lane = tid % 32
        warp = tid // 32
        warp_m = warp // WARPS_N
        warp_n = warp % WARPS_N
        for i in range(ACCUMULATORS):
            acc[i] = float32(0.0)

        # This thread's 16-byte chunks: A chunk e is row e // 4 of the slice, words 4 (e % 4) ..;
        # B chunk e is row e // 16, words 4 (e % 16) ...
        e0 = tid
        e1 = tid + THREADS
        a_global0 = (tile_m * BM + e0 // 4) * a_words + (e0 % 4) * 4
        a_global1 = (tile_m * BM + e1 // 4) * a_words + (e1 % 4) * 4
        b_global0 = (e0 // 16) * b_words + tile_n * (BN // 2) + (e0 % 16) * 4
        b_global1 = (e1 // 16) * b_words + tile_n * (BN // 2) + (e1 % 16) * 4
        a_shared0 = (e0 // 4) * A_ROW_WORDS + (e0 % 4) * 4
        a_shared1 = (e1 // 4) * A_ROW_WORDS + (e1 % 4) * 4
        b_shared0 = (e0 // 16) * B_ROW_WORDS + (e0 % 16) * 4
        b_shared1 = (e1 // 16) * B_ROW_WORDS + (e1 % 16) * 4

        ra0 = load16(a, a_global0)
        ra1 = load16(a, a_global1)
        rb0 = load16(b, b_global0)
        rb1 = load16(b, b_global1)
        store16(sa, a_shared0, ra0)
        store16(sa, a_shared1, ra1)
        store16(sb, b_shared0, rb0)
        store16(sb, b_shared1, rb1)
        cuda.syncthreads()

        slices = a_words * 2 // BK
        for t in range(slices):
            stage = t % 2
            more = t + 1 < slices
            if more:   # slice t + 1 into registers while the tensor cores work on slice t
                ra0 = load16(a, a_global0 + (t + 1) * (BK // 2))
                ra1 = load16(a, a_global1 + (t + 1) * (BK // 2))
                rb0 = load16(b, b_global0 + (t + 1) * BK * b_words)
                rb1 = load16(b, b_global1 + (t + 1) * BK * b_words)
            warp_slice(address(acc, 0), address(sa, stage * A_STAGE_WORDS), address(sb, stage * B_STAGE_WORDS),
                       lane, warp_m, warp_n)
            if more:   # ... then into the other stage, free since the last barrier
                other = (1 - stage)
                store16(sa, other * A_STAGE_WORDS + a_shared0, ra0)
                store16(sa, other * A_STAGE_WORDS + a_shared1, ra1)
                store16(sb, other * B_STAGE_WORDS + b_shared0, rb0)
                store16(sb, other * B_STAGE_WORDS + b_shared1, rb1)
            cuda.syncthreads()

        # acc[(i * NT + j) * 4 + r]: tile (i, j) of the warp; r = 0, 1 on row lane // 4, columns
        # 2 (lane % 4) + 0, 1; r = 2, 3 eight rows below (mma.sync's accumulator layout).
        row0 = tile_m * BM + warp_m * WARP_M + lane // 4
        col0 = tile_n * BN + warp_n * WARP_N + (lane % 4) * 2
        for i in range(WARP_M // 16):
            for j in range(WARP_N // 8):
                base = (i * (WARP_N // 8) + j) * 4
                row = row0 + i * 16
                col = col0 + j * 8
                c[row, col] = float16(acc[base])
                c[row, col + 1] = float16(acc[base + 1])
                c[row + 8, col] = float16(acc[base + 2])
                c[row + 8, col + 1] = float16(acc[base + 3])

    return gemm_numba_mma


@functools.cache
def compiled(min_blocks: int = MIN_BLOCKS, lto: bool | None = None):
    """The kernel, jitted with the CUDA C source linked (``@cuda.jit(link=[SOURCE])``), at most
    65 536 / (THREADS x min_blocks) registers per thread (``launch_bounds``). ``lto`` is passed to
    ``cuda.jit`` (None: numba-cuda's default, LTO where nvJitLink is installed); on the H200 with
    numba-cuda 0.30.4, ``lto=False`` still gave an LTO build (its code library had LTO on and the
    linker received LTO-IR: tests/gpu/numba_mma_lto_probe.py), so the GPU check's ``no_lto`` build
    is the LTO one again. Without line information: numba-cuda compiles the linked source without
    it, and nvJitLink then refuses to link modules that disagree on it ("linking module flags 'Debug
    Info Version': IDs have conflicting behaviors"). In the simulator: NoGPUError(SIMULATOR_REFUSAL)."""
    if SIMULATED:
        require_gpu(SIMULATOR_REFUSAL)
    return cuda.jit(link=[str(SOURCE)], lto=lto, launch_bounds=(THREADS, min_blocks))(_kernel_function())


def words(x):
    """A C-contiguous FP16 matrix as the kernel reads it: the same bytes as uint32 pairs (R x C/2)."""
    if x.dtype.itemsize != 2 or x.ndim != 2 or not x.flags["C_CONTIGUOUS"] or x.shape[1] % 2:
        raise ValueError(f"expected a C-contiguous 2-D FP16 matrix with an even number of columns, got "
                         f"{x.dtype} {tuple(x.shape)}")
    return x.view("uint32")


def launcher(a, b, c, min_blocks: int = MIN_BLOCKS, lto: bool | None = None):
    """A function of no argument that launches c = a @ b (device arrays, FP16, C-contiguous; CuPy or
    Numba): A M x K, B K x N, C M x N. The arrays are turned into Numba's views once, here: a CuPy
    array handed to a Numba kernel is converted at every launch, which synchronises its stream."""
    m, k = a.shape
    k2, n = b.shape
    if k2 != k or tuple(c.shape) != (m, n):
        raise ValueError(f"shapes do not chain: {tuple(a.shape)} @ {tuple(b.shape)} -> {tuple(c.shape)}")
    grid, block = launch_shape(m, n, k)
    configured = compiled(min_blocks, lto)[grid, block]
    operands = [cuda.as_cuda_array(x) for x in (words(a), words(b), c)]
    return lambda: configured(*operands)


#: The Numba signature the kernel is compiled for by :func:`launcher` (A and B as 32-bit words, C FP16).
SIGNATURE = "void(uint32[:, ::1], uint32[:, ::1], float16[:, ::1])"


def resources():
    """Registers and local (spill) bytes per thread of the default build, as the driver reports them."""
    from labkit.kernels.compiled import resources as driver_resources

    return driver_resources(compiled(), SIGNATURE)


def launch(a, b, c, min_blocks: int = MIN_BLOCKS, lto: bool | None = None) -> None:
    """c = a @ b once (see :func:`launcher`)."""
    launcher(a, b, c, min_blocks, lto)()


def check_against_numpy(m: int, n: int, k: int, seed: int = 33, min_blocks: int = MIN_BLOCKS, lto: bool | None = None):
    """Run the kernel once on fresh inputs drawn uniform in [-1, 1) (rounded to FP16), its output
    poisoned with NaN, and compare with NumPy's product of the FP16 inputs in float64 by chapter 6's
    FP16 tolerance (:func:`labkit.kernels.gemm_accuracy.agreement`). Returns the Agreement."""
    import numpy as np

    from labkit.kernels.gemm_accuracy import agreement

    rng = np.random.default_rng(seed)
    a = (rng.random((m, k), dtype=np.float32) * 2 - 1).astype(np.float16)
    b = (rng.random((k, n), dtype=np.float32) * 2 - 1).astype(np.float16)
    c = cuda.to_device(np.full((m, n), np.nan, dtype=np.float16))
    launcher(cuda.to_device(a), cuda.to_device(b), c, min_blocks, lto)()
    result = c.copy_to_host().astype(np.float32)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return agreement(result, a64 @ b64, np.abs(a64) @ np.abs(b64), k, "fp16")
