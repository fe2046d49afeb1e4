"""Vendor datasheet figures, the one place the course types them, and the course's GPU.

A :class:`Datasheet` is the manufacturer's numbers for one part (its ``source`` names the
document), with the names the CUDA driver gives that part, so that a results file recorded on it
can be held to them (:mod:`labkit.records.plausibility`). Where the vendor does not state a figure it is
None, never a guess; where the course computes one from the datasheet's own figures, the field's
comment says how. Measured ceilings never live here: they come from results files.

What any part of a compute capability can report, for a GPU without a datasheet (the largest die's
SMs, the fastest memory shipped on it), is a column of :mod:`labkit.specs.architectures`.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Datasheet:
    name: str
    compute_capability: tuple[int, int]
    hbm_gbps: float                # DRAM bandwidth, 10^9 bytes/s (HBM or GDDR: see memory_kind)
    fp32_gflops: float             # plain FP32 (non-tensor) peak at boost_clock_mhz
    fp64_gflops: float | None      # plain FP64 (non-tensor) peak; None where the datasheet does not say
    l2_megabytes: float | None     # L2 capacity as the vendor states it
    sm_count: int                  # SMs enabled on the part
    boost_clock_mhz: float         # the SM clock the FP32 and FP64 peaks assume
    memory_kind: str               # HBM2, HBM2e, HBM3, HBM3e, GDDR6, GDDR6X, GDDR7
    memory_gb: float               # capacity as the vendor states it
    driver_names: tuple[str, ...]  # what cudaGetDeviceProperties().name says on this part
    source: str
    #: The SM clock the vendor's FP16, BF16, TF32 and FP8 tensor-core figures assume, where it is not
    #: boost_clock_mhz (None: the same clock, or no such figure). These datasheets print the 2:4-sparse
    #: rates, twice the dense ones (labkit.models.tensor_cores).
    tensor_clock_mhz: float | None = None

    @property
    def driver_name(self) -> str:
        """The name the driver gives the first variant the sheet lists (its profile's and records' name)."""
        return self.driver_names[0]


def _sheet(name, cc, *, sms, boost, fp32, fp64, hbm, kind, memory_gb, l2, names, source,
           tensor_clock=None) -> Datasheet:
    return Datasheet(name=name, compute_capability=cc, hbm_gbps=hbm, fp32_gflops=fp32, fp64_gflops=fp64,
                     l2_megabytes=l2, sm_count=sms, boost_clock_mhz=boost, memory_kind=kind, memory_gb=memory_gb,
                     driver_names=names, source=source, tensor_clock_mhz=tensor_clock)


T4 = _sheet("T4", (7, 5), sms=40, boost=1590.0, fp32=8_100.0, fp64=None, hbm=320.0, kind="GDDR6", memory_gb=16,
            l2=4.0, names=("Tesla T4",), source="NVIDIA T4 Tensor Core GPU datasheet (2019); SMs and L2: Turing "
            "architecture whitepaper (TU104)")
V100_SXM2 = _sheet("V100 SXM2", (7, 0), sms=80, boost=1530.0, fp32=15_700.0, fp64=7_800.0, hbm=900.0, kind="HBM2",
                   memory_gb=16, l2=6.0, names=("Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB"),
                   source="NVIDIA Tesla V100 GPU Accelerator datasheet; Volta architecture whitepaper")
A100_SXM4_40GB = _sheet("A100 SXM4 40 GB", (8, 0), sms=108, boost=1410.0, fp32=19_500.0, fp64=9_700.0, hbm=1_555.0,
                        kind="HBM2", memory_gb=40, l2=40.0, names=("NVIDIA A100-SXM4-40GB", "NVIDIA A100-PCIE-40GB"),
                        source="NVIDIA A100 Tensor Core GPU datasheet; Ampere GA100 architecture whitepaper")
A100_SXM4_80GB = _sheet("A100 SXM4 80 GB", (8, 0), sms=108, boost=1410.0, fp32=19_500.0, fp64=9_700.0,
                        hbm=2_039.0, kind="HBM2e", memory_gb=80, l2=40.0, names=("NVIDIA A100-SXM4-80GB",),
                        source="NVIDIA A100 Tensor Core GPU datasheet")
A10 = _sheet("A10", (8, 6), sms=72, boost=1695.0, fp32=31_200.0, fp64=None, hbm=600.0, kind="GDDR6", memory_gb=24,
             l2=6.0, names=("NVIDIA A10",), source="NVIDIA A10 Tensor Core GPU datasheet")
#: AWS's variant of the A10 (EC2 G5): the A10's 24 GB of GDDR6 at 600 GB/s, with 80 SMs at 1710 MHz as
#: its driver reports them; NVIDIA publishes no A10G datasheet, so its FP32 peak is SMs x 128 x 2 x clock.
A10G = _sheet("A10G", (8, 6), sms=80, boost=1710.0, fp32=80 * 128 * 2 * 1.710, fp64=None, hbm=600.0, kind="GDDR6",
              memory_gb=24, l2=6.0, names=("NVIDIA A10G",),
              source="NVIDIA A10 Tensor Core GPU datasheet (memory); AWS EC2 G5 (the A10G); SMs and clock as its "
              "driver reports them")
L4 = _sheet("L4", (8, 9), sms=58, boost=2040.0, fp32=30_300.0, fp64=None, hbm=300.0, kind="GDDR6", memory_gb=24,
            l2=48.0, names=("NVIDIA L4",), source="NVIDIA L4 Tensor Core GPU datasheet")
RTX_3060_LAPTOP = _sheet("GeForce RTX 3060 Laptop GPU", (8, 6), sms=30, boost=1703.0, fp32=30 * 128 * 2 * 1.703,
                         fp64=None, hbm=336.0, kind="GDDR6", memory_gb=6, l2=3.0,
                         names=("NVIDIA GeForce RTX 3060 Laptop GPU",),
                         source="NVIDIA GeForce RTX 3060 Laptop GPU specifications (boost 1283 to 1703 MHz by the "
                         "laptop's power limit; 6 GB GDDR6, 192-bit, 14 Gbps); FP32 = SMs x 128 x 2 x 1703 MHz")
RTX_3090 = _sheet("GeForce RTX 3090", (8, 6), sms=82, boost=1695.0, fp32=35_580.0, fp64=556.0, hbm=936.0,
                  kind="GDDR6X", memory_gb=24, l2=6.0, names=("NVIDIA GeForce RTX 3090",),
                  source="NVIDIA Ampere GA102 GPU architecture whitepaper (GeForce RTX 3090)")
RTX_4090 = _sheet("GeForce RTX 4090", (8, 9), sms=128, boost=2520.0, fp32=82_580.0, fp64=1_290.0, hbm=1_008.0,
                  kind="GDDR6X", memory_gb=24, l2=72.0, names=("NVIDIA GeForce RTX 4090",),
                  source="NVIDIA Ada Lovelace GPU architecture whitepaper (GeForce RTX 4090)")
H100_SXM = _sheet("H100 SXM", (9, 0), sms=132, boost=1980.0, fp32=67_000.0, fp64=34_000.0, hbm=3_350.0, kind="HBM3",
                  memory_gb=80, l2=50.0, names=("NVIDIA H100 80GB HBM3",), tensor_clock=1830.0,
                  source="NVIDIA H100 Tensor Core GPU datasheet; SMs: H100 Tensor Core GPU architecture whitepaper; "
                  "tensor-core clock: its Table 3 (maximum boost clock for Tensor Core use, 1830 MHz; 989.4 TFLOP/s "
                  "dense FP16 = 4096 x 132 x 1.83 GHz)")
H100_PCIE = _sheet("H100 PCIe", (9, 0), sms=114, boost=1755.0, fp32=51_000.0, fp64=26_000.0, hbm=2_000.0,
                   kind="HBM2e", memory_gb=80, l2=50.0, names=("NVIDIA H100 PCIe",),
                   source="NVIDIA H100 Tensor Core GPU datasheet (PCIe); H100 architecture whitepaper")
H200_SXM = _sheet("H200 SXM", (9, 0), sms=132, boost=1980.0, fp32=67_000.0, fp64=34_000.0, hbm=4_800.0, kind="HBM3e",
                  memory_gb=141, l2=50.0, names=("NVIDIA H200",), tensor_clock=1830.0,
                  source="NVIDIA H200 Tensor Core GPU datasheet (the H100 SXM's compute figures: 1 979 TFLOPS FP16 "
                  "with sparsity, 989 dense, at the H100's 1830 MHz tensor-core clock)")
#: One eighth of the 8-GPU HGX B200 board's figures (FP32 600 TFLOPS, FP64 296 TFLOPS, 1 440 GB).
B200 = _sheet("B200", (10, 0), sms=148, boost=1980.0, fp32=75_000.0, fp64=37_000.0, hbm=8_000.0, kind="HBM3e",
              memory_gb=180, l2=None, names=("NVIDIA B200",),
              source="NVIDIA HGX B200 datasheet (per GPU); B200 product page (up to 8 TB/s)")
RTX_5090 = _sheet("GeForce RTX 5090", (12, 0), sms=170, boost=2407.0, fp32=104_800.0, fp64=None, hbm=1_792.0,
                  kind="GDDR7", memory_gb=32, l2=96.0, names=("NVIDIA GeForce RTX 5090",),
                  source="NVIDIA RTX Blackwell GPU architecture whitepaper (GeForce RTX 5090)")

#: The course's GPU: the H200 SXM lent to it (shared/GPU.md). Its records are named after its driver
#: name (labs/*/results/nvidia-h200.json), and its profile (labkit.specs.profiles.COURSE_GPU) is that
#: name's.
COURSE_GPU = H200_SXM

DATASHEETS: tuple[Datasheet, ...] = (T4, V100_SXM2, A100_SXM4_40GB, A100_SXM4_80GB, A10, A10G, L4, RTX_3060_LAPTOP,
                                     RTX_3090, RTX_4090, H100_SXM, H100_PCIE, H200_SXM, B200, RTX_5090)


def datasheet_for(gpu_name: str) -> Datasheet | None:
    """The datasheet of the part the driver calls ``gpu_name`` (case and spacing aside), or None."""
    wanted = " ".join(gpu_name.split()).lower()
    for sheet in DATASHEETS:
        if wanted in (" ".join(n.split()).lower() for n in sheet.driver_names):
            return sheet
    return None
