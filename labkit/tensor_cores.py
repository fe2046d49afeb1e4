"""The tensor cores' theoretical peaks: dense FLOP per clock per SM, by compute capability and
precision, times the SMs and the clock.

Sources: the NVIDIA A100 Tensor Core GPU Architecture whitepaper (each of an A100 SM's 4 tensor
cores does 256 FP16 FMA per clock: 1 024 FMA, 2 048 FLOP per SM per clock; TF32 half of it; FP64
DMMA 64 FMA, 128 FLOP per SM per clock, 19.5 TFLOP/s on 108 SMs at 1 410 MHz); the NVIDIA H100 Tensor Core GPU Architecture whitepaper (an H100 SM
does twice A100's dense MMA per clock for FP16, BF16, TF32 and FP64, and FP8 at twice FP16). FP16
inputs with FP32 accumulation run at the FP16 rate on these data-centre parts (not on GeForce
parts, which this table leaves out). Sparse (2:4) rates, twice these, are not counted: a dense
matrix product cannot use them.

NVIDIA's H100 and H200 SXM datasheets give the tensor-core rates at 1830 MHz (989.4 TFLOP/s dense
FP16 = 4096 x 132 x 1.83 GHz) and the FP32 and FP64 lanes' at 1980 MHz, the maximum SM clock; the
course computes every peak at the clock it reads.
"""

from __future__ import annotations

#: Dense tensor-core FLOP per clock per SM (2 per FMA), by compute capability and input precision.
DENSE_FLOPS_PER_CLOCK_PER_SM: dict[tuple[int, int], dict[str, int]] = {
    (8, 0): {"fp16": 2048, "bf16": 2048, "tf32": 1024, "fp64": 128},
    (9, 0): {"fp16": 4096, "bf16": 4096, "tf32": 2048, "fp8": 8192, "fp64": 256},
}


def tensor_peak_gflops(sm_count: int, compute_capability: tuple[int, int], precision: str,
                       sm_clock_mhz: float) -> float | None:
    """Dense tensor-core peak in 10^9 FLOP/s at ``sm_clock_mhz``; None where this table has no rate."""
    rate = DENSE_FLOPS_PER_CLOCK_PER_SM.get(tuple(compute_capability), {}).get(precision)
    if rate is None:
        return None
    return rate * sm_count * sm_clock_mhz * 1e6 / 1e9

