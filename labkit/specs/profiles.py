"""What the CUDA driver reports on common GPUs: :class:`labkit.gpu.device.DeviceFacts` for parts the
course is not run on, so that each lab's plan, checks and measurement code can be tried on them in
the simulator (tests/labs/test_device_matrix.py) and ``labkit doctor --as NAME`` can say what each
lab would do there.

The figures are the driver's device attributes as deviceQuery and ``nvidia-smi -q`` print them on
these parts (SM count, maximum SM clock, memory clock, bus width, L2, total memory), with each
compute capability's per-SM limits from labkit.models.occupancy. Only the H200's were read by us (the lent
GPU, shared/GPU.md); the others are simulated profiles, not measurements: a GPU of the same name
may differ (a laptop part's clocks depend on its power limit, a cloud part's memory on ECC).
"""

from __future__ import annotations

from labkit.gpu.device import DeviceFacts
from labkit.models.occupancy import architecture
from labkit.specs import datasheets as sheets
from labkit.specs.datasheets import Datasheet

MIB = 1 << 20


def _facts(sheet: Datasheet, *, sm_mhz: float, mem_mhz: float, bus: int, l2_mib: float,
           memory_mib: int) -> DeviceFacts:
    """The part's driver name, compute capability and SMs from its datasheet, the driver's clocks,
    bus, L2 and memory as given, and its compute capability's per-SM limits."""
    arch = architecture(sheet.compute_capability)
    return DeviceFacts(name=sheet.driver_name, compute_capability=sheet.compute_capability,
                       sm_count=sheet.sm_count, max_sm_clock_mhz=sm_mhz,
                       max_mem_clock_mhz=mem_mhz, memory_bus_width_bits=bus, l2_bytes=int(l2_mib * MIB),
                       max_threads_per_block=arch.max_threads_per_block,
                       max_shared_bytes_per_block_optin=arch.max_shared_bytes_per_block_optin,
                       shared_bytes_per_sm=arch.shared_bytes_per_sm, registers_per_sm=arch.registers_per_sm,
                       driver_version="13.0", memory_bytes=memory_mib * MIB)


#: Profiles by a short name (``labkit doctor --as t4``).
PROFILES: dict[str, DeviceFacts] = {
    "t4": _facts(sheets.T4, sm_mhz=1590, mem_mhz=5001, bus=256, l2_mib=4, memory_mib=15_095),
    "v100": _facts(sheets.V100_SXM2, sm_mhz=1530, mem_mhz=877, bus=4096, l2_mib=6, memory_mib=16_160),
    "a100-40gb": _facts(sheets.A100_SXM4_40GB, sm_mhz=1410, mem_mhz=1215, bus=5120, l2_mib=40, memory_mib=40_536),
    "rtx-3060-laptop": _facts(sheets.RTX_3060_LAPTOP, sm_mhz=1702, mem_mhz=7001, bus=192, l2_mib=3, memory_mib=6_144),
    "l4": _facts(sheets.L4, sm_mhz=2040, mem_mhz=6251, bus=192, l2_mib=48, memory_mib=22_491),
    "rtx-4090": _facts(sheets.RTX_4090, sm_mhz=2520, mem_mhz=10_501, bus=384, l2_mib=72, memory_mib=24_564),
    "h100-pcie": _facts(sheets.H100_PCIE, sm_mhz=1755, mem_mhz=1593, bus=5120, l2_mib=50, memory_mib=81_559),
    "h200": _facts(sheets.H200_SXM, sm_mhz=1980, mem_mhz=3201, bus=6016, l2_mib=60, memory_mib=143_771),
    "b200": _facts(sheets.B200, sm_mhz=1965, mem_mhz=3996, bus=8192, l2_mib=126.5, memory_mib=182_623),
    "rtx-5090": _facts(sheets.RTX_5090, sm_mhz=2407, mem_mhz=14_001, bus=512, l2_mib=96, memory_mib=32_607),
}

#: The course's GPU (labkit.specs.datasheets.COURSE_GPU) as read on the lent H200 (shared/GPU.md): the plans
#: give the labs' sizes on it.
COURSE_GPU = next(facts for facts in PROFILES.values() if facts.name == sheets.COURSE_GPU.driver_name)
