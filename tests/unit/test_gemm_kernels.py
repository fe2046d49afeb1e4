"""Chapter 6's kernels off the GPU: the Numba steps in the simulator against NumPy, the CUDA C
wrappers' launch arithmetic, the accuracy rule both ways, and the CUDA C sources through nvcc
where it is installed (registers and spills as ptxas reports them)."""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

from labkit.calibration import gemm_probe
from labkit.gpu import cuda, nan_device_array
from labkit.kernels import gemm_accuracy, gemm_cublas, gemm_cuda, gemm_simt


def _inputs(m, n, k, seed=0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-1, 1, (m, k)).astype(np.float32), rng.uniform(-1, 1, (k, n)).astype(np.float32)


@pytest.mark.parametrize("name, shape", [
    ("gemm_naive", (40, 72, 24)),          # not multiples of the block: the edge guards
    ("gemm_shared", (64, 32, 64)),
    ("gemm_shared_padded", (32, 64, 64)),
    ("gemm_regtile", (128, 128, 16)),
])
def test_numba_steps_match_numpy(name, shape):
    m, n, k = shape
    a, b = _inputs(m, n, k)
    c = nan_device_array((m, n))
    gemm_simt.launch(name, cuda.to_device(a), cuda.to_device(b), c)
    result = c.copy_to_host()
    reference = gemm_simt.gemm_reference(a, b)
    abs_product = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    assert gemm_accuracy.agreement(result, reference, abs_product, k, "fp32").passed


def test_launch_shapes_refuse_sizes_the_kernels_do_not_guard():
    assert gemm_simt.naive_launch(40, 72) == ((3, 5), (32, 8))
    with pytest.raises(ValueError, match="multiples of 32"):
        gemm_simt.shared_launch(64, 48, 64)
    with pytest.raises(ValueError, match="multiples of 128"):
        gemm_simt.regtile_launch(128, 128, 12)
    with pytest.raises(ValueError, match="shapes do not chain"):
        gemm_simt.launch("gemm_naive", np.zeros((4, 5), np.float32), np.zeros((4, 5), np.float32),
                         np.zeros((4, 5), np.float32))


def test_cuda_kernels_grid_and_shared_memory():
    for spec in gemm_cuda.KERNELS.values():   # every kernel's shared memory fits what a block may opt in to
        assert spec.dynamic_shared_bytes <= 227 * 1024, spec.name
    mma = gemm_cuda.KERNELS["hgemm_mma_128x256"]
    assert mma.grid(8192, 8192, 8192) == (64 * 32,)
    # 4 stages x (128 x 40 + 32 x 264) halves x 2 bytes: under the 227 KiB a block may opt in to
    assert mma.dynamic_shared_bytes == 4 * (128 * 40 + 32 * 264) * 2 <= 227 * 1024
    assert gemm_cuda.KERNELS["sgemm_pipelined"].grid(4096, 4096, 4096) == (1024,)
    with pytest.raises(ValueError, match="N of 256"):
        mma.grid(4096, 4096 + 128, 4096)
    with pytest.raises(ValueError, match="no CUDA C module"):
        gemm_cuda.options("nope")
    wgmma = gemm_cuda.KERNELS["hgemm_wgmma_128x256"]
    assert wgmma.name in gemm_cuda.TAKES_B_TRANSPOSED and wgmma.k_step == 64


_WARPTILE = re.compile(r"__launch_bounds__\((\d+), (\d+)\)\n(\w+)\([^)]*\)\n\{\n\s+sgemm_warptile<([\d, ]+)>")


def test_warptile_instantiations_agree_with_their_kernel_entries():
    # the lab's planning reads the tile, threads and shared bytes from KERNELS: they must be the
    # template's, BM = WARPS_M x TM x (32 / LN), BN = WARPS_N x TN x LN, 32 x WARPS_M x WARPS_N threads
    found = _WARPTILE.findall(gemm_cuda.SIMT_SOURCE)
    assert {name for *_, name, _ in found} == {"sgemm_warptile", "sgemm_warptile_128x256"}
    for threads, _blocks, name, args in found:
        bm, bn, bk, warps_m, warps_n, tm, tn, ln = (int(x) for x in args.split(","))
        spec = gemm_cuda.KERNELS[name]
        assert (spec.tile_m, spec.tile_n, spec.k_step) == (bm, bn, bk) == (warps_m * tm * (32 // ln), warps_n * tn * ln, bk)
        assert spec.threads == int(threads) == 32 * warps_m * warps_n
        # two buffers of BK x ((BM + 4 floats of padding) + BN) floats, static: under the 48 KiB limit
        assert spec.static_shared_bytes == 2 * bk * (bm + 4 + bn) * 4 <= 48 * 1024
        assert spec.dynamic_shared_bytes == 0 and spec.precision == "fp32"


_CPASYNC = re.compile(r"__launch_bounds__\((\d+), (\d+)\)\s*(sgemm_cpasync\w*)\(.*?\{\s*sgemm_cpasync<([^>]*)>", re.DOTALL)


def test_cpasync_instantiations_agree_with_their_kernel_entries():
    # tile, threads and dynamic shared bytes of the KERNELS entries are the template's: BM = WARPS_M x
    # TM x LM, BN = WARPS_N x TN x (32 / LM), STAGES x (BK x (BM + 4) + BK x BN) floats (A k-major)
    found = _CPASYNC.findall(gemm_cuda.SIMT_SOURCE)
    assert {name for *_, name, _ in found} == {"sgemm_cpasync_256x128", "sgemm_cpasync_256x128_8x16"}
    for threads, _blocks, name, args in found:
        bm, bn, bk, warps_m, warps_n, tm, tn, lm, stages = (int(x) for x in args.split(",")[:9])
        assert args.split(",")[9].strip() == "false"
        spec = gemm_cuda.KERNELS[name]
        assert (spec.tile_m, spec.tile_n, spec.k_step) == (bm, bn, bk) == (warps_m * tm * lm, warps_n * tn * (32 // lm), bk)
        assert spec.threads == int(threads) == 32 * warps_m * warps_n
        assert spec.dynamic_shared_bytes == stages * bk * (bm + 4 + bn) * 4 and spec.static_shared_bytes == 0


def test_warptile_kernels_refuse_sizes_that_are_not_multiples_of_their_tiles():
    wide = gemm_cuda.KERNELS["sgemm_warptile_128x256"]
    assert wide.grid(8192, 8192, 8192) == (64 * 32,)
    assert gemm_cuda.KERNELS["sgemm_warptile"].grid(4096, 4096 + 128, 4096) == (32 * 33,)
    with pytest.raises(ValueError, match="N of 256"):
        wide.grid(4096, 4096 + 128, 4096)
    with pytest.raises(ValueError, match="K of 8"):
        wide.grid(4096, 4096, 4100)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
def test_simt_static_shared_memory_is_what_ptxas_allocates(tmp_path):
    source = tmp_path / "simt.cu"
    source.write_text(gemm_cuda.SIMT_SOURCE)
    done = subprocess.run(["nvcc", "-cubin", "-arch=sm_90", "-std=c++17", "-Xptxas", "-v", str(source),
                           "-o", str(tmp_path / "out.cubin")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    # one block of ptxas's report per entry; an entry without static shared memory names no smem
    blocks = re.split(r"Compiling entry function '", done.stdout + done.stderr)[1:]
    smem = {block.split("'")[0]: re.search(r"(\d+) bytes smem", block) for block in blocks}
    assert {name: int(m.group(1)) if m else 0 for name, m in smem.items()} == \
        {name: k.static_shared_bytes for name, k in gemm_cuda.KERNELS.items() if k.module == "simt"}


def test_every_mma_variant_is_declared_in_the_source():
    declared = set(re.findall(r"^MMA_VARIANT\((\w+),", gemm_cuda.MMA_SOURCE, re.MULTILINE))
    assert declared == {name for name, k in gemm_cuda.KERNELS.items() if k.module == "mma"}


def test_the_wgmma_instruction_names_every_accumulator():
    text = gemm_cuda._wgmma_instruction(256, "fp16")
    assert "m64n256k16.f32.f16.f16" in text and '"+f"(d[127])' in text and "%130" in text


def test_cublas_row_major_call_swaps_the_operands():
    # C (m x n) = A (m x k) B (k x n) row-major is C^T = B^T A^T column-major
    assert gemm_cublas.row_major_arguments(2, 3, 5) == {"m": 3, "n": 2, "k": 5, "lda": 3, "ldb": 5, "ldc": 3}


def test_tolerance_passes_fp32_rounding_and_fails_a_missing_slice():
    a, b = _inputs(64, 64, 4096, seed=1)
    exact = a.astype(np.float64) @ b.astype(np.float64)
    abs_product = np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)
    fp32 = np.zeros((64, 64), np.float32)
    for k0 in range(0, 4096, 8):  # FP32 accumulation in slices, as the kernels do
        fp32 += a[:, k0:k0 + 8] @ b[k0:k0 + 8, :]
    assert gemm_accuracy.agreement(fp32, exact, abs_product, 4096, "fp32").passed
    missing = fp32 - a[:, 8:16] @ b[8:16, :]  # one slice of 8 forgotten
    verdict = gemm_accuracy.agreement(missing, exact, abs_product, 4096, "fp32")
    assert not verdict.passed and verdict.worst_ratio > 5
    poisoned = fp32.copy()
    poisoned[3, 3] = np.nan
    assert not gemm_accuracy.agreement(poisoned, exact, abs_product, 4096, "fp32").passed


def test_tolerance_of_fp16_output_covers_its_rounding_only():
    a, b = _inputs(32, 32, 1024, seed=2)
    a16, b16 = a.astype(np.float16), b.astype(np.float16)
    exact = a16.astype(np.float64) @ b16.astype(np.float64)
    abs_product = np.abs(a16).astype(np.float64) @ np.abs(b16).astype(np.float64)
    rounded = exact.astype(np.float16).astype(np.float32)
    assert gemm_accuracy.agreement(rounded, exact, abs_product, 1024, "fp16").passed
    # a half-precision accumulation (rounding every partial sum to FP16) is not FP32 accumulation
    acc = np.zeros((32, 32), np.float16)
    for k0 in range(1024):
        acc = (acc + np.outer(a16[:, k0], b16[k0, :]).astype(np.float16)).astype(np.float16)
    assert not gemm_accuracy.agreement(acc.astype(np.float32), exact, abs_product, 1024, "fp16").passed



def _truncating_accumulation(a, b):
    """C = A B accumulated in FP32 rounding toward zero after every term (the worst case of the
    tensor cores' truncating accumulation, which rounds once per block of terms)."""
    acc = np.zeros((a.shape[0], b.shape[1]), np.float32)
    for k in range(a.shape[1]):
        exact = acc.astype(np.float64) + np.outer(a[:, k].astype(np.float64), b[k, :].astype(np.float64))
        rounded = exact.astype(np.float32)
        away = np.abs(rounded.astype(np.float64)) > np.abs(exact)
        rounded[away] = np.nextafter(rounded[away], np.float32(0))
        acc = rounded
    return acc


def test_tolerance_covers_a_truncating_accumulation_with_room():
    """The tolerance's accumulation term assumes errors of mean zero; truncation is not. An
    accumulation truncated at every one of 4096 terms must still use a small part of that term
    (under a quarter), and pass the FP16 check once rounded to FP16."""
    a, b = _inputs(32, 32, 4096, seed=3)
    a16, b16 = a.astype(np.float16).astype(np.float32), b.astype(np.float16).astype(np.float32)
    exact = a16.astype(np.float64) @ b16.astype(np.float64)
    abs_product = np.abs(a16).astype(np.float64) @ np.abs(b16).astype(np.float64)
    acc = _truncating_accumulation(a16, b16)
    rounding = gemm_accuracy.ROUNDINGS["fp16"]
    accumulation_term = 2 * gemm_accuracy.LAMBDA * np.sqrt(4096) * rounding.u_acc * abs_product
    assert np.max(np.abs(acc - exact) / accumulation_term) < 0.25
    output = acc.astype(np.float16).astype(np.float32)
    assert gemm_accuracy.agreement(output, exact, abs_product, 4096, "fp16").passed


def test_mma_shared_memory_roof_arithmetic():
    """A 64 x 64 warp tile feeds the tensor cores exactly one SM-clock of FP16 work per wavefront
    (4096 FLOP, labkit.models.tensor_cores); the block's cp.async copies take a third of that away."""
    from labkit.models import workloads
    from labkit.models.tensor_cores import dense_flops_per_clock_per_sm

    assert workloads.mma_warp_flops_per_wavefront(64, 64) == dense_flops_per_clock_per_sm((9, 0), "fp16")
    assert workloads.mma_warp_flops_per_wavefront(32, 64) == pytest.approx(4096 * 2 / 3)
    # 128 x 128 block of 2 x 2 warps: per k, 256 elements written, 4 x 128 read: 2/3 of the warp's
    assert workloads.mma_block_flops_per_wavefront(128, 128, 64, 64) == pytest.approx(4096 * 2 / 3)
    # one warp owning the whole block: no element read twice, writes cost half as much as reads
    assert workloads.mma_block_flops_per_wavefront(64, 64, 64, 64) == pytest.approx(4096 / 2)
    with pytest.raises(ValueError, match="does not divide"):
        workloads.mma_block_flops_per_wavefront(128, 128, 48, 64)


SASS = """
        Function : sgemm_pipelined
        /*0000*/                   LDC R1, c[0x0][0x28] ;
        /*0010*/              @!P0 LDG.E.128 R4, desc[UR4][R2.64] ;
        /*0020*/                   FFMA R8, R4, R5, R8 ;
        /*0030*/                   FFMA R9, R4, R6, R9 ;
        Function : hgemm_wmma
        /*0000*/                   HMMA.16816.F32 R4, R8, R12, R4 ;
"""


def test_probe_parsers_and_plan():
    assert gemm_probe.sass_opcodes(SASS) == {"sgemm_pipelined": {"FFMA": 2, "LDC": 1, "LDG.E.128": 1},
                                             "hgemm_wmma": {"HMMA.16816.F32": 1}}
    log = ("ptxas info    : Compiling entry function 'sgemm_regtile' for 'sm_90'\n"
           "    0 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads\n"
           "ptxas info    : Used 123 registers, used 1 barriers, 8320 bytes smem\n")
    assert gemm_probe.ptxas_resources(log) == {"sgemm_regtile": {
        "stack_bytes": 0, "spill_store_bytes": 8, "spill_load_bytes": 4, "registers": 123}}
    assert gemm_probe.repeats_for(0.2) == (2, 5)
    assert gemm_probe.repeats_for(0.001) == (5, 30)
    assert gemm_probe.timing_plan({"slow": 0.1, "fast": 0.003}) == [("slow", 4096), ("fast", 4096), ("fast", 8192)]
    assert [gemm_probe.precision_of(s) for s in ("gemm_naive", "hgemm_wmma", "bgemm_mma_128x256")] == \
        ["fp32", "fp16", "bf16"]


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed")
@pytest.mark.parametrize("module_name", sorted(gemm_cuda.SOURCES))
def test_cuda_sources_compile_for_hopper_without_spills(module_name, tmp_path):
    source = tmp_path / f"{module_name}.cu"
    source.write_text(gemm_cuda.SOURCES[module_name])
    flags = [o for o in gemm_cuda.options(module_name) if o.startswith(("-D", "-std", "-I"))]
    target = "-gencode=arch=compute_90a,code=sm_90a" if module_name in gemm_cuda.SM90A_MODULES else "-arch=sm_90"
    done = subprocess.run(["nvcc", "-cubin", target, "-lineinfo", *flags, "-Xptxas", "-v", str(source),
                           "-o", str(tmp_path / "out.cubin")], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    resources = gemm_probe.ptxas_resources(done.stdout + done.stderr)
    expected = {name for name, k in gemm_cuda.KERNELS.items() if k.module == module_name}
    assert set(resources) == expected
    for name, r in resources.items():
        assert r["spill_store_bytes"] == 0 and r["spill_load_bytes"] == 0, (name, r)



def test_bf16_bits_round_to_nearest_even_and_come_back_exactly():
    x = np.array([1.0, 1.0 + 2.0**-8, 1.0 + 3 * 2.0**-8, -2.5, 0.0], np.float32)
    bits = gemm_cublas.bf16_bits(x)
    # 1 + 2^-8 is halfway between 1 and 1 + 2^-7: ties go to the even mantissa (1.0); 1 + 3 * 2^-8 rounds up
    assert bits.tolist() == [0x3F80, 0x3F80, 0x3F82, 0xC020, 0x0000]
    assert gemm_cublas.from_bf16_bits(bits).tolist() == [1.0, 1.0, 1.0 + 2.0**-6, -2.5, 0.0]
