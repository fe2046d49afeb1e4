"""The timer and the device facts on a real GPU.

(a) our median agrees with cupyx.profiler.benchmark's on the same kernel;
(b) the L2 effect: a 20 MB working set reads faster than HBM allows unless L2 is flushed;
(c) device facts and clocks read back.
"""

from __future__ import annotations

import functools
from dataclasses import asdict

import numpy as np
import pytest

from labkit.device import current_pci_bus_id, read_clocks, read_device_facts
from labkit.timing import time_gpu

pytestmark = pytest.mark.gpu

THREADS = 256
GIB_OF_FLOAT32 = 1 << 28


@functools.cache
def _copy_kernel():
    from numba import cuda

    @cuda.jit
    def copy(src, dst):
        i = cuda.grid(1)
        if i < src.size:
            dst[i] = src[i]

    return copy


def numba_copy(n_floats: int):
    """fn() launching a Numba copy of n float32, and the bytes it moves (read + written)."""
    from numba import cuda

    src = cuda.to_device(np.arange(n_floats, dtype=np.float32))
    dst = cuda.device_array_like(src)
    kernel, blocks = _copy_kernel(), (n_floats + THREADS - 1) // THREADS
    return (lambda: kernel[blocks, THREADS](src, dst)), 2 * src.nbytes


def cupy_copy(n_floats: int):
    cupy = pytest.importorskip("cupy")
    src = cupy.arange(n_floats, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    return (lambda: cupy.copyto(dst, src)), 2 * src.nbytes


@pytest.mark.parametrize("variant, make", [("cupy_copyto", cupy_copy), ("numba_copy", numba_copy)])
def test_median_agrees_with_cupyx_benchmark(variant, make, record):
    pytest.importorskip("cupy")
    from cupyx.profiler import benchmark

    fn, bytes_ = make(GIB_OF_FLOAT32)
    ours = time_gpu(fn, warmup=10, repeats=50)
    theirs = benchmark(fn, n_warmup=10, n_repeat=50).gpu_times[0]
    theirs_median = float(np.median(theirs))
    ratio = ours.median_seconds / theirs_median
    record(f"timer_vs_cupyx_{variant}", {
        "bytes": bytes_, "ours": ours.to_dict(), "ours_gbps": ours.gbps(bytes_),
        "cupyx_median_seconds": theirs_median, "cupyx_min_seconds": float(theirs.min()),
        "cupyx_max_seconds": float(theirs.max()), "cupyx_gbps": bytes_ / theirs_median / 1e9, "ratio": ratio,
    })
    assert ours.back_to_back
    assert ratio == pytest.approx(1.0, abs=0.03)


def test_l2_effect_is_visible_and_the_flush_removes_it(record):
    facts = read_device_facts()
    fn, bytes_ = numba_copy(2_500_000)  # 10 MB -> 10 MB: 20 MB, well inside L2
    warm = time_gpu(fn, repeats=100)
    cold = time_gpu(fn, repeats=100, flush_l2=True)
    record("l2_effect", {
        "working_set_bytes": bytes_, "l2_bytes": facts.l2_bytes, "hbm_peak_gbps": facts.hbm_peak_gbps,
        "without_flush_gbps": warm.gbps(bytes_), "with_flush_gbps": cold.gbps(bytes_),
        "without_flush": warm.to_dict(), "with_flush": cold.to_dict(),
    })
    assert warm.back_to_back and cold.back_to_back
    assert warm.gbps(bytes_) > facts.hbm_peak_gbps > cold.gbps(bytes_)


def test_timing_reports_spread_and_clocks(record):
    fn, bytes_ = numba_copy(1 << 26)  # 256 MiB -> 256 MiB
    timing = time_gpu(fn, warmup=5, repeats=120)
    record("timing_fields", {"bytes": bytes_, "timing": timing.to_dict(), "gbps": timing.gbps(bytes_)})
    assert timing.repeats == 120 and timing.warmup == 5 and not timing.l2_flushed
    assert 0 < timing.min_seconds <= timing.median_seconds <= timing.max_seconds
    assert timing.sm_clock_mhz is not None and timing.sm_clock_mhz > 0
    assert timing.mem_clock_mhz is not None and timing.mem_clock_mhz > 0
    assert timing.back_to_back


def test_a_function_that_waits_is_timed_one_call_at_a_time(record):
    """A synchronisation inside fn: the hold gives up, the times include the wait, and say so."""
    from numba import cuda

    kernel_fn, _ = numba_copy(1 << 20)

    def launch_and_wait():
        kernel_fn()
        cuda.synchronize()

    waiting = time_gpu(launch_and_wait, warmup=2, repeats=60)
    enqueuing = time_gpu(kernel_fn, warmup=2, repeats=60)
    record("waiting_fn", {"waiting": waiting.to_dict(), "enqueuing": enqueuing.to_dict()})
    assert not waiting.back_to_back and enqueuing.back_to_back
    assert waiting.median_seconds > enqueuing.median_seconds


def test_device_facts(record):
    facts = read_device_facts()
    record("device_facts", {**asdict(facts), "hbm_peak_gbps": facts.hbm_peak_gbps,
                            "fp32_peak_gflops": facts.fp32_peak_gflops})
    if "H200" not in facts.name:
        pytest.skip(f"the known values are the H200's; this GPU is {facts.name}")
    assert facts.compute_capability == (9, 0)
    assert (facts.sm_count, facts.max_sm_clock_mhz, facts.max_mem_clock_mhz) == (132, 1980.0, 3201.0)
    assert (facts.memory_bus_width_bits, facts.l2_bytes) == (6016, 62914560)
    assert (facts.max_shared_bytes_per_block_optin, facts.shared_bytes_per_sm) == (232448, 233472)
    assert (facts.registers_per_sm, facts.max_threads_per_block) == (65536, 1024)
    assert facts.hbm_peak_gbps == pytest.approx(4814.304)
    assert facts.fp32_peak_gflops == pytest.approx(66_908.16)
    major, minor = (int(part) for part in facts.driver_version.split("."))
    assert major >= 12


def test_clocks_are_read(record):
    clocks = read_clocks(current_pci_bus_id())
    record("clocks", {"pci_bus_id": current_pci_bus_id(), "clocks": None if clocks is None else asdict(clocks)})
    assert clocks is not None and clocks.sm_mhz > 0 and clocks.mem_mhz > 0
