"""The sample kernels of chapter 1 as workloads: FLOPs and DRAM bytes as functions of the size.

One place for these counts: the chapter's worked examples, lab 01's placement of the measured
kernels on the roofline, and the tests all read them here. Bytes are the minimum DRAM traffic
(each input read once, each output written once), float32 unless said otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

FLOAT32_BYTES = 4


@dataclass(frozen=True)
class Workload:
    name: str
    flops: float
    bytes_: float

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


def gemm_tiled(n: int, tile: int) -> Workload:
    """C = A B (n x n), shared-memory tiles of tile x tile: 2 n^3 FLOP.

    Each block computes one tile of C and streams n/tile tiles of A and of B: every element of
    A and B is read n/tile times, C written once: bytes = (2 n^3 / tile + n^2) x 4, so
    I ~ tile / 4 FLOP/byte for large n.
    """
    return Workload(f"gemm_tile{tile}", 2.0 * n**3, (2.0 * n**3 / tile + n * n) * FLOAT32_BYTES)


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
