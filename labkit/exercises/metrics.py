"""What an exercise can hold the learner's code to, besides a correct output.

Simulator metrics are pure functions of the :class:`labkit.exercises.watch.Evidence` of one run
(the analyzer's counts are what Nsight Compute would count for the same launches, see
labkit.models.access); GPU metrics are measured by labkit.exercises.on_gpu. Each has a label
``exercise.metric.<id>`` in every language.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from labkit.exercises.spec import HOST_WRITTEN, INPUTS_UNREAD, Exercise, Metric
from labkit.models.access import Op, Space

if TYPE_CHECKING:
    from labkit.exercises.watch import Evidence


def dram_bytes_per_element(evidence: Evidence) -> float:
    """Chapter 1's bytes: 32 bytes per distinct sector each launch reads or writes (each launch
    starts from DRAM, as it does at a size that does not fit in L2), summed over launches, per element."""
    counts = evidence.counts
    return (counts.dram_read_bytes + counts.dram_write_bytes) / evidence.elements


def launches(evidence: Evidence) -> float:
    return float(len(evidence.launches))


def host_written(evidence: Evidence) -> float:
    """Output elements whose last write came from host code, not a kernel (labkit.exercises.watch):
    0 for any answer the kernels compute; all of them for an answer computed with NumPy on the
    host and copied back."""
    return float(sum(evidence.host_written.values()))


def inputs_unread(evidence: Evidence) -> float:
    """Input elements no kernel loaded (labkit.exercises.watch): 0 for any answer the kernels
    compute from the inputs; all of them for an answer computed on the host and moved into the
    output by a kernel."""
    return float(sum(evidence.inputs_unread.values()))


def atomics_per_element(evidence: Evidence) -> float:
    """Atomic operations performed by all threads / elements."""
    return evidence.atomics / evidence.elements


def load_sectors_per_request(evidence: Evidence) -> float:
    """Global loads: sectors / requests (ncu's l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum over
    l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum); 4 for coalesced float32, up to 32."""
    return evidence.counts.of(Space.GLOBAL, Op.LOAD).sectors_per_request


def store_sectors_per_request(evidence: Evidence) -> float:
    """Global stores: sectors / requests (..._op_st)."""
    return evidence.counts.of(Space.GLOBAL, Op.STORE).sectors_per_request


def shared_conflicts_per_request(evidence: Evidence) -> float:
    """Shared loads and stores: extra wavefronts (bank conflicts) / instructions; 0 without conflicts,
    31 when 32 lanes hit 32 distinct words of one bank."""
    load, store = evidence.counts.of(Space.SHARED, Op.LOAD), evidence.counts.of(Space.SHARED, Op.STORE)
    instructions = load.instructions + store.instructions
    return (load.bank_conflicts + store.bank_conflicts) / instructions if instructions else 0.0


METRICS: dict[str, Metric] = {metric.id: metric for metric in (
    Metric("dram_bytes_per_element", "simulator", 1, dram_bytes_per_element),
    Metric("launches", "simulator", 0, launches),
    Metric(HOST_WRITTEN, "simulator", 0, host_written),
    Metric(INPUTS_UNREAD, "simulator", 0, inputs_unread),
    Metric("atomics_per_element", "simulator", 4, atomics_per_element),
    Metric("load_sectors_per_request", "simulator", 1, load_sectors_per_request),
    Metric("store_sectors_per_request", "simulator", 1, store_sectors_per_request),
    Metric("shared_conflicts_per_request", "simulator", 2, shared_conflicts_per_request),
    # measured on a GPU (labkit.exercises.on_gpu)
    Metric("time_ratio", "gpu", 2),          # the learner's median time / ours, same inputs, same run
    Metric("registers", "gpu", 0),           # per thread, the most of the learner's kernels
    Metric("local_bytes", "gpu", 0),         # local memory per thread (spills, local arrays), the most
    Metric("gbps", "gpu", 0),                # the exercise's floor bytes / the learner's median time
)}


def metric(exercise: Exercise, metric_id: str) -> Metric:
    """The exercise's own metric of that id, else the shared one."""
    own = {m.id: m for m in exercise.own_metrics}
    return own.get(metric_id) or METRICS[metric_id]
