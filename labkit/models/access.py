"""Memory-access analyzer: what Nsight Compute counts for one warp-level memory instruction.

Pure Python, no GPU. Given the 32 lanes' byte addresses of one load or store (``None`` for an
inactive lane), its width per lane (1, 2, 4, 8 or 16 bytes) and its space (global or shared),
:func:`analyze` returns the counts ncu reports for that instruction on an H200 (sm_90), and
:func:`total` sums them over a kernel's instructions the way ncu's ``.sum`` metrics do.

Global memory (rule, source, confidence)
    One *request* per instruction that has at least one active lane; the request touches the
    distinct 32-byte *sectors* of its lanes' bytes, in distinct 128-byte *lines* (tags).
    An aligned access of 16 bytes or less never straddles a sector, so
    ``sectors = |{address // 32}|`` and ``lines = |{address // 128}|`` over the active lanes,
    whatever the width: a fully coalesced warp is 4, 8 or 16 sectors per request for 4, 8 or
    16 bytes per lane. Sources: Nsight Compute Kernel Profiling Guide, "Memory" terms
    (request, sector, tag) and its L1TEX model ("a single request is sent to L1TEX" per warp
    instruction), quoted on forums.developer.nvidia.com/t/165293 and /t/285476; measured on our
    H200 in tests/fixtures/h200-probe (4 sectors/request for a float copy, 32 for stride 33,
    16 for the two ``LDG.E.64`` of a complex128 copy). Confidence: high for 4 and 8 bytes,
    medium for 1, 2 and 16 bytes (calibration patterns cover them).

Shared memory (rule, source, confidence)
    32 banks of 4 bytes: the word ``address // 4`` lives in bank ``word % 32``. The warp is
    served in *phases* of lanes: all 32 lanes for 1-, 2- and 4-byte accesses, half-warps for
    8 bytes, quarter-warps for 16 bytes (128 bytes of lane data per phase). A phase with
    active lanes takes as many *wavefronts* as the largest number of distinct words any one
    bank must deliver to it; lanes that read (or write) the same word cost nothing extra
    (broadcast), lanes of different phases never conflict. Inactive lanes take no part, and a
    phase with no active lane takes no wavefront.

    - Loads only: when every active lane ``n`` has the address of lane ``n ^ 1`` (or every one
      that of lane ``n ^ 2``) wherever both are active, the return path packs the pairs and a
      phase holds twice as many lanes (a 16-byte warp in 2 phases instead of 4, an 8-byte warp
      in 1). Greg Smith (NVIDIA) on forums.developer.nvidia.com/t/77228 (CC 7.x); seen on CC
      8.6 and 9.0 in /t/373160 (``LDS.128``, lanes 0-15 on one address and 16-31 on another:
      2 wavefronts; lanes ``n`` and ``n + 16`` sharing addresses: no merge, 8 wavefronts).
    - Stores: the same distinct-word rule, without pairing. Several lanes writing one word
      cost one write: "for write accesses, each address is written by only one of the
      threads" (CUDA C++ Programming Guide, shared memory of compute capability 5.x, the
      section later architectures refer to); pairing is described for the load return path.
    - Phases: half-warps for 64-bit, quarter-warps for 128-bit on Volta and later: GTC 2019
      S9593 (CUTLASS on Volta, "phases" of 8 threads for 128-bit accesses), NVIDIA/cutlass#328
      and Dao-AILab/flash-attention#738; ncu on an 8-byte transpose (forums /t/217015):
      2 wavefronts per conflict-free ``LDS.64``, 32 per 32-way ``STS.64``.

    ``bank_conflicts = wavefronts - ideal_wavefronts``, where ``ideal_wavefronts`` is the number
    of phases that have active lanes: the extra wavefronts the conflicts cost. It matches
    ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_{ld,st}.sum`` on full warps: excess
    over 4 wavefronts per ``LDS.128`` (forums /t/359822: 283,023,360 - 35,377,920 =
    247,645,440) and over 2 per ``STS.64`` (/t/217015: 17,061,038 - 16,012,462 = 2 x 524,288).

    Confidence: high for 1-, 2- and 4-byte accesses and for full-warp 8- and 16-byte accesses
    without pairing; medium for pairing (documented for CC 7.x, seen on 9.0 for ``LDS.128``
    only). To confirm on the H200 (``labkit.calibration.access_probe`` measures each):
    pairing for ``LDS.64`` (a warp on one 8-byte address: 1 wavefront here), pairing when a
    partner lane is inactive (counted compatible here), the ``bank_conflicts`` of partial
    warps (ideal = active phases here, not 2 or 4), and stores of 8 and 16 bytes to one address.
    In a busy kernel, ncu's hardware counters ``l1tex__data_pipe_lsu_wavefronts_mem_shared_*``
    and ``l1tex__data_bank_conflicts_pipe_lsu_mem_shared_*`` both add wavefronts that the access
    pattern does not explain: the same excess in each, varying from run to run for one launch
    (lab 02's record of commit 4cb7254), which we read as arbitration with other traffic of the
    L1TEX data stage, whose SRAM serves L1 and shared memory alike (forums /t/239100,
    NVIDIA/Fuser#2263). Their difference, the ideal wavefronts, follows the rule exactly; so must
    ncu's instruction-level counters ``smsp__sass_l1tex_data_*``, counted per executed
    instruction from its lanes' addresses (lab 02's record holds both to the analyzer). For
    isolated instructions the hardware counters follow the rule exactly (the calibration).

DRAM
    :attr:`KernelCounts.dram_read_bytes` is 32 bytes per distinct sector that the kernel's
    global loads touch: every sector read from DRAM once (cold caches, no eviction). It is a
    floor for ``dram__bytes_read.sum``, which evictions, the L2's fetch granularity and partial
    sector writes raise: the stride-33 copy of tests/fixtures/h200-probe touches 67 MB of
    distinct sectors and read 1.61 GB from the H200's DRAM; its coalesced copy, 67.11 MB.

    :func:`fetched_bytes` is the prediction the lab holds ncu to: the L2 misses to DRAM in
    aligned blocks of :data:`DRAM_FETCH_BYTES` (two sectors), so a kernel whose loads touch one
    sector of a 64-byte block reads both from DRAM. CUDA exposes this granularity as the
    ``cudaLimitMaxL2FetchGranularity`` hint (0 to 128 bytes, CUDA Runtime API, cudaDeviceSetLimit);
    the H200's one-warp calibration (labs/02-coalescing/calibration, 451 patterns, caches
    flushed) shows it: over the ~3 KB every launch reads, 32 lanes on 32 sectors of 32
    contiguous sectors add 1 KiB, 32 lanes one per 64-byte block (float32 stride 16, 32, 33)
    add 2 KiB, not 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import Enum

#: Lanes (threads) of a warp, on every NVIDIA GPU: a warp-wide FFMA is 32 FMAs, 64 FLOP.
WARP_LANES = 32
#: The unit of memory traffic, as the L1/L2 and ncu count it.
SECTOR_BYTES = 32
LINE_BYTES = 128
BANKS = 32
BANK_BYTES = 4
#: Access widths a lane can have: 8, 16, 32, 64 or 128 bits.
WIDTHS_BYTES = (1, 2, 4, 8, 16)
#: What the L2 reads from DRAM for one miss: two sectors, aligned (module docstring, "DRAM").
DRAM_FETCH_BYTES = 64
#: Lane data a shared-memory phase carries: one 4-byte word from each of the 32 banks.
PHASE_BYTES = BANKS * BANK_BYTES


class Space(str, Enum):
    GLOBAL = "global"
    SHARED = "shared"


class Op(str, Enum):
    LOAD = "load"
    STORE = "store"


@dataclass(frozen=True)
class WarpAccess:
    """One warp-level load or store: 32 lane byte addresses (``None``: inactive lane).

    ``op`` and ``space`` may be given as their values (``"load"``, ``"shared"``). Every active
    address must be a non-negative integer aligned to ``width_bytes``, as the hardware requires.
    """

    addresses: tuple[int | None, ...]
    width_bytes: int
    op: Op = Op.LOAD
    space: Space = Space.GLOBAL

    def __post_init__(self) -> None:
        object.__setattr__(self, "op", _member(Op, self.op, "op"))
        object.__setattr__(self, "space", _member(Space, self.space, "space"))
        if isinstance(self.width_bytes, bool) or self.width_bytes not in WIDTHS_BYTES:
            raise ValueError(f"width_bytes must be one of 1, 2, 4, 8, 16, got {self.width_bytes!r}")
        object.__setattr__(self, "width_bytes", int(self.width_bytes))
        if isinstance(self.addresses, (str, bytes)):
            raise ValueError(f"addresses must be a sequence of {WARP_LANES} integers or None, got a string")
        addresses = tuple(self.addresses)
        if len(addresses) != WARP_LANES:
            raise ValueError(f"a warp access needs {WARP_LANES} lane addresses, got {len(addresses)}")
        addresses = tuple(_lane_address(lane, a, self.width_bytes) for lane, a in enumerate(addresses))
        object.__setattr__(self, "addresses", addresses)

    @property
    def active_lanes(self) -> tuple[int, ...]:
        return tuple(lane for lane, address in enumerate(self.addresses) if address is not None)


@dataclass(frozen=True)
class AccessCounts:
    """What ncu counts for one instruction; the other space's fields are 0.

    Global: ``requests``, ``sectors``, ``lines``. Shared: ``wavefronts``, ``bank_conflicts``,
    ``ideal_wavefronts`` (phases with active lanes) and ``lane_wavefronts``, the wavefront
    (0, 1, ...) that serves each lane (``None`` for inactive lanes and for global accesses).
    ``unique_bytes``: distinct bytes the active lanes touch.
    """

    active_lanes: int
    unique_bytes: int
    requests: int = 0
    sectors: int = 0
    lines: int = 0
    wavefronts: int = 0
    bank_conflicts: int = 0
    ideal_wavefronts: int = 0
    lane_wavefronts: tuple[int | None, ...] = (None,) * WARP_LANES


def analyze(access: WarpAccess) -> AccessCounts:
    """The counts of one warp-level instruction (rules in the module docstring)."""
    active = [a for a in access.addresses if a is not None]
    unique_bytes = len({a + k for a in active for k in range(access.width_bytes)})
    if access.space is Space.GLOBAL:
        return AccessCounts(
            active_lanes=len(active),
            unique_bytes=unique_bytes,
            requests=1 if active else 0,
            sectors=len({a // SECTOR_BYTES for a in active}),
            lines=len({a // LINE_BYTES for a in active}),
        )
    lane_wavefronts: list[int | None] = [None] * WARP_LANES
    wavefronts = ideal = 0
    for phase in shared_phases(access):
        depth = _serve_phase(access, phase, first_wavefront=wavefronts, out=lane_wavefronts)
        wavefronts += depth
        ideal += depth > 0
    return AccessCounts(
        active_lanes=len(active),
        unique_bytes=unique_bytes,
        wavefronts=wavefronts,
        bank_conflicts=wavefronts - ideal,
        ideal_wavefronts=ideal,
        lane_wavefronts=tuple(lane_wavefronts),
    )


def shared_phases(access: WarpAccess) -> list[range]:
    """The lane groups served together: 128 bytes of lane data each, doubled for paired loads."""
    lanes = WARP_LANES if access.width_bytes <= BANK_BYTES else PHASE_BYTES // access.width_bytes
    if lanes < WARP_LANES and access.op is Op.LOAD and pairs_share_addresses(access.addresses):
        lanes *= 2
    return [range(start, start + lanes) for start in range(0, WARP_LANES, lanes)]


def pairs_share_addresses(addresses: Sequence[int | None]) -> bool:
    """Lane n has lane n^1's address for all n, or lane n^2's, wherever both lanes are active."""
    return any(
        all(addresses[n] is None or addresses[n ^ k] is None or addresses[n] == addresses[n ^ k]
            for n in range(WARP_LANES))
        for k in (1, 2)
    )


def _serve_phase(access: WarpAccess, phase: range, first_wavefront: int, out: list) -> int:
    """Wavefronts of one phase: the most distinct words one bank holds; fills ``out`` per lane.

    A bank's k-th distinct word (in lane order) goes out in the phase's k-th wavefront. Lanes
    of one width touch aligned groups of banks, so all the words of a lane share one k.
    """
    words_of_bank: dict[int, list[int]] = {}
    for lane in phase:
        for word in _words(access.addresses[lane], access.width_bytes):
            words = words_of_bank.setdefault(word % BANKS, [])
            if word not in words:
                words.append(word)
    for lane in phase:
        address = access.addresses[lane]
        if address is not None:
            word = address // BANK_BYTES
            out[lane] = first_wavefront + words_of_bank[word % BANKS].index(word)
    return max((len(words) for words in words_of_bank.values()), default=0)


def _words(address: int | None, width_bytes: int) -> range:
    if address is None:
        return range(0)
    first = address // BANK_BYTES
    return range(first, (address + width_bytes - 1) // BANK_BYTES + 1)


@dataclass(frozen=True)
class Totals:
    """Sums over the instructions of one space and direction, as ncu's ``.sum`` metrics.

    ``instructions`` counts those with at least one active lane.
    """

    instructions: int = 0
    requests: int = 0
    sectors: int = 0
    lines: int = 0
    wavefronts: int = 0
    bank_conflicts: int = 0
    unique_bytes: int = 0

    @property
    def sectors_per_request(self) -> float:
        """Total sectors / total requests: ncu's ``l1tex__average_t_sectors_per_request``."""
        return self.sectors / self.requests if self.requests else 0.0

    @property
    def wavefronts_per_instruction(self) -> float:
        return self.wavefronts / self.instructions if self.instructions else 0.0

    def plus(self, counts: AccessCounts) -> Totals:
        return Totals(
            instructions=self.instructions + (counts.active_lanes > 0),
            requests=self.requests + counts.requests,
            sectors=self.sectors + counts.sectors,
            lines=self.lines + counts.lines,
            wavefronts=self.wavefronts + counts.wavefronts,
            bank_conflicts=self.bank_conflicts + counts.bank_conflicts,
            unique_bytes=self.unique_bytes + counts.unique_bytes,
        )


#: The ncu metric each predicted count stands for: (space, op, Totals field).
NCU_METRICS: dict[str, tuple[Space, Op, str]] = {
    "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum": (Space.GLOBAL, Op.LOAD, "requests"),
    "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum": (Space.GLOBAL, Op.LOAD, "sectors"),
    "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum": (Space.GLOBAL, Op.STORE, "requests"),
    "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum": (Space.GLOBAL, Op.STORE, "sectors"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum": (Space.SHARED, Op.LOAD, "wavefronts"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum": (Space.SHARED, Op.LOAD, "bank_conflicts"),
    "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum": (Space.SHARED, Op.STORE, "wavefronts"),
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum": (Space.SHARED, Op.STORE, "bank_conflicts"),
}
DRAM_READ_METRIC = "dram__bytes_read.sum"


@dataclass(frozen=True)
class KernelCounts:
    """A kernel's instructions summed per space and direction, and its distinct DRAM sectors.

    ``dram_read_bytes`` / ``dram_write_bytes``: 32 bytes per distinct sector the global loads /
    stores touch over the whole kernel (each sector moved once: a floor, see module docstring).
    """

    totals: dict[tuple[Space, Op], Totals] = field(default_factory=dict)
    dram_read_bytes: int = 0
    dram_write_bytes: int = 0

    def of(self, space: Space | str, op: Op | str) -> Totals:
        return self.totals.get((Space(space), Op(op)), Totals())

    def ncu_metrics(self) -> dict[str, int]:
        """The predicted value of each metric of :data:`NCU_METRICS`, and of dram__bytes_read.sum."""
        values = {name: getattr(self.of(space, op), field_) for name, (space, op, field_) in NCU_METRICS.items()}
        values[DRAM_READ_METRIC] = self.dram_read_bytes
        return values


def total(accesses: Iterable[WarpAccess]) -> KernelCounts:
    """Sum :func:`analyze` over a kernel's warp accesses, per (space, op).

    So ``of("global", "load").sectors_per_request`` is total sectors / total requests, as ncu
    shows it, and the DRAM floors count each distinct global sector once.
    """
    totals: dict[tuple[Space, Op], Totals] = {}
    sectors: dict[Op, set[int]] = {Op.LOAD: set(), Op.STORE: set()}
    for access in accesses:
        key = (access.space, access.op)
        totals[key] = totals.get(key, Totals()).plus(analyze(access))
        if access.space is Space.GLOBAL:
            sectors[access.op].update(a // SECTOR_BYTES for a in access.addresses if a is not None)
    return KernelCounts(
        totals=totals,
        dram_read_bytes=SECTOR_BYTES * len(sectors[Op.LOAD]),
        dram_write_bytes=SECTOR_BYTES * len(sectors[Op.STORE]),
    )


def fetched_bytes(addresses: Iterable[int], fetch_bytes: int = DRAM_FETCH_BYTES) -> int:
    """Bytes DRAM delivers for loads of these byte addresses from cold caches: ``fetch_bytes``
    per distinct aligned block of ``fetch_bytes`` that holds one of them (no eviction)."""
    return fetch_bytes * len({address // fetch_bytes for address in addresses})


def translates_union(blocks: Iterable[int], shift: int, count: int) -> int:
    """How many distinct integers ``{b + k * shift : b in blocks, 0 <= k < count}`` holds.

    A launch whose thread blocks touch the same memory blocks as the first one, moved by
    ``shift`` per block, touches this many over ``count`` blocks. The translates of one member
    ``b = r + q * shift`` (``0 <= r < shift``) are the progression of residue ``r`` whose
    quotients fill the interval ``[q, q + count)``: progressions of different residues never
    meet, those of one residue cover the union of their intervals. So the count is, per residue,
    the length of a union of intervals of one length, summed after sorting their starts (exact,
    whatever ``count``; unit-tested against brute force).
    """
    members = set(blocks)
    if count <= 0 or not members:
        return 0
    if shift <= 0:
        raise ValueError(f"shift must be positive, got {shift}")
    starts_by_residue: dict[int, list[int]] = {}
    for b in members:
        starts_by_residue.setdefault(b % shift, []).append(b // shift)
    distinct = 0
    for starts in starts_by_residue.values():
        covered_until = None          # the end (exclusive) of the intervals so far
        for start in sorted(starts):
            overlap = 0 if covered_until is None else max(0, covered_until - start)
            distinct += count - overlap
            covered_until = start + count
    return distinct


# The chapter's standard patterns: each returns the 32 lane addresses.

def strided(stride_elements: int, element_bytes: int, offset_bytes: int = 0,
            active_lanes: int = WARP_LANES) -> tuple[int | None, ...]:
    """Lane i at ``offset + i * stride * element_bytes``; lanes from ``active_lanes`` on inactive.

    Stride 1 is the coalesced warp, stride 0 a broadcast, stride 32 a column of a 32-wide tile.
    """
    if stride_elements < 0 or offset_bytes < 0:
        raise ValueError(f"stride_elements and offset_bytes must be >= 0, got {stride_elements} and {offset_bytes}")
    if not 0 <= active_lanes <= WARP_LANES:
        raise ValueError(f"active_lanes must be 0..{WARP_LANES}, got {active_lanes}")
    return tuple(offset_bytes + lane * stride_elements * element_bytes if lane < active_lanes else None
                 for lane in range(WARP_LANES))


def broadcast(address_bytes: int) -> tuple[int, ...]:
    """All 32 lanes on one address."""
    return (address_bytes,) * WARP_LANES


def tile_column(column: int, pitch_elements: int, element_bytes: int, xor_swizzle: bool = False,
                offset_bytes: int = 0) -> tuple[int, ...]:
    """Lane i reads ``tile[i][column]`` of a row-major tile ``pitch_elements`` wide.

    With ``xor_swizzle``, lane i reads ``tile[i][column ^ i]`` instead: the XOR swizzle that
    spreads a column over 32 banks without padding (needs ``pitch_elements >= 32``).
    """
    return tuple(offset_bytes + (lane * pitch_elements + (column ^ lane if xor_swizzle else column)) * element_bytes
                 for lane in range(WARP_LANES))


def _member(enum: type[Enum], value: object, name: str) -> Enum:
    try:
        return enum(value)
    except ValueError:
        allowed = " or ".join(repr(m.value) for m in enum)
        raise ValueError(f"{name} must be {allowed}, got {value!r}") from None


def _lane_address(lane: int, address: object, width_bytes: int) -> int | None:
    if address is None:
        return None
    if isinstance(address, bool) or not hasattr(address, "__index__"):
        raise ValueError(f"lane {lane} address must be an integer or None, got {address!r}")
    address = address.__index__()
    if address < 0:
        raise ValueError(f"lane {lane} address {address} is negative")
    if address % width_bytes:
        raise ValueError(f"lane {lane} address {address} is not aligned to its {width_bytes}-byte width")
    return address
