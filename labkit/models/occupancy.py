"""Occupancy: how many blocks of a kernel an SM holds at once, and which resource stops it.

Pure arithmetic, no GPU needed. :func:`calculate` answers what the CUDA driver's
``cuOccupancyMaxActiveBlocksPerMultiprocessor`` answers for a compiled kernel (registers per
thread and static shared memory as the compiler reports them) launched with a block size and
a dynamic shared-memory size. The rules are those of ``cuda_occupancy.h``, the reference
implementation NVIDIA ships with the toolkit ("CUDA Occupancy Calculator", CUDA 13.5, in the
``nvidia-cuda-runtime`` wheel's ``nvidia/cu13/include/``; ``cudaOccMaxActiveBlocksPerMultiprocessor``); NVIDIA's retired occupancy spreadsheet used the
same parameters (register allocation unit and granularity, warp allocation granularity,
shared-memory allocation unit, runtime shared memory per block). ``labkit.calibration.occupancy_probe``
holds these rules to the driver on a real GPU.

Sources, cited below by short name:

- *Guide*: CUDA C++ Programming Guide, "Compute Capabilities" (technical specifications per
  compute capability; the "Shared Memory" sections of 7.x to 12.x) and "Hardware
  Multithreading" (a kernel that cannot fit one block on an SM fails to launch).
- *Header*: ``cuda_occupancy.h`` of CUDA 13.5, functions named in each rule.
  ``tests/unit/test_occupancy_header.py`` holds :func:`calculate` to it, launch for launch, on
  every compute capability here (compiled with a C++ compiler where there is one, and against
  the table ``tests/fixtures/occupancy_header/generate.py`` made with it).
- *Best Practices*: CUDA C++ Best Practices Guide, "Calculating Occupancy".

Units are in the names: ``_bytes``, ``registers_``, ``threads_``; a carve-out preference is a
percentage of the SM's shared-memory capacity, as ``cudaFuncAttributePreferredSharedMemoryCarveout``
takes it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from labkit.models.launch import LaunchConfigError
from labkit.specs.architectures import COMPUTE_CAPABILITIES, ComputeCapability
from labkit.specs.datasheets import COURSE_GPU

KIB = 1024


@dataclass(frozen=True)
class Architecture:
    """The per-SM limits of one compute capability that occupancy depends on.

    Guide (technical specifications): warp size, threads per block, resident threads and
    blocks per SM, registers per SM / per block / per thread, shared memory per SM and per
    block (48 KiB without opt-in; more with ``cudaFuncAttributeMaxDynamicSharedMemorySize``).
    Guide (shared memory of 7.x to 12.x): the shared-memory capacities an SM can be set to
    (``shared_carveouts_bytes``), and, from 8.0 on, 1 KiB per block "reserved for system use".
    Header: registers are allocated per warp in units of 256 (``cudaOccRegAllocationGranularity``)
    across 4 SM sub-partitions (``cudaOccSubPartitionsPerMultiprocessor``); shared memory in
    units of 256 bytes on 7.x and 128 bytes from 8.0 on (``cudaOccSMemAllocationGranularity``).
    """

    compute_capability: tuple[int, int]
    name: str
    warp_size: int
    max_threads_per_block: int
    max_threads_per_sm: int
    max_blocks_per_sm: int
    registers_per_sm: int
    max_registers_per_block: int
    max_registers_per_thread: int
    register_allocation_unit: int
    sm_sub_partitions: int
    shared_bytes_per_sm: int
    shared_carveouts_bytes: tuple[int, ...]
    shared_allocation_unit_bytes: int
    reserved_shared_bytes_per_block: int
    max_shared_bytes_per_block: int
    max_shared_bytes_per_block_optin: int

    @property
    def max_warps_per_sm(self) -> int:
        return self.max_threads_per_sm // self.warp_size

    @property
    def label(self) -> str:
        """'9.0', as the driver and the course write a compute capability."""
        return f"{self.compute_capability[0]}.{self.compute_capability[1]}"


def _architecture(facts: ComputeCapability) -> Architecture:
    """What every compute capability from 7.0 to 12.1 shares, with what differs read from its row of
    labkit.specs.architectures (resident threads and blocks per SM, shared-memory capacities).

    Shared by all (Guide, technical specifications): 32-thread warps, 1024 threads per block, 64K
    32-bit registers per SM and per block, 255 registers per thread, 48 KiB of shared memory per
    block without opt-in. Header: registers allocated per warp in units of 256
    (cudaOccRegAllocationGranularity) across 4 sub-partitions (cudaOccSubPartitionsPerMultiprocessor)
    on every one of them. What follows from the major version: shared memory allocated in units of
    256 bytes on 7.x and 128 from 8.0 on (Header: cudaOccSMemAllocationGranularity); 1 KiB per
    block "reserved for system use" from 8.0 on (Guide, shared memory of 8.x and later; Header:
    cudaOccSMemPerBlock, "Starting Ampere, CUDA driver reserves additional shared memory per
    block"). The SM's shared memory is its largest carve-out, and a block may opt in to all of it
    but the reservation (the Guide's "maximum amount of shared memory per thread block": 96, 64,
    163, 99 or 227 KiB).
    """
    major = facts.version[0]
    carveouts_kib = facts.shared_carveouts_kib
    reserved = 0 if major == 7 else KIB
    shared_per_sm = max(carveouts_kib) * KIB
    return Architecture(
        compute_capability=facts.version, name=facts.name, warp_size=32, max_threads_per_block=1024,
        max_threads_per_sm=facts.threads_per_sm, max_blocks_per_sm=facts.blocks_per_sm,
        registers_per_sm=65536, max_registers_per_block=65536, max_registers_per_thread=255,
        register_allocation_unit=256, sm_sub_partitions=4,
        shared_bytes_per_sm=shared_per_sm,
        shared_carveouts_bytes=tuple(kib * KIB for kib in carveouts_kib),
        shared_allocation_unit_bytes=256 if major == 7 else 128, reserved_shared_bytes_per_block=reserved,
        max_shared_bytes_per_block=48 * KIB, max_shared_bytes_per_block_optin=shared_per_sm - reserved,
    )


#: The compute capabilities the calculator knows: every one labkit.specs.architectures tables, from 7.0 to
#: 12.1 (those ``cuda_occupancy.h`` of CUDA 13.5 knows), in its order.
ARCHITECTURES: dict[tuple[int, int], Architecture] = {
    version: _architecture(facts) for version, facts in COMPUTE_CAPABILITIES.items()}

#: The GPUs the in-page calculator offers, by name, each with its compute capability (NVIDIA's
#: names; one entry per compute capability the calculator knows, in that order).
CALCULATOR_GPUS: tuple[tuple[str, tuple[int, int]], ...] = tuple(
    (facts.calculator_gpus, version) for version, facts in COMPUTE_CAPABILITIES.items())


#: The limits of the course's GPU (labkit.specs.datasheets.COURSE_GPU, an H200: compute capability 9.0, 228 KiB
#: of shared memory per SM).
SM90 = ARCHITECTURES[COURSE_GPU.compute_capability]


def architecture(compute_capability: tuple[int, int]) -> Architecture:
    """The limits of a compute capability; a one-line error for one the calculator lacks."""
    try:
        return ARCHITECTURES[tuple(compute_capability)]
    except KeyError:
        known = ", ".join(a.label for a in ARCHITECTURES.values())
        major, minor = compute_capability
        raise ValueError(f"compute capability {major}.{minor}: the occupancy calculator knows {known}") from None


@dataclass(frozen=True)
class KernelLaunch:
    """A compiled kernel's resources and how it is launched.

    ``registers_per_thread`` and ``static_shared_bytes`` are the compiled kernel's
    (``CU_FUNC_ATTRIBUTE_NUM_REGS``, ``CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES``).
    ``max_dynamic_shared_bytes`` is the kernel's ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``
    (48 KiB minus the static size unless raised); None means the kernel opted in to whatever it
    requests. ``carveout_percent`` is its ``CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT``;
    None is the default, no preference (-1 for the driver).
    """

    threads_per_block: int
    registers_per_thread: int
    static_shared_bytes: int = 0
    dynamic_shared_bytes: int = 0
    max_dynamic_shared_bytes: int | None = None
    carveout_percent: int | None = None


@dataclass(frozen=True)
class Limits:
    """Blocks per SM each resource alone would allow; None where it sets no limit (no registers,
    or no shared memory on 7.x, where nothing is reserved per block)."""

    warps: int
    registers: int | None
    shared_memory: int | None
    blocks: int


#: Limiting resources in the Header's order (cudaOccLimitingFactor): warps, registers, shared memory, blocks.
LIMITERS = ("warps", "registers", "shared_memory", "blocks")


@dataclass(frozen=True)
class Occupancy:
    """The answer: resident blocks and warps per SM, their fraction of the SM's warp slots, and
    every resource whose limit equals the answer (ties are all named, in :data:`LIMITERS` order).
    ``blocks_per_sm == 0`` means the launch cannot run: the driver answers 0 and the launch fails."""

    blocks_per_sm: int
    warps_per_block: int
    active_warps_per_sm: int
    max_warps_per_sm: int
    occupancy: float
    limiters: tuple[str, ...]
    limits: Limits
    registers_per_block: int
    shared_bytes_per_block: int
    shared_bytes_per_sm: int


def ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def round_up(value: int, unit: int) -> int:
    """value rounded up to a multiple of unit (the Header's __occRoundUp)."""
    return ceil_div(value, unit) * unit


def _kib(bytes_: int) -> str:
    return f"{bytes_} bytes ({bytes_ / KIB:.1f} KiB)"


def check(launch: KernelLaunch, arch: Architecture = SM90) -> None:
    """Raise LaunchConfigError (a ValueError), one line naming the limit, for inputs no kernel or
    launch can have: the launch is refused (cuLaunchKernel: CUDA_ERROR_INVALID_VALUE) or the
    kernel cannot be built, whatever else it does.

    Zero or more than ``max_threads_per_block`` threads; a register count outside 0..255 (ptxas
    allocates at most 255); negative shared memory; more than 48 KiB of static shared memory
    (ptxas's limit: more needs dynamic memory); static + dynamic over the opt-in limit, or a
    ``max_dynamic_shared_bytes`` attribute over opt-in minus static (cuFuncSetAttribute refuses
    it); a carve-out outside 0..100 %. (The Header answers 0 for a block over the device's
    maximum, in cudaOccMaxBlocksPerSMWarpsLimit, and an error for a block of 0 threads; the probe
    records what the driver does with both. labkit refuses both.)
    """
    cc = arch.label
    threads = launch.threads_per_block
    if threads < 1:
        raise LaunchConfigError(f"threads per block: {threads} requested, at least 1 is needed")
    if threads > arch.max_threads_per_block:
        raise LaunchConfigError(
            f"threads per block: {threads} requested, compute capability {cc} allows at most {arch.max_threads_per_block}")
    registers = launch.registers_per_thread
    if not 0 <= registers <= arch.max_registers_per_thread:
        raise LaunchConfigError(
            f"registers per thread: {registers} requested, compute capability {cc} allows 0 to {arch.max_registers_per_thread}")
    for what, bytes_ in (("static", launch.static_shared_bytes), ("dynamic", launch.dynamic_shared_bytes)):
        if bytes_ < 0:
            raise LaunchConfigError(f"{what} shared memory per block: {bytes_} bytes requested, cannot be negative")
    if launch.static_shared_bytes > arch.max_shared_bytes_per_block:
        raise LaunchConfigError(
            f"static shared memory per block: {_kib(launch.static_shared_bytes)} requested, at most "
            f"{_kib(arch.max_shared_bytes_per_block)} can be static (use dynamic shared memory beyond)")
    total = launch.static_shared_bytes + launch.dynamic_shared_bytes
    if total > arch.max_shared_bytes_per_block_optin:
        raise LaunchConfigError(
            f"shared memory per block: {_kib(total)} requested (static + dynamic), compute capability {cc} "
            f"allows at most {_kib(arch.max_shared_bytes_per_block_optin)} (opt-in)")
    attribute = launch.max_dynamic_shared_bytes
    attribute_limit = arch.max_shared_bytes_per_block_optin - launch.static_shared_bytes
    if attribute is not None and not 0 <= attribute <= attribute_limit:
        raise LaunchConfigError(
            f"max dynamic shared memory attribute: {attribute} bytes requested, compute capability {cc} "
            f"allows 0 to {attribute_limit} bytes (opt-in minus {launch.static_shared_bytes} static)")
    if launch.carveout_percent is not None and not 0 <= launch.carveout_percent <= 100:
        raise LaunchConfigError(
            f"shared memory carve-out: {launch.carveout_percent} % requested, a percentage from 0 to 100 "
            "(or None: no preference)")


def registers_per_warp(registers_per_thread: int, arch: Architecture = SM90) -> int:
    """Registers allocated to a warp: registers per thread x 32, rounded up to a multiple of 256
    (Header: cudaOccMaxBlocksPerSMRegsLimit, regsAllocatedPerWarp). 33 registers cost what 40 do."""
    return round_up(registers_per_thread * arch.warp_size, arch.register_allocation_unit)


def _blocks_by_registers(warps_per_block: int, per_warp: int, arch: Architecture) -> int | None:
    """Header, cudaOccMaxBlocksPerSMRegsLimit: registers are split evenly among the SM's 4
    sub-partitions and a warp's registers all come from one of them, so an SM holds
    4 x floor((registers per SM / 4) / registers per warp) warps, and that many warps divided by
    the block's warps (rounded down) blocks. A block whose warps, rounded up to a multiple of 4
    (the hardware checks all sub-partitions at once), need more than the registers per block
    cannot launch: 0 (with 64K registers per block and per SM, as on every capability tabled
    here, the per-SM limit is then 0 too). A kernel with no registers sets no limit (None)."""
    if per_warp == 0:
        return None
    if per_warp * round_up(warps_per_block, arch.sm_sub_partitions) > arch.max_registers_per_block:
        return 0
    warps_per_sub_partition = (arch.registers_per_sm // arch.sm_sub_partitions) // per_warp
    return warps_per_sub_partition * arch.sm_sub_partitions // warps_per_block


def shared_bytes_per_block(launch: KernelLaunch, arch: Architecture = SM90) -> int:
    """Shared memory a block holds: static + dynamic + the per-block reservation (1 KiB from 8.0
    on), rounded up to the allocation unit (128 bytes on 8.x/9.0, 256 on 7.x).
    Header: cudaOccMaxBlocksPerSMSmemLimit (smemAllocatedPerCTA); Guide: the 1 KiB reserved."""
    total = launch.static_shared_bytes + launch.dynamic_shared_bytes + arch.reserved_shared_bytes_per_block
    return round_up(total, arch.shared_allocation_unit_bytes)


def carveout_bytes(bytes_: int, arch: Architecture = SM90) -> int:
    """The smallest shared-memory capacity the SM can be set to that holds bytes_
    (Header: cudaOccAlignUpShmemSizeVoltaPlus; Guide: the capacities of each compute capability)."""
    return min(c for c in arch.shared_carveouts_bytes if c >= bytes_)


def shared_bytes_per_sm(block_bytes: int, carveout_percent: int | None, arch: Architecture = SM90) -> int:
    """The SM's shared-memory capacity the occupancy is computed with.

    Header, cudaOccSMemPreferenceVoltaPlus and cudaOccMaxBlocksPerSMSmemLimit: the preference is
    the whole capacity by default (no preference), else ``percent x capacity / 100`` rounded down,
    then up to a capacity the SM supports; when one block needs more than the preference, the
    smallest capacity that holds that block is used instead. So with the default the driver
    answers as if the SM had all its shared memory (the Guide: the driver "configures the shared
    memory capacity for each kernel to avoid shared memory occupancy bottlenecks"), and a
    preference below it can cost blocks."""
    if carveout_percent is None:
        preferred = arch.shared_bytes_per_sm
    else:
        preferred = carveout_percent * arch.shared_bytes_per_sm // 100
    preferred = carveout_bytes(preferred, arch)
    return preferred if preferred >= block_bytes else carveout_bytes(block_bytes, arch)


def _blocks_by_shared_memory(launch: KernelLaunch, block_bytes: int, sm_bytes: int) -> int | None:
    """Header, cudaOccMaxBlocksPerSMSmemLimit: a dynamic size over the kernel's max-dynamic
    attribute cannot launch (0); otherwise floor(SM capacity / block's bytes), None when a block
    holds no shared memory. (The Header's per-block limit check cannot fail on inputs that pass
    :func:`check`.)"""
    if launch.max_dynamic_shared_bytes is not None and launch.dynamic_shared_bytes > launch.max_dynamic_shared_bytes:
        return 0
    if block_bytes == 0:
        return None
    return sm_bytes // block_bytes


def calculate(launch: KernelLaunch, arch: Architecture = SM90) -> Occupancy:
    """Resident blocks per SM = the smallest of the four limits (Header:
    cudaOccMaxActiveBlocksPerMultiprocessor):

    - warps: floor(max warps per SM / ceil(threads / 32)): a partial warp takes a whole warp slot;
    - registers: :func:`_blocks_by_registers`;
    - shared memory: :func:`_blocks_by_shared_memory` with :func:`shared_bytes_per_sm`;
    - blocks: the SM's resident-block limit (Header: cudaOccMaxBlocksPerMultiprocessor).

    Active warps = blocks x ceil(threads / 32); occupancy = active warps / max warps per SM.
    The Header's two other limits are not modelled, as neither binds here: block barriers (from
    9.0 on, cudaOccMaxBlocksPerSMBlockBarrierLimit: 1 or 2 barriers per resident-block slot, so a
    kernel synchronising with ``__syncthreads()`` alone, one barrier, reaches the blocks limit
    first) and virtual resources (from 10.0 on, cudaOccMaxBlocksPerSMVirtualResource: 0 for a
    kernel built by the compiler, which the runtime's attributes describe).
    Raises LaunchConfigError for impossible inputs (:func:`check`).
    """
    check(launch, arch)
    warps_per_block = ceil_div(launch.threads_per_block, arch.warp_size)
    per_warp = registers_per_warp(launch.registers_per_thread, arch)
    block_bytes = shared_bytes_per_block(launch, arch)
    sm_bytes = shared_bytes_per_sm(block_bytes, launch.carveout_percent, arch)
    limits = Limits(
        warps=arch.max_warps_per_sm // warps_per_block,
        registers=_blocks_by_registers(warps_per_block, per_warp, arch),
        shared_memory=_blocks_by_shared_memory(launch, block_bytes, sm_bytes),
        blocks=arch.max_blocks_per_sm,
    )
    by_resource = {name: getattr(limits, name) for name in LIMITERS}
    blocks = min(n for n in by_resource.values() if n is not None)
    active_warps = blocks * warps_per_block
    return Occupancy(
        blocks_per_sm=blocks,
        warps_per_block=warps_per_block,
        active_warps_per_sm=active_warps,
        max_warps_per_sm=arch.max_warps_per_sm,
        occupancy=active_warps / arch.max_warps_per_sm,
        limiters=tuple(name for name, n in by_resource.items() if n == blocks),
        limits=limits,
        registers_per_block=per_warp * warps_per_block,
        shared_bytes_per_block=block_bytes,
        shared_bytes_per_sm=sm_bytes,
    )


@dataclass(frozen=True)
class Chart:
    """One of the occupancy spreadsheet's three charts: occupancy against one input, the others
    held, and the current configuration's point."""

    x_name: str
    points: tuple[tuple[int, float], ...]
    current: tuple[int, float]


def _chart(launch: KernelLaunch, arch: Architecture, x_name: str, xs, vary, current_x: int) -> Chart:
    points = tuple((x, calculate(vary(x), arch).occupancy) for x in xs)
    return Chart(x_name=x_name, points=points, current=(current_x, calculate(launch, arch).occupancy))


def block_size_chart(launch: KernelLaunch, arch: Architecture = SM90) -> Chart:
    """Occupancy for every whole-warp block size, 32 to the maximum (1024)."""
    xs = range(arch.warp_size, arch.max_threads_per_block + 1, arch.warp_size)
    return _chart(launch, arch, "threads_per_block", xs,
                  lambda x: dataclasses.replace(launch, threads_per_block=x), launch.threads_per_block)


def registers_chart(launch: KernelLaunch, arch: Architecture = SM90) -> Chart:
    """Occupancy for 8, 16, ... 248 and 255 registers per thread: with 256-register warp units,
    occupancy only changes at multiples of 8 registers, so these points draw the whole curve."""
    step = arch.register_allocation_unit // arch.warp_size
    xs = (*range(step, arch.max_registers_per_thread, step), arch.max_registers_per_thread)
    return _chart(launch, arch, "registers_per_thread", xs,
                  lambda x: dataclasses.replace(launch, registers_per_thread=x), launch.registers_per_thread)


def shared_memory_chart(launch: KernelLaunch, arch: Architecture = SM90) -> Chart:
    """Occupancy for 0 to the opt-in limit of shared memory per block (static + dynamic), every
    KiB, as if the kernel opted in to what it requests."""
    xs = range(0, arch.max_shared_bytes_per_block_optin + 1, KIB)
    return _chart(launch, arch, "shared_bytes_per_block", xs,
                  lambda x: dataclasses.replace(launch, static_shared_bytes=0, dynamic_shared_bytes=x,
                                                max_dynamic_shared_bytes=None),
                  launch.static_shared_bytes + launch.dynamic_shared_bytes)


def waves(grid_blocks: int, sm_count: int, blocks_per_sm: int) -> float:
    """Waves = grid blocks / (SMs x resident blocks per SM): how many times the GPU is filled."""
    if grid_blocks < 0 or sm_count < 1 or blocks_per_sm < 1:
        raise ValueError(
            f"waves need grid_blocks >= 0, sm_count >= 1, blocks_per_sm >= 1; got {grid_blocks}, {sm_count}, {blocks_per_sm}")
    return grid_blocks / (sm_count * blocks_per_sm)


def tail_efficiency(grid_blocks: int, sm_count: int, blocks_per_sm: int) -> float:
    """Waves / ceil(waves): the share of the block slots of the waves run that hold a block,
    when blocks take equal time. 133 one-block-per-SM blocks on 132 SMs: 133 / 264 = 0.50."""
    w = waves(grid_blocks, sm_count, blocks_per_sm)
    return w / math.ceil(w) if grid_blocks else 0.0


def dynamic_shared_for_blocks(blocks_per_sm: int, launch: KernelLaunch, arch: Architecture = SM90) -> int:
    """The least dynamic shared memory per block with which ``launch`` (its other inputs as given,
    opted in to any dynamic size) holds exactly ``blocks_per_sm`` blocks per SM: how a lab sets the
    resident warps per SM with nothing but the launch.

    0 when the other resources already stop at ``blocks_per_sm``. Otherwise a block must hold more
    than 1/(blocks + 1) of the SM's shared memory: the smallest allocation-unit multiple above
    (SM's shared bytes) / (blocks + 1), minus static memory and the reservation. LaunchConfigError
    when the other resources stop below ``blocks_per_sm`` (shared memory can only lower residency)
    or a block would need more than the opt-in limit.
    """
    free = dataclasses.replace(launch, dynamic_shared_bytes=0, max_dynamic_shared_bytes=None)
    most = calculate(free, arch).blocks_per_sm
    if not 1 <= blocks_per_sm <= most:
        raise LaunchConfigError(
            f"{blocks_per_sm} resident blocks per SM requested: this kernel and block size allow 1 to {most} "
            "(shared memory can only lower residency)")
    if blocks_per_sm == most:
        return 0
    sm_bytes = shared_bytes_per_sm(0, free.carveout_percent, arch)
    block_bytes = round_up(sm_bytes // (blocks_per_sm + 1) + 1, arch.shared_allocation_unit_bytes)
    dynamic = block_bytes - launch.static_shared_bytes - arch.reserved_shared_bytes_per_block
    capped = dataclasses.replace(free, dynamic_shared_bytes=dynamic)
    check(capped, arch)
    if calculate(capped, arch).blocks_per_sm != blocks_per_sm:  # a carve-out preference below the SM's capacity
        raise LaunchConfigError(f"no dynamic shared memory size holds exactly {blocks_per_sm} blocks per SM "
                                f"with a carve-out preference of {launch.carveout_percent} %")
    return dynamic


def page_data() -> dict:
    """What the in-page calculator (site/assets/occupancy_calculator.js) computes with: every
    architecture's limits, by label ("9.0"), and the GPUs it offers by name, as JSON-ready data.
    The site writes it into ``assets/labkit/occupancy_data.js``, so the page and labkit share one table."""
    return {
        "architectures": {arch.label: dataclasses.asdict(arch) for arch in ARCHITECTURES.values()},
        "gpus": [{"name": name, "compute_capability": f"{cc[0]}.{cc[1]}"} for name, cc in CALCULATOR_GPUS],
        "default": SM90.label,
    }
