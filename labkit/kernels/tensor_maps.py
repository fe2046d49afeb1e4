"""The host side of Hopper's tensor memory accelerator (TMA) for chapter 6's TMA kernels: what a
tensor map says, checked before the driver sees it, the order in which a persistent grid walks
the tiles of C, and the grid itself. Pure arithmetic, except :func:`encode` (the driver's
``cuTensorMapEncodeTiled`` through NVIDIA's ``cuda-bindings``).

A tensor map describes a 2-D array in global memory (its dimensions, innermost first, and the
byte stride of each outer dimension) and the box one ``cp.async.bulk.tensor.2d`` copies into
shared memory. The kernels' operands are both K-major (A: M x K row-major; B given transposed,
N x K), so each map's inner dimension is K and each box is 64 elements of K (128 bytes of FP16 or
BF16) by the tile's rows. With the 128-byte swizzle the copy engine writes row r's 16-byte chunk c
at chunk c ^ (r mod 8) of the 128-byte row: the layout the wgmma descriptors name (swizzle mode
128B, 8 rows = 1 024 bytes per atom). The rules the driver enforces and :func:`tensor_map` checks
first, so that a bad shape is one clear line (CUDA Driver API, ``cuTensorMapEncodeTiled``):

- the global address 16-byte aligned, each outer stride a multiple of 16 bytes (below 2^40);
- each box dimension 1 to 256 elements; the inner one times the element size a multiple of 16
  bytes, and at most the swizzle span (128 bytes for the 128-byte swizzle).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Bytes of one FP16 or BF16 element.
ELEMENT_BYTES = 2
#: The span of the 128-byte swizzle: the inner box dimension may not exceed it.
SWIZZLE_BYTES = 128
#: A box dimension's limit, in elements.
MAX_BOX = 256
#: A tensor map is 128 opaque bytes, 64-byte aligned (CUtensorMap).
TENSOR_MAP_BYTES = 128


@dataclass(frozen=True)
class TensorMap:
    """A 2-D tensor map of a row-major ``rows`` x ``cols`` matrix of 2-byte elements, copied in
    boxes of ``box_rows`` x ``box_cols``, in the driver's order (innermost dimension first)."""

    rows: int
    cols: int
    box_rows: int
    box_cols: int

    @property
    def global_dims(self) -> tuple[int, int]:
        return (self.cols, self.rows)

    @property
    def global_strides_bytes(self) -> tuple[int]:
        """The byte stride of each dimension but the innermost: one row."""
        return (self.cols * ELEMENT_BYTES,)

    @property
    def box_dims(self) -> tuple[int, int]:
        return (self.box_cols, self.box_rows)

    @property
    def box_bytes(self) -> int:
        """Bytes one copy brings (what the mbarrier's expect_tx counts)."""
        return self.box_rows * self.box_cols * ELEMENT_BYTES


def tensor_map(rows: int, cols: int, box_rows: int, box_cols: int) -> TensorMap:
    """The map of a rows x cols matrix in boxes of box_rows x box_cols, with the 128-byte swizzle;
    ValueError naming the rule a shape breaks."""
    if rows < 1 or cols < 1:
        raise ValueError(f"a tensor map needs a non-empty matrix, got {rows} x {cols}")
    if not (1 <= box_rows <= MAX_BOX and 1 <= box_cols <= MAX_BOX):
        raise ValueError(f"box {box_rows} x {box_cols}: each box dimension must be 1 to {MAX_BOX} elements")
    inner = box_cols * ELEMENT_BYTES
    if inner % 16 or inner > SWIZZLE_BYTES:
        raise ValueError(f"box of {box_cols} elements along the inner dimension is {inner} bytes: with the 128-byte "
                         f"swizzle it must be a multiple of 16 bytes and at most {SWIZZLE_BYTES}")
    if (cols * ELEMENT_BYTES) % 16:
        raise ValueError(f"rows of {cols} elements are {cols * ELEMENT_BYTES} bytes: a tensor map's row stride "
                         "must be a multiple of 16 bytes")
    if rows % box_rows or cols % box_cols:
        raise ValueError(f"{rows} x {cols} is not a whole number of {box_rows} x {box_cols} boxes (the kernels have "
                         "no partial tiles)")
    return TensorMap(rows, cols, box_rows, box_cols)


def operand_maps(m: int, n: int, k: int, box_m: int, box_n: int, k_step: int) -> tuple[TensorMap, TensorMap]:
    """The maps of A (M x K) and of Bᵀ (N x K) in boxes of box_m (box_n) rows by k_step: a kernel's
    tile, or for a cluster of CTAs sharing the B slices, the share of the B tile each CTA copies."""
    return tensor_map(m, k, box_m, k_step), tensor_map(n, k, box_n, k_step)


def tile_order(tiles_m: int, tiles_n: int, group_m: int) -> list[tuple[int, int]]:
    """The tile (row, column) of C that work item t computes, for t = 0 .. tiles_m tiles_n - 1: the
    tiles are walked column by column inside groups of ``group_m`` tile rows, so that the CTAs at
    work at one time share rows of A and columns of B in L2. The kernels' ``tile_of`` computes the
    same: per_group = group_m tiles_n, first row = (t // per_group) group_m, rows = min(tiles_m -
    first, group_m), row = first + (t mod per_group) mod rows, column = (t mod per_group) // rows."""
    if tiles_m < 1 or tiles_n < 1 or group_m < 1:
        raise ValueError(f"tiles {tiles_m} x {tiles_n} and group {group_m} must be positive")
    per_group = group_m * tiles_n
    order = []
    for t in range(tiles_m * tiles_n):
        first = (t // per_group) * group_m
        rows = min(tiles_m - first, group_m)
        order.append((first + (t % per_group) % rows, (t % per_group) // rows))
    return order


def persistent_grid(tiles: int, sm_count: int, cluster: int = 1) -> int:
    """CTAs of a persistent grid: one per SM (the kernels hold one CTA's worth of shared memory per
    SM), never more than there are tiles, in whole clusters of ``cluster`` CTAs. CTA b computes
    tiles b, b + grid, b + 2 grid... (for clusters: cluster b // cluster, item by item)."""
    if tiles < 1 or sm_count < 1 or cluster < 1:
        raise ValueError(f"tiles {tiles}, SMs {sm_count} and CTAs per cluster {cluster} must be positive")
    if tiles % cluster or sm_count < cluster:
        raise ValueError(f"{tiles} tiles on {sm_count} SMs do not make whole clusters of {cluster}")
    return min(tiles, sm_count // cluster * cluster)


def tiles_per_cta(tiles: int, grid: int) -> tuple[int, int]:
    """The fewest and the most tiles one CTA of the grid computes (a tail when they differ: 512 tiles
    on 132 CTAs is 3.88 waves, 116 CTAs do 4 tiles and 16 do 3)."""
    return tiles // grid, -(-tiles // grid)


def encode(spec: TensorMap, address: int, precision: str) -> bytes:
    """The 128 bytes of the driver's tensor map for ``spec`` at device ``address`` (FP16 or BF16,
    128-byte swizzle, L2 promotion of 256 bytes, no fill of out-of-bounds elements: the kernels
    never read outside). Needs NVIDIA's ``cuda-bindings`` and a CUDA context."""
    import ctypes

    from cuda.bindings import driver as cu

    if address % 16:
        raise ValueError(f"a tensor map's global address must be 16-byte aligned, got {address:#x}")
    kinds = {"fp16": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
             "bf16": cu.CUtensorMapDataType.CU_TENSOR_MAP_DATA_TYPE_BFLOAT16}
    if precision not in kinds:
        raise ValueError(f"the TMA kernels take fp16 or bf16, not {precision!r}")
    # cuda-bindings 13 takes the sizes only as its own cuuint64_t / cuuint32_t (12.x also took ints)
    err, tmap = cu.cuTensorMapEncodeTiled(
        kinds[precision], 2, address, [cu.cuuint64_t(x) for x in spec.global_dims],
        [cu.cuuint64_t(x) for x in spec.global_strides_bytes], [cu.cuuint32_t(x) for x in spec.box_dims],
        [cu.cuuint32_t(1), cu.cuuint32_t(1)], cu.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        cu.CUtensorMapSwizzle.CU_TENSOR_MAP_SWIZZLE_128B, cu.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE)
    if err != cu.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"cuTensorMapEncodeTiled refused {spec}: {err.name}")
    return ctypes.string_at(tmap.getPtr(), TENSOR_MAP_BYTES)
