"""The sample kernels of chapter 1 as workloads: FLOPs and DRAM bytes as functions of the size.

One place for these counts: the chapter's worked examples, lab 01's placement of the measured
kernels on the roofline, and the tests all read them here. Bytes are the minimum DRAM traffic
(each input read once, each output written once), float32 unless said otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

from labkit.models.access import WARP_LANES

FLOAT32_BYTES = 4


@dataclass(frozen=True)
class Workload:
    name: str
    flops: float
    bytes_: float
    #: Shared-memory wavefronts (one per SM per clock at best), for kernels that stage data there.
    shared_wavefronts: float = 0.0

    @property
    def intensity(self) -> float:
        """I = FLOPs / DRAM bytes."""
        return self.flops / self.bytes_


def saxpy(n: int) -> Workload:
    """y = a * x + y: 2 FLOP per element; read x and y, write y: 12 bytes."""
    return Workload("saxpy", 2.0 * n, 3.0 * FLOAT32_BYTES * n)


def reduction(n: int) -> Workload:
    """sum(x): 1 FLOP per element (an add); read x once: 4 bytes."""
    return Workload("reduction", 1.0 * n, 1.0 * FLOAT32_BYTES * n)




def gemm_flops_per_wavefront(rows_per_thread: int = 1, cols_per_thread: int = 1) -> float:
    """FLOP a tiled GEMM does per shared-memory wavefront, each thread computing a
    rows x cols block of C from registers.

    Per step k, a warp issues rows + cols conflict-free 4-byte shared loads (A's elements are a
    broadcast, B's a row of consecutive words: one wavefront each) and rows x cols warp-wide
    FFMAs of 64 FLOP: 64 rows cols / (rows + cols). One output per thread gives 32 FLOP per
    wavefront, 1/8 of what an SM's 128 FP32 lanes (256 FLOP per clock) could do.
    """
    return 2 * WARP_LANES * rows_per_thread * cols_per_thread / (rows_per_thread + cols_per_thread)


#: Bytes of one shared-memory wavefront: 32 banks of 4 bytes.
WAVEFRONT_BYTES = 128


def mma_warp_flops_per_wavefront(warp_m: int, warp_n: int, element_bytes: int = 2) -> float:
    """FLOP per shared-memory wavefront of a warp that multiplies its warp_m x warp_n tile of C with
    mma.sync, its operands loaded from shared memory by conflict-free ldmatrix.

    Per step of k along K the warp reads warp_m x k elements of A and k x warp_n of B
    ((warp_m + warp_n) k e bytes, one wavefront per 128) and does 2 warp_m warp_n k FLOP:
    256 warp_m warp_n / ((warp_m + warp_n) e), whatever k. 64 x 64 in FP16 gives 4096, an SM's
    dense FP16 tensor-core rate per clock on Hopper; 32 x 64 gives two thirds of it.
    """
    return 2 * warp_m * warp_n * WAVEFRONT_BYTES / ((warp_m + warp_n) * element_bytes)


def mma_block_flops_per_wavefront(block_m: int, block_n: int, warp_m: int, warp_n: int,
                                  element_bytes: int = 2) -> float:
    """As :func:`mma_warp_flops_per_wavefront`, for a whole block, counting also the copies that
    bring each slice of A and B into shared memory (cp.async writes them once).

    Per step of k: writes (block_m + block_n) k e bytes; reads, by each of the
    (block_m / warp_m) (block_n / warp_n) warps, (warp_m + warp_n) k e bytes; FLOP 2 block_m block_n k.
    """
    if block_m % warp_m or block_n % warp_n:
        raise ValueError(f"warp tile {warp_m} x {warp_n} does not divide block tile {block_m} x {block_n}")
    warps = (block_m // warp_m) * (block_n // warp_n)
    bytes_per_k = (block_m + block_n + warps * (warp_m + warp_n)) * element_bytes
    return 2 * block_m * block_n * WAVEFRONT_BYTES / bytes_per_k


def gemm_tiled(n: int, tile: int) -> Workload:
    """C = A B (n x n), shared-memory tiles of tile x tile, one output per thread: 2 n^3 FLOP.

    Each block computes one tile of C and streams n/tile tiles of A and of B: every element of
    A and B is read n/tile times, C written once: bytes = (2 n^3 / tile + n^2) x 4, so
    I ~ tile / 4 FLOP/byte for large n. Shared memory: 2 n^3 FLOP / gemm_flops_per_wavefront().
    One output per thread needs tile^2 threads per block: tile <= 32 (1024 threads at most).
    """
    flops = 2.0 * n**3
    return Workload(f"gemm_tile{tile}", flops, (2.0 * n**3 / tile + n * n) * FLOAT32_BYTES,
                    shared_wavefronts=flops / gemm_flops_per_wavefront())


#: FLOPs per point of the 5-point stencil out = c0 * centre + c1 * (north + south + east + west).
STENCIL_FLOPS_PER_POINT = 6


def stencil_5pt(n: int, reuse: bool = True) -> Workload:
    """2D 5-point stencil on an n x n grid, 6 FLOP per point.

    With reuse (neighbours served by L1/L2), each point is read once and written once: 8 bytes.
    Without (every neighbour from DRAM): 5 reads + 1 write = 24 bytes per point.
    """
    bytes_per_point = (2 if reuse else 6) * FLOAT32_BYTES
    return Workload("stencil_5pt" if reuse else "stencil_5pt_no_reuse", STENCIL_FLOPS_PER_POINT * n * n,
                    bytes_per_point * n * n)
