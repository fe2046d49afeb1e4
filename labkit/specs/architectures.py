"""What the course knows of each compute capability, in one table: one :class:`ComputeCapability`
per version, every other module's per-architecture figure read from it.

Pure data, standard library only. Each column cites its source:

- *Guide*: CUDA C++ Programming Guide: "Throughput of Native Arithmetic Instructions" (FP32 and
  FP64 add, multiply, multiply-add results per clock per SM: the lanes), "Technical Specifications
  per Compute Capability" (resident threads and blocks per SM), and the "Shared Memory" section of
  each of 7.x to 12.x (the capacities an SM's shared memory can be set to).
- *Header*: ``cuda_occupancy.h`` of CUDA 13.5 (cudaOccMaxBlocksPerMultiprocessor: the same resident
  threads and blocks; cudaOccAlignUpShmemSizeVoltaPlus: the same capacities), and libcu++'s
  ``cuda::arch_traits`` (CCCL, ``cuda/__device/arch_traits.h``), which agrees with both.
- *Whitepapers*: NVIDIA's architecture whitepapers and datasheets (the largest die's SMs, the
  fastest DRAM shipped). The tensor cores' dense rates: the NVIDIA A100 Tensor Core GPU Architecture
  whitepaper (each of an A100 SM's 4 tensor cores does 256 FP16 FMA per clock: 1 024 FMA, 2 048 FLOP
  per SM per clock; TF32 half of it; FP64 DMMA 64 FMA, 128 FLOP per SM per clock, 19.5 TFLOP/s on 108
  SMs at 1 410 MHz) and the NVIDIA H100 Tensor Core GPU Architecture whitepaper (an H100 SM does
  twice A100's dense MMA per clock for FP16, BF16, TF32 and FP64, and FP8 at twice FP16). FP16 inputs
  with FP32 accumulation run at the FP16 rate on these data-centre parts (not on GeForce parts, which
  the table leaves out). Sparse (2:4) rates, twice these, are not counted: a dense product cannot use
  them.
- *PTX ISA* and ptxas of CUDA 13.0 for the tensor-core instructions lab 06 needs
  (labkit.labs.lab06.plan says which step needs which).

What every compute capability here shares (32-thread warps, 64K registers...) and what follows
from the major version is occupancy's rule, in :mod:`labkit.models.occupancy`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class ComputeCapability:
    """One compute capability's facts, each column from the source the module docstring names."""

    version: tuple[int, int]
    #: The architecture and its best-known parts, as the occupancy calculator titles it.
    name: str
    #: Its generation, as lab 06 names it in a reason ("Blackwell" for 10.x to 12.x).
    generation: str
    #: The GPUs the in-page occupancy calculator offers for it (NVIDIA's names).
    calculator_gpus: str
    #: Guide, arithmetic throughput: FP32 and FP64 (non-tensor) lanes per SM. FP64 is half the FP32
    #: lanes on the data-centre parts of 7.0, 8.0, 9.0 and 10.0 (1:2), two on all others (1:64 on 8.6
    #: to 12.x, 1:32 on 7.5), Blackwell Ultra (10.3) included: the B300's datasheet gives 1.25 TFLOPS
    #: of FP64 for 160 SMs, two lanes each. No datasheet gives Jetson Thor's (11.0): two, as on every
    #: part that is not a data-centre 7.0/8.0/9.0/10.0 (lab 01 measures it).
    fp32_lanes_per_sm: int
    fp64_lanes_per_sm: int
    #: Guide and Header: resident threads and blocks per SM, and the shared-memory capacities an SM
    #: can be set to (KiB; the largest is the SM's shared memory).
    threads_per_sm: int
    blocks_per_sm: int
    shared_carveouts_kib: tuple[int, ...]
    #: Whitepapers and datasheets: the largest die's SMs and the fastest DRAM shipped with any part of
    #: it (10^9 bytes/s), which bound a record from a part without a datasheet (labkit.records.plausibility).
    max_sm_count: int
    max_dram_gbps: float
    largest_parts: str
    #: PTX ISA: the tensor-core features that appear with 8.0 (Ampere) and every later part:
    #: ``mma.sync.m16n8k16`` with FP16 or BF16 inputs, TF32 and BF16 rates, ``cp.async``.
    ampere_tensor_cores: bool
    #: ``wgmma`` and the ``sm_90a`` target (with ``setmaxnreg`` and the TMA's bulk tensor copies):
    #: Hopper (9.0) only (ptxas refuses wgmma for ``sm_100a`` and ``sm_120``).
    wgmma: bool
    #: ``tcgen05.mma``, which multiplies into tensor memory: Blackwell's data-centre parts and Thor.
    tcgen05: bool
    #: Whitepapers: dense tensor-core FLOP per clock per SM (2 per FMA) by input precision; empty
    #: where the course has no rate.
    dense_tensor_flops_per_clock: Mapping[str, int] = field(default_factory=dict, hash=False)

    @property
    def label(self) -> str:
        """'9.0', as the driver and the course write a compute capability."""
        return f"{self.version[0]}.{self.version[1]}"


#: The shared-memory capacities an SM can be set to (KiB), shared by several compute capabilities.
_VOLTA = (0, 8, 16, 32, 64, 96)
_TURING = (32, 64)
_GA100 = (0, 8, 16, 32, 64, 100, 132, 164)             # 8.0 and 8.7
_GA10X = (0, 8, 16, 32, 64, 100)                       # 8.6, 8.9, 12.x
_HOPPER = (0, 8, 16, 32, 64, 100, 132, 164, 196, 228)  # 9.0, 10.0, 10.3, 11.0


def _cc(version, name, generation, calculator_gpus, *, fp32, fp64, threads, blocks, carveouts, max_sms,
        max_dram_gbps, largest, ampere=True, wgmma=False, tcgen05=False, tensor=None) -> ComputeCapability:
    return ComputeCapability(
        version=version, name=name, generation=generation, calculator_gpus=calculator_gpus,
        fp32_lanes_per_sm=fp32, fp64_lanes_per_sm=fp64, threads_per_sm=threads, blocks_per_sm=blocks,
        shared_carveouts_kib=carveouts, max_sm_count=max_sms, max_dram_gbps=max_dram_gbps, largest_parts=largest,
        ampere_tensor_cores=ampere, wgmma=wgmma, tcgen05=tcgen05, dense_tensor_flops_per_clock=tensor or {})


#: Every compute capability the course knows, from 7.0 to 12.1: those ``cuda_occupancy.h`` of CUDA
#: 13.5 knows (its ``__CUDA_OCC_MAJOR__``.``__CUDA_OCC_MINOR__``), in order.
COMPUTE_CAPABILITIES: dict[tuple[int, int], ComputeCapability] = {cc.version: cc for cc in (
    _cc((7, 0), "Volta (V100)", "Volta", "V100", fp32=64, fp64=32, threads=2048, blocks=32, carveouts=_VOLTA,
        max_sms=84, max_dram_gbps=1_134.0, largest="GV100 (84 SMs); V100S PCIe 1 134 GB/s", ampere=False),
    _cc((7, 5), "Turing (T4, RTX 20)", "Turing", "T4 / RTX 2080", fp32=64, fp64=2, threads=1024, blocks=16,
        carveouts=_TURING, max_sms=72, max_dram_gbps=672.0,
        largest="TU102 (72 SMs); TITAN RTX / Quadro RTX 8000 672 GB/s", ampere=False),
    _cc((8, 0), "Ampere (A100, A30)", "Ampere", "A100", fp32=64, fp64=32, threads=2048, blocks=32, carveouts=_GA100,
        max_sms=128, max_dram_gbps=2_039.0, largest="GA100 (128 SMs); A100 SXM4 80 GB 2 039 GB/s",
        tensor={"fp16": 2048, "bf16": 2048, "tf32": 1024, "fp64": 128}),
    _cc((8, 6), "Ampere (A10, A10G, RTX 30)", "Ampere", "RTX 3060 / 3090, A10G", fp32=128, fp64=2, threads=1536,
        blocks=16, carveouts=_GA10X, max_sms=84, max_dram_gbps=1_008.0,
        largest="GA102 (84 SMs); RTX 3090 Ti 1 008 GB/s"),
    _cc((8, 7), "Ampere (Jetson Orin)", "Ampere", "Jetson Orin", fp32=128, fp64=2, threads=1536, blocks=16,
        carveouts=_GA100, max_sms=16, max_dram_gbps=204.8, largest="Jetson AGX Orin (16 SMs, 204.8 GB/s)"),
    _cc((8, 9), "Ada (L4, L40S, RTX 40)", "Ada", "L4 / RTX 4090", fp32=128, fp64=2, threads=1536, blocks=24,
        carveouts=_GA10X, max_sms=144, max_dram_gbps=1_008.0, largest="AD102 (144 SMs); RTX 4090 1 008 GB/s"),
    _cc((9, 0), "Hopper (H100, H200)", "Hopper", "H100 / H200", fp32=128, fp64=64, threads=2048, blocks=32,
        carveouts=_HOPPER, max_sms=144, max_dram_gbps=4_890.0,
        largest="GH100 (144 SMs); H200 NVL 4.8 TB/s, GH200 144 GB 4.9 TB/s", wgmma=True,
        tensor={"fp16": 4096, "bf16": 4096, "tf32": 2048, "fp8": 8192, "fp64": 256}),
    _cc((10, 0), "Blackwell (B200, GB200)", "Blackwell", "B200", fp32=128, fp64=64, threads=2048, blocks=32,
        carveouts=_HOPPER, max_sms=160, max_dram_gbps=8_000.0, largest="GB100 (2 x 80 SMs); B200 8 TB/s",
        tcgen05=True),
    _cc((10, 3), "Blackwell Ultra (B300, GB300)", "Blackwell", "B300", fp32=128, fp64=2, threads=2048, blocks=32,
        carveouts=_HOPPER, max_sms=160, max_dram_gbps=8_000.0, largest="GB110 (2 x 80 SMs); B300 8 TB/s",
        tcgen05=True),
    _cc((11, 0), "Blackwell (Jetson Thor)", "Blackwell", "Jetson Thor", fp32=128, fp64=2, threads=1536, blocks=24,
        carveouts=_HOPPER, max_sms=20, max_dram_gbps=273.0, largest="Jetson AGX Thor (20 SMs, 273 GB/s)",
        tcgen05=True),
    _cc((12, 0), "Blackwell (RTX 50, RTX PRO)", "Blackwell", "RTX 5090", fp32=128, fp64=2, threads=1536, blocks=24,
        carveouts=_GA10X, max_sms=192, max_dram_gbps=1_792.0, largest="GB202 (192 SMs); RTX 5090 1 792 GB/s"),
    _cc((12, 1), "Blackwell (DGX Spark, GB10)", "Blackwell", "DGX Spark", fp32=128, fp64=2, threads=1536, blocks=24,
        carveouts=_GA10X, max_sms=48, max_dram_gbps=273.0, largest="GB10, DGX Spark (48 SMs, 273 GB/s)"),
)}


def compute_capability(version: tuple[int, int]) -> ComputeCapability:
    """The facts of a compute capability; a one-line error naming this file for one it lacks."""
    try:
        return COMPUTE_CAPABILITIES[tuple(version)]
    except KeyError:
        major, minor = version
        known = ", ".join(cc.label for cc in COMPUTE_CAPABILITIES.values())
        raise ValueError(f"compute capability {major}.{minor}: labkit knows {known} "
                         "(add it to labkit/specs/architectures.py)") from None
