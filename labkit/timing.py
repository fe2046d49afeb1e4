"""The course's GPU timer, built on its five rules.

1. Warm up: ``warmup`` untimed calls first (JIT compilation, allocations, clocks ramping up).
2. Repeat: ``repeats`` timed calls, one pair of CUDA events around each.
3. Take the median, and report min and max beside it.
4. Synchronise before reading: event times are read once the device has finished.
5. Report the clocks read during the run (NVML, every ~5 ms); never set them.

Optionally, L2 is flushed before each timed call by writing a buffer of twice its size,
outside the event pair, so that the kernel meets a cold cache and reads DRAM.

Back to back: the timed calls are enqueued while a one-thread kernel holds the stream, then
released together, so a kernel shorter than Python's launch latency is timed alone rather
than with the host's delay before it. When ``fn`` waits for the GPU (a synchronisation, a
copy to the host), the hold gives up after a short while and the remaining calls are timed
one by one, like a plain event timer: ``Timing.back_to_back`` then reads False.

``fn`` enqueues its work on the default stream or on blocking streams (Numba's
``cuda.stream()``, CuPy's streams): the legacy default stream, where the timer records its
events, is ordered with those.
"""

from __future__ import annotations

import functools
import statistics
import threading
from typing import Callable

import numpy as np

from labkit.device import Clocks, current_pci_bus_id, median_clocks, read_clocks, read_device_facts
from labkit.records import Count, Positive, Spread

#: Timed calls enqueued behind one hold, so that the launch queue never fills while held.
HOLD_CHUNK = 50
#: Polls of the release flag before the hold gives up; one poll sleeps ~1 us and reads host memory.
HOLD_MAX_POLLS = 100_000
HOLD_POLL_NS = 1000
CLOCK_SAMPLE_SECONDS = 0.005


class Timing(Spread):
    """What the timer measured: the median of ``repeats`` calls, with min and max beside it."""

    warmup: Count
    l2_flushed: bool
    sm_clock_mhz: Positive | None  # median of the samples read during the repetitions
    mem_clock_mhz: Positive | None
    back_to_back: bool  # False: fn waited for the GPU, each time includes the host's latency

    def gbps(self, bytes_: float) -> float:
        """Apparent bandwidth: bytes / median time, in 10^9 bytes/s."""
        return bytes_ / self.median_seconds / 1e9

    def gflops(self, flops: float) -> float:
        """Apparent arithmetic rate: FLOPs / median time, in 10^9 FLOP/s."""
        return flops / self.median_seconds / 1e9


def summarize_seconds(samples: list[float]) -> tuple[float, float, float]:
    """(median, min, max) of the samples."""
    if not samples:
        raise ValueError("no samples to summarize")
    return statistics.median(samples), min(samples), max(samples)


def repetition_chunks(repeats: int, chunk: int) -> list[int]:
    """Split ``repeats`` into chunks of at most ``chunk``: 120 by 50 -> [50, 50, 20]."""
    return [min(chunk, repeats - start) for start in range(0, repeats, chunk)]


def _cuda():
    """numba.cuda on a GPU; NoGPUError in the simulator, where no time means anything."""
    from labkit.gpu import require_gpu

    return require_gpu("no timing in the Numba CUDA simulator: the simulator runs kernels on the CPU")


class L2Flusher:
    """Evicts L2 by a memset of 2 x L2 bytes, enqueued on the default stream."""

    def __init__(self, l2_bytes: int):
        cuda = _cuda()
        self.stream = cuda.default_stream()
        self.buffer = cuda.device_array(2 * l2_bytes, dtype="uint8")

    def flush(self) -> None:
        from numba.cuda.cudadrv.driver import device_memset

        device_memset(self.buffer, 0, self.buffer.size, stream=self.stream)


@functools.cache
def _flusher() -> L2Flusher:
    return L2Flusher(read_device_facts().l2_bytes)


HOLD_SIGNATURE = "void(int32[::1], int64, uint32)"


def _hold_until_released():
    """The hold kernel's Python function (numba.cuda must be imported, backend chosen, first).

    flags[0] is polled with a volatile load: a plain or cache-hinted load is hoisted out of
    the loop by the compiler (it reads the flag once), and L1 could serve a stale value.
    """
    from llvmlite import ir
    from numba import cuda
    from numba.cuda import types
    from numba.cuda.extending import intrinsic

    @intrinsic
    def volatile_first(typingctx, array):
        def codegen(context, builder, signature, args):
            data = context.make_array(signature.args[0])(context, builder, value=args[0]).data
            load = ir.InlineAsm(
                ir.FunctionType(ir.IntType(32), [data.type]), "ld.volatile.s32 $0, [$1];", "=r,l", side_effect=True
            )
            return builder.call(load, [data])

        return types.int32(array), codegen

    def hold_until_released(flags, max_polls, poll_ns):
        for _ in range(max_polls):
            if volatile_first(flags) != 0:
                return
            cuda.nanosleep(poll_ns)
        flags[1] = 1

    return hold_until_released


class _Hold:
    """A one-thread kernel that keeps the default stream busy until the host releases it.

    ``flags`` is host-mapped: flags[0] = 1 releases the kernel; the kernel sets flags[1] = 1
    when it gave up waiting after HOLD_MAX_POLLS polls.
    """

    def __init__(self):
        cuda = _cuda()
        from labkit.gpu import expected_warnings_hidden

        self.flags = cuda.mapped_array(2, dtype="int32")
        with expected_warnings_hidden():  # one thread on purpose: not the low-occupancy mistake it warns of
            self.launch = cuda.jit(HOLD_SIGNATURE)(_hold_until_released())[1, 1]

    def hold(self) -> None:
        self.flags[:] = 0
        self.launch(self.flags, np.int64(HOLD_MAX_POLLS), np.uint32(HOLD_POLL_NS))

    def release(self) -> None:
        self.flags[0] = 1

    @property
    def gave_up(self) -> bool:
        return bool(self.flags[1])


@functools.cache
def _hold() -> _Hold:
    return _Hold()


class _ClockSampler:
    """Reads the clocks every CLOCK_SAMPLE_SECONDS in a background thread, from enter to exit."""

    def __init__(self, pci_bus_id: str):
        self.pci_bus_id = pci_bus_id
        self.samples: list[Clocks] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            clocks = read_clocks(self.pci_bus_id)
            if clocks is None:  # no NVML nor nvidia-smi: nothing to sample
                return
            self.samples.append(clocks)
            if self._stop.wait(CLOCK_SAMPLE_SECONDS):
                return

    def __enter__(self) -> _ClockSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def time_gpu(fn: Callable[[], object], *, warmup: int = 10, repeats: int = 100, flush_l2: bool = False) -> Timing:
    """Time ``fn()``, which enqueues GPU work, by CUDA events (see the module docstring).

    Per repetition: (L2 flush), start event, fn(), end event; the device is synchronised
    before any event is read; each pair gives one sample (ms -> s).
    """
    if repeats < 1 or warmup < 0:
        raise ValueError(f"need repeats >= 1 and warmup >= 0, got repeats={repeats}, warmup={warmup}")
    cuda = _cuda()
    flush = _flusher().flush if flush_l2 else (lambda: None)
    hold = _hold()
    for _ in range(warmup):
        flush()
        fn()
    cuda.synchronize()

    pairs = []
    back_to_back = True
    with _ClockSampler(current_pci_bus_id()) as sampler:
        for chunk in repetition_chunks(repeats, HOLD_CHUNK):
            events = [(cuda.event(), cuda.event()) for _ in range(chunk)]
            if back_to_back:
                hold.hold()
            try:
                for start, end in events:
                    flush()
                    start.record()
                    fn()
                    end.record()
            finally:
                hold.release()
            cuda.synchronize()
            back_to_back = back_to_back and not hold.gave_up
            pairs.extend(events)

    median_seconds, min_seconds, max_seconds = summarize_seconds(
        [cuda.event_elapsed_time(start, end) / 1e3 for start, end in pairs]
    )
    clocks = median_clocks(sampler.samples)
    return Timing(
        median_seconds=median_seconds,
        min_seconds=min_seconds,
        max_seconds=max_seconds,
        repeats=repeats,
        warmup=warmup,
        l2_flushed=flush_l2,
        sm_clock_mhz=None if clocks is None else clocks.sm_mhz,
        mem_clock_mhz=None if clocks is None else clocks.mem_mhz,
        back_to_back=back_to_back,
    )
