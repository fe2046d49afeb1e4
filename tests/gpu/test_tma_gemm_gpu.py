"""Issue 33's TMA steps on a real Hopper GPU, before a recording relies on them: every TMA kernel of
labkit.kernels.gemm_cuda right against cuBLAS in its precision (chapter 6's tolerance,
labkit.kernels.gemm_accuracy) on a non-square shape whose tile rows end in a partial group and
whose persistent CTAs walk several tiles, its output poisoned first; and the lab's two steps
through the lab's own operands and launchers against NumPy (the lab's check).

Run on the H200: ``pytest -m gpu tests/gpu/test_tma_gemm_gpu.py`` (seconds). The timings are
tests/gpu/tma_gemm_check.py's.
"""

from __future__ import annotations

import pytest

from labkit.kernels import gemm_accuracy, gemm_cublas, gemm_cuda
from tests.gpu.tma_gemm_check import gemm_operands

pytestmark = pytest.mark.gpu

#: 1536 x 1280 x 320: 12 (6) tile rows of 128 (256), groups of 8 rows, 5 or 10 tile columns, 5 slices
#: of K; 60 tiles of 128 x 256 on 30 clusters; with 132 SMs, a persistent CTA walks one tile here, so
#: 4096 x 4096 x 512 too: 512 tiles, 3 or 4 per CTA.
SHAPES = ((1536, 1280, 320), (4096, 4096, 512))
TMA_KERNELS = sorted(n for n, k in gemm_cuda.KERNELS.items() if k.module == "tma")


@pytest.fixture
def hopper():   # function scope: after conftest's skip where there is no CUDA GPU
    import cupy

    if cupy.cuda.Device().compute_capability != "90":
        pytest.skip("the TMA kernels are compiled for sm_90a (Hopper)")


@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("precision", ["fp16", "bf16"])
def test_every_tma_kernel_agrees_with_cublas(hopper, shape, precision, record):
    import cupy as cp

    m, n, k = shape
    a, b, bt, as32 = gemm_operands(m, n, k, precision, cp.random.default_rng(33))
    reference = cp.empty((m, n), dtype=a.dtype)
    gemm_cublas.gemm(a, b, reference, precision)
    abs_product = cp.abs(as32(a)) @ cp.abs(as32(b))
    worst = {}
    for name in TMA_KERNELS:
        if gemm_cuda.KERNELS[name].precision != precision:
            continue
        c = cp.full((m, n), cp.nan if precision == "fp16" else 0x7FC0, dtype=a.dtype)   # poisoned
        gemm_cuda.launch(name, a, bt, c)
        agree = gemm_accuracy.agreement(as32(c), as32(reference), abs_product, k, precision, xp=cp)
        worst[name] = agree.worst_ratio
        assert agree.passed, (name, agree)
    record(f"tma_vs_cublas_{precision}_{m}x{n}x{k}", worst)


def test_the_lab_steps_pass_the_labs_own_check(hopper):
    from labkit.gpu.device import read_device_facts
    from labkit.labs.base import lab
    from labkit.labs.lab06.program import check_against_numpy
    from labkit.labs.lab06.results import ADDED_ITEMS

    failed: dict[str, str] = {}
    checks = check_against_numpy(lab("lab-06").gpu_sizes, read_device_facts(), failed)
    by_name = {c.name: c for c in checks}
    for key in ADDED_ITEMS:
        assert key not in failed, failed.get(key)
        assert by_name[key].passed, by_name[key]
