"""Which part of the SM a kernel keeps busiest, from Nsight Compute's Compute Workload Analysis.

Speed of Light's "Compute (SM) Throughput" (``sm__throughput``) is a maximum over the SM's
sub-metrics: instruction issue and each execution pipe (ALU, FMA, FP64, LSU, tensor, XU...). A
kernel that does no arithmetic can read high because its integer or load/store instructions keep
the issue slots or one pipe busy. To say what binds, read the breakdown. Every unit here is a
percentage of its own peak over the elapsed time, as in Speed of Light, so the units compare
with each other and with "Compute (SM)". (The memory side is Speed of Light's own: "Memory
Throughput", ``gpu__compute_memory_throughput``, is the larger of the memory pipeline's access and
request throughputs, which DRAM, L2 and L1 feed; see labkit.profiling.diagnosis.)

What each unit's saturation means (the ``kind``):

- ``onchip``: the load/store path (LSU instructions, L1's data-stage wavefronts, and among them
  shared memory's, which bank conflicts multiply): too many or too narrow memory instructions;
- ``issue``: instruction issue and the integer/control pipes (ALU, uniform, ADU, CBU): too many
  instructions per useful byte or FLOP, often index arithmetic;
- ``arithmetic``: FMA, FP64, tensor and XU (special functions) pipes. The FMA pipe also runs
  integer multiply-adds (IMAD), so a busy FMA pipe is not always floating-point math: the source
  counters say which instructions fill it.
"""

from __future__ import annotations

from typing import Literal

from labkit.profiling.ncu import KernelProfile
from labkit.records import Percent, Record

UnitKind = Literal["dram", "onchip", "issue", "arithmetic"]   # "dram": only Speed of Light's, see diagnosis

#: (unit id, kind, metric names: the first one present in the report is read).
UNITS: tuple[tuple[str, UnitKind, tuple[str, ...]], ...] = (
    ("lsu_wavefronts", "onchip", ("l1tex__data_pipe_lsu_wavefronts.avg.pct_of_peak_sustained_elapsed",)),
    ("shared_wavefronts", "onchip", ("l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",)),
    ("pipe_lsu", "onchip", ("sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_elapsed",)),
    ("issue", "issue", ("sm__inst_issued.avg.pct_of_peak_sustained_elapsed",)),
    ("pipe_alu", "issue", ("sm__inst_executed_pipe_alu.avg.pct_of_peak_sustained_elapsed",)),
    ("pipe_uniform", "issue", ("sm__inst_executed_pipe_uniform.avg.pct_of_peak_sustained_elapsed",)),
    ("pipe_adu", "issue", ("sm__inst_executed_pipe_adu.avg.pct_of_peak_sustained_elapsed",)),
    ("pipe_cbu", "issue", ("sm__inst_executed_pipe_cbu.avg.pct_of_peak_sustained_elapsed",)),
    ("pipe_fma", "arithmetic", ("sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_elapsed",)),
    ("pipe_fp64", "arithmetic", ("sm__inst_executed_pipe_fp64.avg.pct_of_peak_sustained_elapsed",)),
    ("pipe_tensor", "arithmetic", ("sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_elapsed",)),
    ("pipe_xu", "arithmetic", ("sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_elapsed",)),
)

#: Units of the list that belong to L1, not to the SM's issue and pipes: Speed of Light's "Compute
#: (SM)" is not their maximum (the naive transpose's L1 data stage reads 25 % under a Compute (SM)
#: of 7.5 %).
MEMORY_SIDE_UNITS = frozenset({"lsu_wavefronts", "shared_wavefronts"})

#: Every metric the units read, so that a stored profile can keep just these.
UNIT_METRICS = frozenset(name for _, _, names in UNITS for name in names)


class UnitLoad(Record):
    """One unit's throughput in % of its peak over the elapsed time."""

    unit: str
    kind: UnitKind
    pct: Percent


def unit_loads(profile: KernelProfile) -> list[UnitLoad]:
    """The SM's units the report measures, busiest first (a unit whose metric is absent is left out)."""
    loads = []
    for unit, kind, names in UNITS:
        present = next((name for name in names if name in profile.metrics), None)
        if present is not None:
            loads.append(UnitLoad(unit=unit, kind=kind, pct=profile.value(present)))
    return sorted(loads, key=lambda load: load.pct, reverse=True)
