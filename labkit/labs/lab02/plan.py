"""Lab 02's launches, as data: the same list drives the timings, the ncu process and the analyzer.

Pure (no GPU, no simulator): each :class:`Launch` says which kernel runs, on which grid, with
which parameters. :func:`launches` lists them in the order the lab measures and ncu profiles
them; the analyzer traces each one on :func:`traced_grid`, its first blocks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from labkit.kernels.coalescing import DRIFT_READ_BYTES, DRIFT_WRITE_BYTES, SWEEP_LOADS, strided_read_blocks
from labkit.kernels.coalescing_cuda import ROWS, THREADS, TILE
from labkit.labs.lab02.results import (PARTICLE_KERNELS, SHARED_WIDTHS, TRANSPOSE_KERNELS, Sizes, particles_launch,
                                       shared_launch, sweep_launch, transpose_launch)

#: Blocks the analyzer traces per launch: two in a row (1-D grids), 2 x 2 (the transposes).
TRACED_BLOCKS_1D = 2
TRACED_GRID_2D = (2, 2)
#: The particle drift's time step.
DT = 1e-3
#: What strided_read compares with; the sweep buffer holds zeros.
SENTINEL = 0xDEADBEEF


@dataclass(frozen=True)
class Launch:
    step: str                      # sweep, particles, shared, transpose
    name: str                      # unique in the lab: sweep.4B.s2.o0
    kernel: str                    # the function ncu names
    source: str                    # numba or cuda_c
    grid: tuple[int, int]
    block: tuple[int, int]
    element_bytes: int = 0
    stride: int = 0
    offset: int = 0                # elements
    iterations: int = 0

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1]

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Launch:
        return cls(**{**data, "grid": tuple(data["grid"]), "block": tuple(data["block"])})


def sweep_kernel(element_bytes: int) -> tuple[str, str]:
    """(kernel, source) of the global sweep for an element size."""
    return ("strided_read_16", "cuda_c") if element_bytes == 16 else ("strided_read", "numba")


def sweep_elements(launch: Launch) -> int:
    """Elements a sweep launch reads: SWEEP_LOADS per thread."""
    return launch.blocks * launch.block[0] * SWEEP_LOADS


#: Elements of one block of a sweep launch.
SWEEP_BLOCK_ELEMENTS = THREADS * SWEEP_LOADS
#: The fewest blocks a sweep launch may have: the analyzer traces two.
SWEEP_MIN_BLOCKS = 2


def sweep_point_elements(sizes: Sizes, element_bytes: int, stride: int, offset: int) -> int:
    """Elements one point of the sweep reads: the bytes of ``sizes.sweep_elements`` 4-byte elements
    at every width, fewer where the launch's reads would span more than ``sizes.sweep_span_bytes``
    (a stride of 64 floats spans 64 times the useful bytes); a whole number of blocks. At the GPU's
    sizes the two are equal (2 GiB): every point spans the whole buffer and the coalesced ones read
    all of it, so that every launch is long enough for a launch's fixed cost to vanish (measured on
    the H200 at commit e388319: 256 MiB read at stride 1 in 71.6 us, 2 GiB at stride 8 in 477.6, a
    straight line through the other strides crossing zero bytes at about 12 us; a 256 MiB coalesced
    point then reaches 0.83 of what the 2 GiB ones deliver)."""
    elements = sizes.sweep_elements * 4 // element_bytes
    within_span = (sizes.sweep_span_bytes // element_bytes - offset - 1) // stride + 1
    chosen = min(elements, within_span) // SWEEP_BLOCK_ELEMENTS * SWEEP_BLOCK_ELEMENTS
    if chosen < SWEEP_MIN_BLOCKS * SWEEP_BLOCK_ELEMENTS:
        raise ValueError(f"sweep_span_bytes {sizes.sweep_span_bytes} leaves the {element_bytes}-byte sweep at stride "
                         f"{stride} fewer than {SWEEP_MIN_BLOCKS} blocks of {SWEEP_BLOCK_ELEMENTS} elements")
    return chosen


def sweep_buffer_bytes(plan: list[Launch]) -> int:
    """The sweep buffer: every element any sweep launch of ``plan`` reads (SWEEP_LOADS per thread,
    at its stride and offset), rounded up to 16 bytes."""
    span = max((sweep_elements(launch) * launch.stride + launch.offset + 1) * launch.element_bytes
               for launch in plan if launch.step == "sweep")
    return -(-span // 16) * 16


def particle_kernel(layout: str, access: str) -> tuple[str, str]:
    return (f"drift_{layout}", "numba") if access == "scalar" else (f"drift_{layout}_vector", "cuda_c")


def particle_threads(particles: int, access: str, layout: str) -> int:
    """One particle per thread, four for the vectorised structure of arrays."""
    return particles // 4 if (access, layout) == ("vector", "soa") else particles


def useful_particle_bytes(particles: int) -> int:
    return particles * (DRIFT_READ_BYTES + DRIFT_WRITE_BYTES)


def shared_grid_blocks(sizes: Sizes, sm_count: int) -> int:
    return sizes.shared_blocks_per_sm * sm_count


def launches(sizes: Sizes, sm_count: int) -> list[Launch]:
    """Every launch of the lab, in order; refuses sizes whose grids would not be whole."""
    if sizes.sweep_elements % (4 * THREADS * SWEEP_LOADS) or sizes.particles % (4 * THREADS):
        raise ValueError(f"sweep_elements must be a multiple of {4 * THREADS * SWEEP_LOADS} (whole blocks of 16-byte "
                         f"elements too), particles of {4 * THREADS}")
    if sizes.matrix_side % TILE:
        raise ValueError(f"matrix_side must be a multiple of the tile side {TILE}")
    out = []
    for element_bytes, stride, offset in sizes.sweep_points:
        kernel, source = sweep_kernel(element_bytes)
        elements = sweep_point_elements(sizes, element_bytes, stride, offset)
        out.append(Launch("sweep", sweep_launch(element_bytes, stride, offset), kernel, source,
                          (strided_read_blocks(elements, THREADS), 1), (THREADS, 1), element_bytes, stride, offset))
    for layout, access in PARTICLE_KERNELS:
        kernel, source = particle_kernel(layout, access)
        threads = particle_threads(sizes.particles, access, layout)
        out.append(Launch("particles", particles_launch(layout, access), kernel, source, (threads // THREADS, 1),
                          (THREADS, 1)))
    blocks = shared_grid_blocks(sizes, sm_count)
    for width in SHARED_WIDTHS:
        for stride in sizes.shared_strides:
            out.append(Launch("shared", shared_launch(width, stride), f"shared_stride_{width}", "cuda_c",
                              (blocks, 1), (THREADS, 1), width, stride, 0, sizes.shared_iterations))
    tiles = sizes.matrix_side // TILE
    for kernel in TRANSPOSE_KERNELS:
        out.append(Launch("transpose", transpose_launch(kernel), kernel, "cuda_c", (tiles, tiles), (TILE, ROWS)))
    return out


def traced_grid(launch: Launch) -> tuple[int, int]:
    """The first blocks of the launch, which the analyzer traces."""
    return TRACED_GRID_2D if launch.grid[1] > 1 else (TRACED_BLOCKS_1D, 1)
