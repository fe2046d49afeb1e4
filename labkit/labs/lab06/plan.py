"""Which of lab 06's steps can run on a given GPU, and why not where one cannot: pure functions of
the device's facts (labkit.gpu.device.DeviceFacts), so that ``labkit doctor``, the device-matrix test
and the lab itself give the same answer without running a kernel.

What each step needs (the CUDA C sources of labkit.kernels.gemm_cuda compiled by ptxas of CUDA
13.0 for each target: ``nvcc -cubin -arch=sm_75`` refuses ``.m16n8k16``, ``.bf16`` and
``cp.async`` with "requires .target sm_80 or higher"; ``-arch=sm_100a`` and ``-arch=sm_120``
refuse ``wgmma``):

- the Numba steps (1 to 3) and the CUDA C SIMT steps (3c, 4): any GPU the course runs on; their
  tiles are static shared arrays well under the 48 KiB every block may hold;
- WMMA (5a): the WMMA API exists from compute capability 7.0, but this kernel's pipeline copies
  slices with ``cp.async``, which needs 8.0 (Ampere). A variant with synchronous copies for 7.x
  would be a kernel the chapter does not show and the course never measured: not offered;
- ``mma.sync`` (5b FP16, 5c BF16): the ``m16n8k16`` shape with 16-bit inputs, BF16 at all, and
  the ``cp.async`` copies need 8.0 (``ldmatrix`` alone would run on 7.5);
- the Numba step on the tensor cores (5b′, issue 33): ``mma.sync`` ``m16n8k16`` again, in the CUDA C
  function it links (labkit.kernels.gemm_numba_mma), 8.0; its two shared stages fit in 48 KiB;
- ``wgmma`` (5d): the ``sm_90a`` target, Hopper (9.0) only. Blackwell's data-centre parts (10.x,
  11.0) replace it by ``tcgen05.mma``, which multiplies into tensor memory; the GeForce and DGX
  Spark parts (12.x) have neither: their tensor cores are reached by warp-level ``mma.sync``;
- ``tma_ws``, ``tma_persistent``, ``tma`` and ``tma_bf16`` (issue 33): wgmma again, fed by the tensor memory accelerator
  (``cp.async.bulk.tensor``, 9.0 and later) with ``setmaxnreg`` (``sm_90a``): Hopper only, for the
  same reason; each holds 227 KiB less 1 KiB of shared memory per block, all a Hopper block may opt in to;
- each CUDA C step's shared memory (static + dynamic) must fit what a block may opt in to on the
  part (``max_shared_bytes_per_block_optin``: 64 KiB on 7.5, 99 KiB on 8.6, 8.9 and 12.x);
- cuBLAS: SGEMM and FP16 everywhere (FP16 tensor cores since 7.0); TF32 and BF16 need the tensor
  cores of 8.0 (before it, there is no TF32 or BF16 tensor-core rate to measure);
- the Triton peer: what Triton compiles for the GPU; in BF16, the tensor cores of 8.0 again. Whether
  Triton is installed is a fact of the machine, not of the GPU (labkit.kernels.gemm_triton).
"""

from __future__ import annotations

from dataclasses import dataclass

from labkit.gpu.device import DeviceFacts
from labkit.kernels import gemm_cuda, gemm_numba_mma, gemm_simt
from labkit.labs.lab06.results import ITEMS, STEPS, is_peer, step
from labkit.specs.architectures import compute_capability

FLOAT32 = 4

#: Steps whose instructions need Ampere's tensor-core features (compute capability 8.0 on:
#: labkit.specs.architectures.ComputeCapability.ampere_tensor_cores), and why (see the module docstring).
NEEDS_AMPERE = {
    "wmma": "the WMMA API exists from compute capability 7.0, but this kernel's pipeline copies slices with "
            "cp.async, which needs 8.0 (Ampere)",
    "mma": "mma.sync.m16n8k16 with FP16 inputs, and the cp.async copies that feed it, need compute capability "
           "8.0 (Ampere)",
    "bf16": "BF16 inputs to mma.sync, and the cp.async copies that feed it, need compute capability 8.0 (Ampere)",
    "numba_mma": "mma.sync.m16n8k16 with FP16 inputs, which its linked CUDA C function issues, needs compute "
                 "capability 8.0 (Ampere)",
    "cublas_tf32": "TF32 tensor cores appear with compute capability 8.0 (Ampere), so there is no TF32 rate to "
                   "measure",
    "cublas_bf16": "BF16 tensor cores appear with compute capability 8.0 (Ampere), and no step runs in BF16 "
                   "without them",
    "triton_bf16": "BF16 tensor cores appear with compute capability 8.0 (Ampere), so Triton's BF16 GEMM has none "
                   "to run on",
}


#: The steps compiled for the sm_90a target (wgmma; the TMA steps' setmaxnreg and copies too).
SM90A_STEPS = frozenset(s.key for s in STEPS if s.language == "cuda"
                        and gemm_cuda.KERNELS[s.kernel].module in gemm_cuda.SM90A_MODULES)


@dataclass(frozen=True)
class StepLaunch:
    """One step's kernel launched at side x side x depth: its grid (x, y), threads per block, and
    shared memory per block, static and dynamic."""

    key: str
    grid: tuple[int, int]
    threads: int
    static_shared_bytes: int
    dynamic_shared_bytes: int


def numba_shared_bytes(kernel: str) -> int:
    """The static shared arrays of a Numba step (labkit.kernels.gemm_simt), in bytes."""
    s = gemm_simt
    return FLOAT32 * {"gemm_naive": 0,
                      "gemm_shared": 2 * s.TILE * s.TILE,
                      "gemm_shared_padded": s.TILE * s.TILE_PADDED + s.TILE * s.TILE,
                      "gemm_regtile": s.RT_BK * s.RT_A_ROW + s.RT_BK * s.RT_BN,
                      "gemm_pipelined": s.PL_A_FLOATS + s.PL_B_FLOATS}[kernel]


def tile_of(item: str) -> int:
    """The side of the tile of C a kernel needs M and N to be multiples of (cuBLAS and the peers,
    which mask their edges: 1)."""
    if item.startswith("cublas_") or is_peer(item):
        return 1
    s = step(item)
    if s.language == "numba":
        return gemm_simt.TILE_OF[s.kernel]
    if s.language == "numba_linked":
        return max(gemm_numba_mma.BM, gemm_numba_mma.BN)
    spec = gemm_cuda.KERNELS[s.kernel]
    return max(spec.tile_m * spec.cluster_m, spec.tile_n)


def fitted_side(item: str, side: int) -> int:
    """The side a kernel runs at for a requested ``side``: the smallest multiple of its tile of C
    that is at least ``side`` (on a GPU the lab's sizes are multiples of every tile and this is
    ``side``; in the simulator the register-tiled step needs 128 where the others run at 32)."""
    tile = tile_of(item)
    return -(-side // tile) * tile


def launch(key: str, side: int, depth: int, sm_count: int | None = None) -> StepLaunch:
    """How a step's kernel is launched for C side x side, K = depth (its grid is that of its host
    wrapper: labkit.kernels.gemm_simt's launch shapes, gemm_cuda.Kernel.grid; a persistent kernel's,
    one block per SM, needs the GPU's ``sm_count``)."""
    s = step(key)
    if s.language == "numba":
        grid, block = gemm_simt.STEPS[s.kernel][1](side, side, depth)
        threads = block if isinstance(block, int) else block[0] * block[1]
        return StepLaunch(key, (grid[0], grid[1]), threads, numba_shared_bytes(s.kernel), 0)
    if s.language == "numba_linked":
        grid, block = gemm_numba_mma.launch_shape(side, side, depth)
        return StepLaunch(key, (grid[0], 1), block[0], gemm_numba_mma.SHARED_BYTES, 0)
    spec = gemm_cuda.KERNELS[s.kernel]
    return StepLaunch(key, (spec.grid(side, side, depth, sm_count)[0], 1), spec.threads, spec.static_shared_bytes,
                      spec.dynamic_shared_bytes)


def why_not_on(item: str, facts: DeviceFacts) -> str | None:
    """Why a step (by key), ``cublas_<precision>`` or a peer cannot run on this GPU, in one line; None if it can."""
    arch = compute_capability(facts.compute_capability)
    label = arch.label
    if item in SM90A_STEPS and not arch.wgmma:
        why = f"wgmma exists only on Hopper (the sm_90a target, compute capability 9.0); this GPU is {label}"
        if arch.tcgen05:
            return why + ": Blackwell's tensor cores take tcgen05.mma instead, into tensor memory, which this lab " \
                         "does not implement"
        if arch.generation == "Blackwell":
            return why + ": it has neither wgmma nor tcgen05, and reaches its tensor cores by mma.sync (step 5b)"
        return why
    if item in NEEDS_AMPERE and not arch.ampere_tensor_cores:
        return f"{NEEDS_AMPERE[item]}; this GPU is {label}"
    if not item.startswith("cublas_") and not is_peer(item) and step(item).language == "cuda":
        needed = gemm_cuda.KERNELS[step(item).kernel].shared_bytes
        if needed > facts.max_shared_bytes_per_block_optin:
            return (f"its kernel holds {needed / 1024:.1f} KiB of shared memory per block; a block may opt in to "
                    f"{facts.max_shared_bytes_per_block_optin / 1024:.0f} KiB on this GPU")
    return None


def not_on(facts: DeviceFacts) -> dict[str, str]:
    """Every item that cannot run on this GPU, and why (in the lab's order)."""
    return {item: why for item in ITEMS if (why := why_not_on(item, facts)) is not None}
