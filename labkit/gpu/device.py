"""Device facts, theoretical peaks, and the clocks a GPU runs at.

Peaks are pure functions of the facts, so the tests need no GPU. Facts are read through
``numba.cuda`` (from :mod:`labkit.gpu`, on a GPU only); clocks through NVML, or
``nvidia-smi`` when NVML is unusable. Nothing here sets a clock or any GPU setting.
"""

from __future__ import annotations

import statistics
import subprocess
from dataclasses import dataclass

from labkit.gpu.backend import NoGPUError
from labkit.specs import architectures


def hbm_peak_gbps(mem_clock_mhz: float, bus_width_bits: int) -> float:
    """B = 2 x f_mem x bus width / 8, in 10^9 bytes/s, with the memory clock the driver reports
    (``CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE``). One formula for HBM and GDDR alike: the driver
    reports a GDDR part's clock already scaled by its extra transfers per clock (an RTX 4090:
    10 501 MHz x 2 x 384 bit / 8 = 1 008 GB/s, its datasheet's figure; a T4: 5 001 MHz, 320 GB/s;
    an H200: 3 201 MHz x 6 016 bit, 4 814 GB/s)."""
    return 2 * mem_clock_mhz * 1e6 * bus_width_bits / 8 / 1e9


def fp32_lanes_per_sm(compute_capability: tuple[int, int]) -> int:
    """FP32 lanes (CUDA cores) per SM (labkit.specs.architectures)."""
    return architectures.compute_capability(compute_capability).fp32_lanes_per_sm


def fp64_lanes_per_sm(compute_capability: tuple[int, int]) -> int:
    """FP64 (non-tensor) lanes per SM (labkit.specs.architectures)."""
    return architectures.compute_capability(compute_capability).fp64_lanes_per_sm


def fp64_ratio(compute_capability: tuple[int, int]) -> float:
    """FP64 lanes / FP32 lanes: 1/2 on data-centre parts, 1/32 or 1/64 on the others."""
    return fp64_lanes_per_sm(compute_capability) / fp32_lanes_per_sm(compute_capability)


def fma_peak_gflops(sm_count: int, lanes_per_sm: int, sm_clock_mhz: float) -> float:
    """P = SMs x lanes per SM x 2 (an FMA is two FLOPs) x f_sm, in 10^9 FLOP/s."""
    return sm_count * lanes_per_sm * 2 * sm_clock_mhz * 1e6 / 1e9


def fp32_peak_gflops(sm_count: int, compute_capability: tuple[int, int], sm_clock_mhz: float) -> float:
    """The FP32 FMA peak (non-tensor) at ``sm_clock_mhz``."""
    return fma_peak_gflops(sm_count, fp32_lanes_per_sm(compute_capability), sm_clock_mhz)


@dataclass(frozen=True)
class DeviceFacts:
    name: str
    compute_capability: tuple[int, int]
    sm_count: int
    max_sm_clock_mhz: float
    max_mem_clock_mhz: float
    memory_bus_width_bits: int
    l2_bytes: int
    max_threads_per_block: int
    max_shared_bytes_per_block_optin: int
    shared_bytes_per_sm: int
    registers_per_sm: int
    driver_version: str  # CUDA driver API version, e.g. "13.0"
    memory_bytes: int    # global memory the device has (cuMemGetInfo's total)

    @property
    def hbm_peak_gbps(self) -> float:
        return hbm_peak_gbps(self.max_mem_clock_mhz, self.memory_bus_width_bits)

    @property
    def fp32_peak_gflops(self) -> float:
        """At the maximum SM clock."""
        return fp32_peak_gflops(self.sm_count, self.compute_capability, self.max_sm_clock_mhz)

    @property
    def fp64_peak_gflops(self) -> float:
        """At the maximum SM clock."""
        return fma_peak_gflops(self.sm_count, fp64_lanes_per_sm(self.compute_capability), self.max_sm_clock_mhz)


def _current_device():
    from labkit.gpu import require_gpu

    cuda = require_gpu()
    try:
        return cuda.get_current_device()
    except cuda.CudaSupportError as error:
        raise NoGPUError("CUDA is not usable: " + " ".join(str(error).split())) from None


def read_device_facts() -> DeviceFacts:
    """The current device's facts, from the CUDA driver's device attributes (clocks in kHz)."""
    device = _current_device()
    from labkit.gpu import cuda
    from numba.cuda.cudadrv.driver import driver

    major, minor = driver.get_version()
    _, total_bytes = cuda.current_context().get_memory_info()
    return DeviceFacts(
        name=device.name,
        compute_capability=tuple(device.compute_capability),
        sm_count=device.MULTIPROCESSOR_COUNT,
        max_sm_clock_mhz=device.CLOCK_RATE / 1000,
        max_mem_clock_mhz=device.MEMORY_CLOCK_RATE / 1000,
        memory_bus_width_bits=device.GLOBAL_MEMORY_BUS_WIDTH,
        l2_bytes=device.L2_CACHE_SIZE,
        max_threads_per_block=device.MAX_THREADS_PER_BLOCK,
        max_shared_bytes_per_block_optin=device.MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        shared_bytes_per_sm=device.MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
        registers_per_sm=device.MAX_REGISTERS_PER_MULTIPROCESSOR,
        driver_version=f"{major}.{minor}",
        memory_bytes=int(total_bytes),
    )


def current_pci_bus_id() -> str:
    """The current device's PCI address, domain:bus:device.function, as NVML and nvidia-smi take it."""
    device = _current_device()
    return f"{device.PCI_DOMAIN_ID:04x}:{device.PCI_BUS_ID:02x}:{device.PCI_DEVICE_ID:02x}.0"


@dataclass(frozen=True)
class Clocks:
    sm_mhz: float
    mem_mhz: float


#: NVML's clocks-event reasons that cap the clock for power or heat (nvmlClocksEventReason*, the
#: bits of nvmlDeviceGetCurrentClocksEventReasons): a sample taken under one is flagged throttled.
#: Not among them: GpuIdle (0x1), application or user clocks (0x2), SyncBoost (0x10), display (0x100).
THROTTLE_REASONS = {0x4: "sw_power_cap", 0x8: "hw_slowdown", 0x20: "sw_thermal_slowdown",
                    0x40: "hw_thermal_slowdown", 0x80: "hw_power_brake_slowdown"}


def throttle_names(reasons: int | None) -> list[str]:
    """The power or thermal caps named by a clocks-event reasons bitmask (None: not read)."""
    return [name for bit, name in THROTTLE_REASONS.items() if reasons and reasons & bit]


@dataclass(frozen=True)
class ClockState:
    """The clocks now and NVML's clocks-event reasons (None where only nvidia-smi answered)."""

    clocks: Clocks
    reasons: int | None


def median_clocks(samples: list[Clocks]) -> Clocks | None:
    """The median SM and memory clocks of the samples; None when there are none."""
    if not samples:
        return None
    return Clocks(
        sm_mhz=statistics.median(c.sm_mhz for c in samples),
        mem_mhz=statistics.median(c.mem_mhz for c in samples),
    )


def _nvml():
    """pynvml, initialised; None when the package or the NVML library is unusable."""
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()  # reference-counted: cheap after the first call
    except pynvml.NVMLError:
        return None
    return pynvml


def _nvml_handle(pynvml, pci_bus_id: str | None):
    if pci_bus_id is None:
        return pynvml.nvmlDeviceGetHandleByIndex(0)
    return pynvml.nvmlDeviceGetHandleByPciBusId(pci_bus_id)


def _clocks_from_nvml(pci_bus_id: str | None, with_reasons: bool = False) -> ClockState | None:
    pynvml = _nvml()
    if pynvml is None:
        return None
    try:
        handle = _nvml_handle(pynvml, pci_bus_id)
        clocks = Clocks(
            sm_mhz=float(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_SM)),
            mem_mhz=float(pynvml.nvmlDeviceGetClockInfo(handle, pynvml.NVML_CLOCK_MEM)),
        )
    except pynvml.NVMLError:
        return None
    reasons = None
    if with_reasons:
        try:
            reasons = int(pynvml.nvmlDeviceGetCurrentClocksEventReasons(handle))
        except pynvml.NVMLError:  # not supported on this part or driver: clocks without reasons
            reasons = None
    return ClockState(clocks=clocks, reasons=reasons)


def _smi_query(fields: str, pci_bus_id: str | None) -> str | None:
    """nvidia-smi --query-gpu=FIELDS for one GPU (the first without a bus id); None if it fails."""
    command = ["nvidia-smi", f"--query-gpu={fields}", "--format=csv,noheader,nounits"]
    if pci_bus_id is not None:
        command.append(f"--id={pci_bus_id}")
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout


def parse_smi_clocks(text: str) -> Clocks | None:
    """The first line of ``--query-gpu=clocks.sm,clocks.mem ... nounits``, e.g. "1980, 3201"."""
    lines = text.strip().splitlines()
    if not lines:
        return None
    try:
        sm_mhz, mem_mhz = (float(field) for field in lines[0].split(","))
    except ValueError:  # "[N/A]", or not two fields
        return None
    return Clocks(sm_mhz=sm_mhz, mem_mhz=mem_mhz)


def read_clocks(pci_bus_id: str | None = None) -> Clocks | None:
    """The SM and memory clocks now (MHz): NVML, else nvidia-smi, else None. Reads, never sets.

    ``pci_bus_id`` picks the GPU (see :func:`current_pci_bus_id`); without it, the first GPU.
    """
    state = _clocks_from_nvml(pci_bus_id)
    if state is not None:
        return state.clocks
    text = _smi_query("clocks.sm,clocks.mem", pci_bus_id)
    return None if text is None else parse_smi_clocks(text)


def read_clock_state(pci_bus_id: str | None = None) -> ClockState | None:
    """The clocks now with NVML's clocks-event reasons (the timer's sampler); without NVML, the
    clocks nvidia-smi reads and no reasons; None when neither answers. Reads, never sets."""
    state = _clocks_from_nvml(pci_bus_id, with_reasons=True)
    if state is not None:
        return state
    clocks = read_clocks(pci_bus_id)
    return None if clocks is None else ClockState(clocks=clocks, reasons=None)


def read_driver_release(pci_bus_id: str | None = None) -> str | None:
    """The installed driver's release, e.g. "580.159.04": NVML, else nvidia-smi, else None."""
    pynvml = _nvml()
    if pynvml is not None:
        try:
            return pynvml.nvmlSystemGetDriverVersion()
        except pynvml.NVMLError:
            pass
    text = _smi_query("driver_version", pci_bus_id)
    return text.strip().splitlines()[0] if text and text.strip() else None
