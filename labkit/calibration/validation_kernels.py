"""The validation set of `labkit diagnose`: real kernels nobody planted a flaw in, to profile on a GPU.

Each :class:`Case` sets up its inputs (outside the profiled range) and returns the function that
launches its work once. The cases are CuPy's own kernels (elementwise, reductions, ``cupy.sum``
along each axis, sort, scan, FFT, cuBLAS through ``cupy.matmul`` in FP32 and FP16, a transpose,
``bincount``, boolean masking, an ``ndimage`` filter), textbook CUDA C kernels written as an
engineer would (softmax one thread per row and one warp per row, a fused layer norm, histograms
with global and with shared atomics, a 5-point stencil, an n-body step, a warp-shuffle
reduction), and the course's exercises as shipped (skeleton) and as solved (labkit's solution).
:mod:`labkit.calibration.validation_set` profiles them with ``ncu --set full``; the exports become the
fixtures of tests/fixtures/diagnose_validation/, each with the verdict an expert gives.

Sizes are chosen so that each launch takes well under 10 ms (ncu replays it about 40 times) and
fills the GPU.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

#: CUDA C of the hand-written cases (CuPy RawModule, NVRTC, -lineinfo).
SOURCE = r"""
#define WARP 32

/* Softmax of each row of a rows x cols row-major matrix, one thread per row: three passes over the
   row (max, sum of exponentials, normalised write), as a first CUDA port of the loop would be. */
extern "C" __global__ void softmax_thread_per_row(const float* x, float* y, int rows, int cols)
{
    const int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const float* xr = x + (size_t)r * cols;
    float* yr = y + (size_t)r * cols;
    float m = __int_as_float(0xff800000);   /* -inf (NVRTC has no INFINITY) */
    for (int c = 0; c < cols; ++c) m = fmaxf(m, xr[c]);
    float s = 0.0f;
    for (int c = 0; c < cols; ++c) s += __expf(xr[c] - m);
    const float inv = 1.0f / s;
    for (int c = 0; c < cols; ++c) yr[c] = __expf(xr[c] - m) * inv;
}

__device__ __forceinline__ float warp_max(float v)
{
#pragma unroll
    for (int d = WARP / 2; d > 0; d /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, d));
    return v;
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
    for (int d = WARP / 2; d > 0; d /= 2) v += __shfl_xor_sync(0xffffffffu, v, d);
    return v;
}

/* Softmax, one warp per row of COLS floats kept in registers (float4 loads): x read once, y written once. */
#define SOFTMAX_COLS 1024
extern "C" __global__ void softmax_warp_per_row(const float4* x, float4* y, int rows)
{
    const int warps_per_block = blockDim.x / WARP;
    const int r = blockIdx.x * warps_per_block + threadIdx.x / WARP;
    const int lane = threadIdx.x % WARP;
    if (r >= rows) return;
    const int per_lane = SOFTMAX_COLS / 4 / WARP;
    const float4* xr = x + (size_t)r * (SOFTMAX_COLS / 4);
    float4 v[per_lane];
    float m = __int_as_float(0xff800000);   /* -inf (NVRTC has no INFINITY) */
#pragma unroll
    for (int k = 0; k < per_lane; ++k) {
        v[k] = xr[k * WARP + lane];
        m = fmaxf(m, fmaxf(fmaxf(v[k].x, v[k].y), fmaxf(v[k].z, v[k].w)));
    }
    m = warp_max(m);
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < per_lane; ++k) {
        v[k].x = __expf(v[k].x - m); v[k].y = __expf(v[k].y - m);
        v[k].z = __expf(v[k].z - m); v[k].w = __expf(v[k].w - m);
        s += v[k].x + v[k].y + v[k].z + v[k].w;
    }
    const float inv = 1.0f / warp_sum(s);
    float4* yr = y + (size_t)r * (SOFTMAX_COLS / 4);
#pragma unroll
    for (int k = 0; k < per_lane; ++k)
        yr[k * WARP + lane] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
}

/* Layer norm of rows of LN_COLS floats, one block of LN_THREADS per row, the row in registers:
   mean, then variance about the mean (two block reductions through shared memory), then
   y = (x - mean) / sqrt(var + eps) * gamma + beta. */
#define LN_COLS 4096
#define LN_THREADS 256
extern "C" __global__ void __launch_bounds__(LN_THREADS) layer_norm(const float* x, const float* gamma,
                                                                    const float* beta, float* y, float eps)
{
    __shared__ float partial[LN_THREADS / WARP];
    const int per_thread = LN_COLS / LN_THREADS;
    const float* xr = x + (size_t)blockIdx.x * LN_COLS;
    float v[per_thread];
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < per_thread; ++k) { v[k] = xr[k * LN_THREADS + threadIdx.x]; s += v[k]; }
    s = warp_sum(s);
    if (threadIdx.x % WARP == 0) partial[threadIdx.x / WARP] = s;
    __syncthreads();
    float total = 0.0f;
#pragma unroll
    for (int w = 0; w < LN_THREADS / WARP; ++w) total += partial[w];
    const float mean = total / LN_COLS;
    __syncthreads();
    float q = 0.0f;
#pragma unroll
    for (int k = 0; k < per_thread; ++k) { const float d = v[k] - mean; q += d * d; }
    q = warp_sum(q);
    if (threadIdx.x % WARP == 0) partial[threadIdx.x / WARP] = q;
    __syncthreads();
    float var = 0.0f;
#pragma unroll
    for (int w = 0; w < LN_THREADS / WARP; ++w) var += partial[w];
    const float inv = rsqrtf(var / LN_COLS + eps);
    float* yr = y + (size_t)blockIdx.x * LN_COLS;
#pragma unroll
    for (int k = 0; k < per_thread; ++k) {
        const int c = k * LN_THREADS + threadIdx.x;
        yr[c] = (v[k] - mean) * inv * gamma[c] + beta[c];
    }
}

/* Histogram of bytes into 256 bins: one global atomic per element (grid-stride). */
extern "C" __global__ void histogram_global_atomics(const unsigned char* data, unsigned int* bins, long long n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        atomicAdd(&bins[data[i]], 1u);
}

/* The same histogram privatised: per-block bins in shared memory, one global atomic per bin and block. */
extern "C" __global__ void histogram_shared_atomics(const unsigned char* data, unsigned int* bins, long long n)
{
    __shared__ unsigned int local[256];
    for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0u;
    __syncthreads();
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}

/* 5-point Jacobi step on an n x n grid (interior points), neighbours read straight from global memory. */
extern "C" __global__ void stencil_5pt(const float* in, float* out, int n)
{
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    const int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < 1 || c < 1 || r >= n - 1 || c >= n - 1) return;
    const size_t i = (size_t)r * n + c;
    out[i] = 0.25f * (in[i - 1] + in[i + 1] + in[i - n] + in[i + n]) - in[i];
}

/* One n-body step: accelerations of every body from every other, tiles of bodies staged in shared
   memory (the GPU Gems 3 kernel, softened gravity, float4 = x, y, z, mass). */
#define NBODY_TILE 256
extern "C" __global__ void __launch_bounds__(NBODY_TILE) nbody_accelerations(const float4* bodies, float3* acc,
                                                                             int n, float softening)
{
    __shared__ float4 tile[NBODY_TILE];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const float4 me = bodies[i];
    float3 a = make_float3(0.0f, 0.0f, 0.0f);
    for (int start = 0; start < n; start += NBODY_TILE) {
        tile[threadIdx.x] = bodies[start + threadIdx.x];
        __syncthreads();
#pragma unroll 8
        for (int j = 0; j < NBODY_TILE; ++j) {
            const float4 o = tile[j];
            const float dx = o.x - me.x, dy = o.y - me.y, dz = o.z - me.z;
            const float d2 = dx * dx + dy * dy + dz * dz + softening;
            const float inv = rsqrtf(d2);
            const float f = o.w * inv * inv * inv;
            a.x += dx * f; a.y += dy * f; a.z += dz * f;
        }
        __syncthreads();
    }
    acc[i] = a;
}

/* Sum of n floats: grid-stride per-thread sums with four loads in flight, warp shuffles, one atomic per block. */
extern "C" __global__ void reduce_shuffle(const float4* x, float* total, long long n4)
{
    __shared__ float partial[32];
    float s = 0.0f;
    const long long g = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += g) {
        const float4 v = x[i];
        s += (v.x + v.y) + (v.z + v.w);
    }
    s = warp_sum(s);
    if (threadIdx.x % WARP == 0) partial[threadIdx.x / WARP] = s;
    __syncthreads();
    if (threadIdx.x < WARP) {
        s = threadIdx.x < blockDim.x / WARP ? partial[threadIdx.x] : 0.0f;
        s = warp_sum(s);
        if (threadIdx.x == 0) atomicAdd(total, s);
    }
}
"""

#: Names of the kernels of SOURCE.
RAW_KERNELS = ("softmax_thread_per_row", "softmax_warp_per_row", "layer_norm", "histogram_global_atomics",
               "histogram_shared_atomics", "stencil_5pt", "nbody_accelerations", "reduce_shuffle")
SOFTMAX_COLS = 1024
LN_COLS = 4096
NBODY_TILE = 256

#: Case groups: each is one ncu process (markers split its launches into cases).
GROUPS = ("cupy", "raw", "exercises", "apps")
#: The applications' sizes: a training step of a small MLP, one attention layer's core.
MLP_BATCH, MLP_WIDTH, MLP_HIDDEN = 8192, 1024, 4096
ATTENTION_SHAPE = (4, 16, 4096, 128)   # batch, heads, sequence, head dimension
FMA_ROUNDS = 2048


@dataclass(frozen=True)
class Case:
    """One case: ``setup()`` allocates and fills the inputs and returns the function launching the
    work once. ``group`` picks the ncu process; ``what`` says in a few words what it is."""

    name: str
    group: str
    what: str
    setup: Callable[[], Callable[[], object]]


def _rng():
    return np.random.default_rng(20261201)


def _uniform(*shape, dtype=np.float32):
    import cupy

    return cupy.asarray(_rng().random(shape, dtype=np.float32).astype(dtype))


@functools.cache
def _module():
    import cupy

    return cupy.RawModule(code=SOURCE, options=("-lineinfo",))


def _raw(name: str):
    return _module().get_function(name)


# ----- CuPy's own kernels ----------------------------------------------------------------------------
def _cupy_add():
    import cupy

    x, y = _uniform(1 << 26), _uniform(1 << 26)
    z = cupy.empty_like(x)
    return lambda: cupy.add(x, y, out=z)


def _cupy_sin_f64():
    import cupy

    x = _uniform(1 << 25, dtype=np.float64)
    y = cupy.empty_like(x)
    return lambda: cupy.sin(x, out=y)


def _cupy_transcendental_f32():
    import cupy

    kernel = cupy.ElementwiseKernel(
        "float32 x", "float32 y",
        "float a = x; for (int k = 0; k < 16; ++k) { a = __sinf(a) * __cosf(a) + __expf(-a) + __logf(1.0f + a * a); } y = a;",
        "vset_transcendental")
    x = _uniform(1 << 24)
    y = cupy.empty_like(x)
    return lambda: kernel(x, y)


def _cupy_sum_all():
    import cupy

    x = _uniform(1 << 26)
    return lambda: cupy.sum(x)


def _cupy_sum_axis(axis: int):
    def setup():
        import cupy

        a = _uniform(8192, 4096)
        return lambda: cupy.sum(a, axis=axis)

    return setup


def _cupy_sort():
    import cupy

    x = _uniform(1 << 24)
    return lambda: cupy.sort(x)


def _cupy_cumsum():
    import cupy

    x = _uniform(1 << 24)
    return lambda: cupy.cumsum(x)


def _cupy_fft():
    import cupy

    z = (_uniform(64, 1 << 16) + 1j * _uniform(64, 1 << 16)).astype(cupy.complex64)
    return lambda: cupy.fft.fft(z, axis=-1)


def _cupy_matmul(dtype):
    def setup():
        import cupy

        a, b = _uniform(4096, 4096, dtype=dtype), _uniform(4096, 4096, dtype=dtype)
        return lambda: cupy.matmul(a, b)

    return setup


def _cupy_transpose():
    import cupy

    a = _uniform(8192, 8192)
    return lambda: cupy.ascontiguousarray(a.T)


def _cupy_bincount():
    import cupy

    values = cupy.asarray(_rng().integers(0, 256, 1 << 26, dtype=np.int32))
    return lambda: cupy.bincount(values, minlength=256)


def _cupy_mask():
    x = _uniform(1 << 24)
    return lambda: x[x > 0.5]


def _cupy_softmax():
    import cupy

    x = _uniform(16384, SOFTMAX_COLS)

    def run():
        e = cupy.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    return run


def _cupyx_uniform_filter():
    from cupyx.scipy import ndimage

    image = _uniform(4096, 4096)
    return lambda: ndimage.uniform_filter(image, size=5)


# ----- hand-written CUDA C ---------------------------------------------------------------------------
def _softmax_thread_per_row():
    import cupy

    rows = 1 << 16
    x = _uniform(rows, 256)
    y = cupy.empty_like(x)
    kernel = _raw("softmax_thread_per_row")
    return lambda: kernel((rows // 256,), (256,), (x, y, np.int32(rows), np.int32(256)))


def _softmax_warp_per_row():
    import cupy

    rows = 1 << 14
    x = _uniform(rows, SOFTMAX_COLS)
    y = cupy.empty_like(x)
    kernel = _raw("softmax_warp_per_row")
    return lambda: kernel((rows // 8,), (256,), (x, y, np.int32(rows)))


def _layer_norm():
    import cupy

    rows = 1 << 14
    x, gamma, beta = _uniform(rows, LN_COLS), _uniform(LN_COLS), _uniform(LN_COLS)
    y = cupy.empty_like(x)
    kernel = _raw("layer_norm")
    return lambda: kernel((rows,), (256,), (x, gamma, beta, y, np.float32(1e-5)))


@functools.cache
def _skewed_bytes():
    """2^26 bytes of a text-like distribution (bin k drawn with weight 1 / (k + 1)^1.2): a few bins
    take most elements, so their atomics contend."""
    import cupy

    weights = 1.0 / np.arange(1, 257) ** 1.2
    return cupy.asarray(_rng().choice(256, size=1 << 26, p=weights / weights.sum()).astype(np.uint8))


def _histogram(kind: str):
    def setup():
        import cupy

        data = _skewed_bytes()
        bins = cupy.zeros(256, cupy.uint32)
        kernel = _raw(f"histogram_{kind}_atomics")
        return lambda: kernel((132 * 8,), (256,), (data, bins, np.int64(data.size)))

    return setup


def _stencil():
    import cupy

    n = 8192
    a = _uniform(n, n)
    b = cupy.empty_like(a)
    kernel = _raw("stencil_5pt")
    return lambda: kernel((n // 32, n // 8), (32, 8), (a, b, np.int32(n)))


def _nbody():
    import cupy

    n = 1 << 17
    bodies = _uniform(n, 4)
    acc = cupy.empty((n, 3), cupy.float32)
    kernel = _raw("nbody_accelerations")
    return lambda: kernel((n // NBODY_TILE,), (NBODY_TILE,), (bodies, acc, np.int32(n), np.float32(1e-3)))


def _reduce_shuffle():
    import cupy

    x = _uniform(1 << 26)
    total = cupy.zeros(1, cupy.float32)
    kernel = _raw("reduce_shuffle")
    return lambda: kernel((132 * 8,), (256,), (x, total, np.int64(x.size // 4)))


# ----- applications a reader would bring ----------------------------------------------------------
def _torch_train_step():
    """One training step of a two-layer MLP with a layer norm, bf16 autocast, MSE loss, fused AdamW:
    cuBLAS GEMMs on the tensor cores, PyTorch's elementwise, reduction and optimizer kernels."""
    import torch

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(MLP_WIDTH, MLP_HIDDEN), torch.nn.GELU(),
                                torch.nn.Linear(MLP_HIDDEN, MLP_WIDTH), torch.nn.LayerNorm(MLP_WIDTH)).cuda()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    x = torch.randn(MLP_BATCH, MLP_WIDTH, device="cuda")
    y = torch.randn(MLP_BATCH, MLP_WIDTH, device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.mse_loss(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()

    return step


def _torch_attention():
    """scaled_dot_product_attention in bf16 through cuDNN's fused attention (flash attention where
    cuDNN's is unavailable): a Hopper tensor-core kernel built for one CTA per SM."""
    import torch
    from torch.nn.attention import SDPBackend, sdpa_kernel

    torch.manual_seed(0)
    q, k, v = (torch.randn(*ATTENTION_SHAPE, device="cuda", dtype=torch.bfloat16) for _ in range(3))

    def run():
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION, SDPBackend.FLASH_ATTENTION]):
            return torch.nn.functional.scaled_dot_product_attention(q, k, v)

    return run


def _numba(name: str):
    def setup():
        from labkit.calibration import validation_numba
        from labkit.gpu import cuda

        threads, blocks = 256, 132 * 16
        x = cuda.to_device(_rng().random(threads * blocks, dtype=np.float32))
        out = cuda.device_array(threads * blocks, np.float32)
        launched = getattr(validation_numba, name)
        return lambda: launched[blocks, threads](x, out, FMA_ROUNDS)

    return setup


def _cupy_edge_pipeline():
    """An image pipeline in CuPy: Gaussian blur, Sobel gradients, their magnitude, a threshold at twice
    the mean, a count: cupyx.scipy.ndimage's filters, ufuncs and reductions."""
    import cupy
    from cupyx.scipy import ndimage

    image = _uniform(4096, 4096)

    def run():
        blurred = ndimage.gaussian_filter(image, sigma=2.0)
        magnitude = cupy.hypot(ndimage.sobel(blurred, axis=0), ndimage.sobel(blurred, axis=1))
        return cupy.count_nonzero(magnitude > 2 * magnitude.mean())

    return run


# ----- the course's exercises ------------------------------------------------------------------------
def _exercise(exercise_id: str, solved: bool):
    def setup():
        import importlib
        from pathlib import Path

        from labkit.exercises import exercises
        from labkit.exercises.guarded import Guarded
        from labkit.exercises.learner import load
        from labkit.gpu import cuda

        exercise = exercises()[exercise_id]
        if solved:
            module = importlib.import_module(f"labkit.exercises.solutions.{exercise.solution}")
        else:
            root = Path(__file__).resolve().parents[2]
            module = load(root / exercise.learner_file, exercise.learner_file, exercise.entries)
        inputs = exercise.inputs(exercise.gpu_elements, np.random.default_rng(7))
        run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
        return lambda: exercise.call(module, run.args)

    return setup


EXERCISE_IDS = ("01-fuse", "01-reduce", "02-transpose", "02-aos", "03-ilp", "03-tail", "04-transpose", "04-chain",
                "05-mystery-a", "05-mystery-h", "06-padding", "06-regtile")


def cases() -> list[Case]:
    """Every case, in profiling order."""
    out = [
        Case("cupy_add_f32", "cupy", "cupy.add, 2^26 float32", _cupy_add),
        Case("cupy_sin_f64", "cupy", "cupy.sin, 2^25 float64", _cupy_sin_f64),
        Case("cupy_transcendental_f32", "cupy", "ElementwiseKernel: 16 rounds of __sinf, __cosf, __expf, __logf per element",
             _cupy_transcendental_f32),
        Case("cupy_sum_all", "cupy", "cupy.sum of 2^26 float32", _cupy_sum_all),
        Case("cupy_sum_axis0", "cupy", "cupy.sum(axis=0) of 8192 x 4096 float32", _cupy_sum_axis(0)),
        Case("cupy_sum_axis1", "cupy", "cupy.sum(axis=1) of 8192 x 4096 float32", _cupy_sum_axis(1)),
        Case("cupy_sort", "cupy", "cupy.sort of 2^24 float32 (CUB radix sort)", _cupy_sort),
        Case("cupy_cumsum", "cupy", "cupy.cumsum of 2^24 float32", _cupy_cumsum),
        Case("cupy_fft", "cupy", "cupy.fft.fft of 64 rows of 2^16 complex64 (cuFFT)", _cupy_fft),
        Case("cupy_matmul_f32", "cupy", "cupy.matmul 4096^3 float32 (cuBLAS)", _cupy_matmul(np.float32)),
        Case("cupy_matmul_f16", "cupy", "cupy.matmul 4096^3 float16 (cuBLAS, tensor cores)", _cupy_matmul(np.float16)),
        Case("cupy_transpose", "cupy", "cupy.ascontiguousarray(a.T), 8192^2 float32", _cupy_transpose),
        Case("cupy_bincount", "cupy", "cupy.bincount of 2^26 int32 in [0, 256)", _cupy_bincount),
        Case("cupy_mask", "cupy", "x[x > 0.5], 2^24 float32 (scan and scatter)", _cupy_mask),
        Case("cupy_softmax", "cupy", "softmax of 16384 x 1024 float32 composed of CuPy reductions and ufuncs",
             _cupy_softmax),
        Case("cupyx_uniform_filter", "cupy", "cupyx.scipy.ndimage.uniform_filter size 5, 4096^2 float32",
             _cupyx_uniform_filter),
        Case("softmax_thread_per_row", "raw", "softmax, one thread per row of 256, 2^16 rows", _softmax_thread_per_row),
        Case("softmax_warp_per_row", "raw", "softmax, one warp per row of 1024 in registers, 2^14 rows",
             _softmax_warp_per_row),
        Case("layer_norm", "raw", "layer norm, one block per row of 4096 in registers, 2^14 rows", _layer_norm),
        Case("histogram_global_atomics", "raw", "256-bin histogram of 2^26 skewed bytes, global atomics",
             _histogram("global")),
        Case("histogram_shared_atomics", "raw", "the same histogram, per-block bins in shared memory",
             _histogram("shared")),
        Case("stencil_5pt", "raw", "5-point Jacobi step, 8192^2 float32", _stencil),
        Case("nbody", "raw", "n-body accelerations, 2^17 bodies, shared-memory tiles", _nbody),
        Case("reduce_shuffle", "raw", "sum of 2^26 float32, float4 grid-stride, warp shuffles, one atomic per block",
             _reduce_shuffle),
        Case("torch_mlp_train_step", "apps", f"PyTorch training step: MLP {MLP_WIDTH}-{MLP_HIDDEN}-{MLP_WIDTH} "
             f"with layer norm, batch {MLP_BATCH}, bf16 autocast, fused AdamW", _torch_train_step),
        Case("torch_attention", "apps", f"scaled_dot_product_attention bf16 {ATTENTION_SHAPE} (cuDNN or flash)",
             _torch_attention),
        Case("numba_fma_roof", "apps", "Numba FP32 FMA, eight chains per thread, 132 x 16 blocks of 256",
             _numba("fma_eight_chains")),
        Case("numba_double_constants", "apps", "Numba float32 loop with Python float constants (FP64 and F2F)",
             _numba("damp_with_double_constants")),
        Case("cupy_edge_pipeline", "apps", "CuPy edge detection on 4096^2 float32: blur, Sobel, hypot, threshold",
             _cupy_edge_pipeline),
    ]
    for exercise_id in EXERCISE_IDS:
        for solved in (False, True):
            kind = "solution" if solved else "skeleton"
            out.append(Case(f"ex_{exercise_id.replace('-', '_')}_{kind}", "exercises",
                            f"exercise {exercise_id}, {kind}", _exercise(exercise_id, solved)))
    return out
