"""The ``mma.sync`` instruction's own ceiling: a register-only loop of warp-level
``mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32`` (``HMMA.16816.F32`` in SASS), CUDA C through
CuPy's ``RawModule`` (NVRTC, the device's own architecture).

No shared memory and no global memory inside the loop: each thread's A fragment (four 32-bit
registers of FP16 pairs) is made once from its index, its B fragment is ones, and each warp keeps
``ACCUMULATORS`` independent 16 x 8 FP32 accumulators (four registers per thread each), so that
``ACCUMULATORS`` MMAs of a warp are in flight at once. Nothing but the tensor-core instruction and
its issue limits the rate: FLOP per clock per SM = the instruction's own roof (chapter 6).

FLOPs = warps x iterations x ACCUMULATORS x 2 x 16 x 8 x 16 (4 096 per MMA). The sum of the
accumulators is written out, so the compiler can drop none of them.
"""

from __future__ import annotations

import functools

#: Independent accumulators per warp (MMAs in flight per warp), and threads per block (four warps,
#: one per scheduler of an SM).
ACCUMULATORS = 8
THREADS = 128
#: A's FP16 pairs: A_BASE | ((thread x A_STEP + register) & A_MASK), values in [0.5, 1).
A_BASE, A_STEP, A_MASK = 0x38003800, 7, 0x03FF03FF
#: FLOP of one m16n8k16 MMA: 2 x M x N x K.
FLOPS_PER_MMA = 2 * 16 * 8 * 16

SOURCE = r"""
#define ACC 8

extern "C" __global__ void __launch_bounds__(128) mma_roof(float* out, int iterations)
{
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    /* A: FP16 pairs in [0.5, 1) (exponent of 2^-1, a mantissa from the thread's index); B: ones */
    unsigned a[4], b[2];
    for (int i = 0; i < 4; ++i) a[i] = A_BASE | ((t * A_STEP + i) & A_MASK);
    b[0] = b[1] = 0x3c003c00u;
    float d[ACC][4];
    for (int j = 0; j < ACC; ++j) d[j][0] = d[j][1] = d[j][2] = d[j][3] = 0.0f;
    for (int it = 0; it < iterations; ++it) {
#pragma unroll
        for (int j = 0; j < ACC; ++j)
            asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                         "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                         : "+f"(d[j][0]), "+f"(d[j][1]), "+f"(d[j][2]), "+f"(d[j][3])
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
    float s = 0.0f;
    for (int j = 0; j < ACC; ++j) s += d[j][0] + d[j][1] + d[j][2] + d[j][3];
    out[t] = s;
}
""".replace("#define ACC 8", f"#define ACC {ACCUMULATORS}\n#define A_BASE {A_BASE:#x}u\n#define A_STEP {A_STEP}u\n"
                                    f"#define A_MASK {A_MASK:#x}u")


@functools.cache
def function():
    """The compiled kernel (CuPy RawModule, NVRTC; needs a GPU and CuPy)."""
    import cupy

    return cupy.RawModule(code=SOURCE, options=("-lineinfo",)).get_function("mma_roof")


def flops(blocks: int, iterations: int) -> float:
    """What one launch of ``blocks`` blocks computes."""
    return float(blocks * (THREADS // 32) * iterations * ACCUMULATORS * FLOPS_PER_MMA)


def launcher(blocks: int, iterations: int, out):
    """One launch of ``blocks`` blocks of THREADS threads, ``iterations`` trips, into ``out`` (a CuPy
    float32 array of blocks x THREADS), enqueued."""
    import numpy as np

    kernel = function()
    return lambda: kernel((blocks,), (THREADS,), (out, np.int32(iterations)))


def warp_sums_reference(blocks: int, iterations: int):
    """What the kernel's outputs sum to per warp, computed on the host in float64: with B all ones,
    every entry of row i of D is iterations x the sum of row i of A, so a warp's accumulators sum to
    ACCUMULATORS x 8 x iterations x (the sum of the warp's A values), whatever lane holds which."""
    import numpy as np

    t = np.arange(blocks * THREADS, dtype=np.uint64)
    words = np.stack([(A_BASE | ((t * A_STEP + i) & A_MASK)).astype(np.uint32) for i in range(4)], axis=1)
    per_thread = words.view(np.float16).astype(np.float64).sum(axis=1)
    return ACCUMULATORS * 8 * iterations * per_thread.reshape(-1, 32).sum(axis=1)
