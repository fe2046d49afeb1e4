/* The tensor-core half of labkit.kernels.gemm_numba_mma: one warp's share of one slice of K,
   called from a Numba kernel (numba-cuda's foreign-function interface, Numba's device-function ABI:
   an int status and a pointer for a return value come first; the status is always 0 and there is
   no return value). numba-cuda compiles this file with NVRTC (to LTO-IR when nvJitLink is there)
   and links it into the kernel.

   The shared stage buffers hold FP16 values as the Numba kernel stored them, row-major and padded:
   the A slice is NUMBA_MMA_BM rows of NUMBA_MMA_BK values (+ NUMBA_MMA_PAD), the B slice NUMBA_MMA_BK
   rows of NUMBA_MMA_BN values (+ NUMBA_MMA_PAD), n contiguous (so B is read by ldmatrix .trans).
   The padding (8 values, 16 bytes) puts the eight 16-byte rows an ldmatrix phase reads into eight
   different groups of four banks. The Python side reads these sizes from the #defines below. */

#define NUMBA_MMA_BM 128
#define NUMBA_MMA_BN 128
#define NUMBA_MMA_BK 32
#define NUMBA_MMA_PAD 8
#define NUMBA_MMA_WARP_M 64
#define NUMBA_MMA_WARP_N 32

#define A_ROW (NUMBA_MMA_BK + NUMBA_MMA_PAD)   /* 2-byte elements per row of the A slice */
#define B_ROW (NUMBA_MMA_BN + NUMBA_MMA_PAD)   /* ... of the B slice */
#define MT (NUMBA_MMA_WARP_M / 16)             /* m16 tiles per warp */
#define NT (NUMBA_MMA_WARP_N / 8)              /* n8 tiles per warp */

static __device__ __forceinline__ void ldmatrix_x4(unsigned (&r)[4], const unsigned short* smem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

static __device__ __forceinline__ void ldmatrix_x4_trans(unsigned (&r)[4], const unsigned short* smem)
{
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(s));
}

/* d (4 FP32 accumulators of a 16 x 8 tile) += a (16 x 16 FP16, 4 registers) b (16 x 8 FP16, 2 registers) */
static __device__ __forceinline__ void mma_16x8x16(float* d, const unsigned (&a)[4], const unsigned (&b)[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/* acc[(i * NT + j) * 4 + r] += the warp's (warp_m, warp_n) tile of A_slice @ B_slice: for each
   16-wide step of K, MT ldmatrix.x4 of A, NT / 2 ldmatrix.x4.trans of B, MT x NT mma.sync. */
extern "C" __device__ int
numba_mma_warp_slice(void* unused_return, float* acc, const unsigned* a_stage, const unsigned* b_stage,
                     int lane, int warp_m, int warp_n)
{
    const unsigned short* As = reinterpret_cast<const unsigned short*>(a_stage);
    const unsigned short* Bs = reinterpret_cast<const unsigned short*>(b_stage);
#pragma unroll
    for (int kk = 0; kk < NUMBA_MMA_BK; kk += 16) {
        unsigned af[MT][4], bf[NT][2];
#pragma unroll
        for (int i = 0; i < MT; ++i)
            ldmatrix_x4(af[i], As + (warp_m * NUMBA_MMA_WARP_M + i * 16 + (lane & 15)) * A_ROW + kk + (lane >> 4) * 8);
#pragma unroll
        for (int j = 0; j < NT; j += 2) {
            unsigned r[4];
            ldmatrix_x4_trans(r, Bs + (kk + (lane & 15)) * B_ROW + warp_n * NUMBA_MMA_WARP_N + j * 8 + (lane >> 4) * 8);
            bf[j][0] = r[0]; bf[j][1] = r[1]; bf[j + 1][0] = r[2]; bf[j + 1][1] = r[3];
        }
#pragma unroll
        for (int i = 0; i < MT; ++i)
#pragma unroll
            for (int j = 0; j < NT; ++j) mma_16x8x16(acc + (i * NT + j) * 4, af[i], bf[j]);
    }
    return 0;
}
