"""The course's GPU timer, built on its five rules.

1. Warm up: ``warmup`` untimed calls first (JIT compilation, allocations, clocks ramping up).
2. Repeat: ``repeats`` timed calls, one pair of CUDA events around each.
3. Take the median, and report min and max beside it.
4. Synchronise before reading: event times are read once the device has finished.
5. Report the clocks: the SM clock each call really ran at, measured on the GPU (below), and
   NVML's readings during the run (every ~5 ms), kept as provenance; never set them.
6. Judge the samples (issue 29, after NVIDIA's nvbench): record their relative noise, flag those
   taken while NVML reported the clock capped by power or heat, and stop on a noise target.

The SM clock a call ran at. NVML's reading is not it: under dense tensor-core load an H200's NVML
read 1 965-1 980 MHz while ncu's ``sm__cycles_elapsed.avg.per_second`` read 1.56-1.80 GHz for the
same kernels (issue 29). So, as nvbench does (``detail/timestamps_kernel.cu``), a stamp kernel runs
just before and just after each timed call, on the same stream, outside the event pair: one
one-thread block per SM, and the block that lands on SM 0 writes ``%globaltimer`` (ns) and
``clock64`` (SM 0's cycles). Cycles over nanoseconds between the two stamps is the mean SM clock
over the call. Why this and not a probe running beside the timed kernel on another stream: the
two stamps read one SM's counter (clock64 counts per SM, the counters of two SMs need not agree),
the stamps add two launches of a few microseconds and no idle time that would let a power-capped
clock rise, and they take no slot on any SM while the timed kernel runs (a resident probe warp
would keep one block of a register- or warp-limited kernel off its SM, and change a one-wave
kernel's waves). The SM clock is one clock for the whole chip, so SM 0's is every SM's. The run's
figure is the sum of the cycles over the sum of the nanoseconds of its calls (a calls-weighted
mean); ``%globaltimer`` ticks coarsely (about 1 us), which that sum averages out.

Noise and the stopping rule, nvbench's ``stdrel`` criterion (``detail/stdrel_criterion.cxx``):
the noise after n samples is their standard deviation over their mean; after at least
``repeats`` samples the timer stops once it is under ``max_noise`` or, past 64 noise values, when
the noise has settled (the standard deviation of the noise values around the current one under
5 % of it: a kernel that is noisy by nature stops there rather than never); otherwise it stops at
its time budget (nvbench's ``--timeout``, here ``budget_seconds`` of wall time after the first
``repeats``) or at ``MAX_REPEATS_FACTOR`` x ``repeats`` samples. Defaults differ from nvbench's
(0.5 %, 15 s): the labs time hundreds of measurements and must end in two minutes.

Throttled samples: NVML's clocks-event reasons are read with the clocks; a sample is flagged when
a reading taken during it (or the nearest reading, for a sample shorter than the sampling period)
names a power or thermal cap (:data:`labkit.gpu.device.THROTTLE_REASONS`). Flagged samples are kept,
and counted: a power-capped clock is the clock that kernel runs at on that card (the measured clock
says which), not an accident to discard as nvbench's recovery pause does.

Call for call (:func:`time_interleaved`): two kernels to be compared are timed in alternation,
repetition by repetition, rather than one after the other. Under a power cap the clock a kernel
is given depends on what ran before it and for how long (an H200 at 8192^3 GEMMs: cuBLAS FP16 at
1376 MHz over 200 timed calls in one recording, at 1519 MHz over 20 in the next), so two kernels
timed one after the other are compared at two power states; in alternation both see the same.

Optionally, L2 is flushed before each timed call by writing a buffer of twice its size,
outside the event pair, so that the kernel meets a cold cache and reads DRAM.

Back to back: the timed calls are enqueued while a one-thread kernel holds the stream, then
released together, so a kernel shorter than Python's launch latency is timed alone rather
than with the host's delay before it. When ``fn`` waits for the GPU (a synchronisation, a
copy to the host), the hold gives up after a short while and the remaining calls are timed
one by one, like a plain event timer: ``Timing.back_to_back`` then reads False. A hold also gives
up when the host cannot enqueue a whole chunk before it does: a call that launches many kernels
(lab 04's chain of 64) fills CUDA's launch queue, whose capacity is about a thousand entries, and
the host blocks on a launch until the hold has given up. Such a chunk's samples are dropped (those
enqueued after the hold ended were timed with the host's delays, the others not: a mixture of two
measurements) and the chunk is halved, down to one call before the timer falls back to one by one.

``fn`` enqueues its work on the default stream or on blocking streams (Numba's
``cuda.stream()``, CuPy's streams): the legacy default stream, where the timer records its
events, is ordered with those.
"""

from __future__ import annotations

import functools
import math
import statistics
import threading
import time
from dataclasses import dataclass
from typing import Callable, Literal, Sequence

import numpy as np

from labkit.gpu.device import (ClockState, current_pci_bus_id, median_clocks, read_clock_state, read_device_facts,
    throttle_names)
from labkit.records import Count, NonNegative, Positive, Spread

#: Timed calls enqueued behind one hold, so that the launch queue never fills while held.
HOLD_CHUNK = 50
#: Polls of the release flag before the hold gives up; one poll sleeps ~1 us and reads host memory.
HOLD_MAX_POLLS = 100_000
HOLD_POLL_NS = 1000
CLOCK_SAMPLE_SECONDS = 0.005
#: The stopping rule (module docstring): noise target, extra wall time, and the cap on samples.
MAX_NOISE = 0.005
BUDGET_SECONDS = 0.5
MAX_REPEATS_FACTOR = 10
#: nvbench's settled-noise test: after this many noise values, with this relative spread.
SETTLED_AFTER = 64
SETTLED_SPREAD = 0.05
#: nvbench keeps the last 512 noise values (a ring buffer) for the settled test.
NOISE_WINDOW = 512

StoppedBy = Literal["noise", "settled", "budget", "cap"]


class Timing(Spread):
    """What the timer measured: the median of ``repeats`` calls, with min and max beside it."""

    warmup: Count
    l2_flushed: bool
    sm_clock_mhz: Positive | None  # NVML's reading: median of the samples read during the repetitions
    mem_clock_mhz: Positive | None
    back_to_back: bool  # False: fn waited for the GPU, each time includes the host's latency
    # Issue 29; absent (None) from records made before it, which stay readable: their "% of peak"
    # falls back to NVML's clock, and says so (:attr:`clock_source`).
    sm_clock_ran_mhz: Positive | None = None  # measured on the GPU around each call (module docstring)
    relative_noise: NonNegative | None = None  # standard deviation / mean of the samples
    throttled_repeats: Count | None = None     # samples taken while NVML named a power or thermal cap
    throttle_reasons: list[str] | None = None  # the caps named (labkit.gpu.device.THROTTLE_REASONS)
    stopped_by: StoppedBy | None = None

    @property
    def peak_clock_mhz(self) -> float | None:
        """The SM clock a "% of peak" is computed at: the one measured on the GPU, else (a record
        from before issue 29, or no stamp landed) NVML's reading; None when neither exists."""
        return self.sm_clock_ran_mhz or self.sm_clock_mhz

    @property
    def clock_source(self) -> Literal["measured", "nvml"] | None:
        if self.sm_clock_ran_mhz:
            return "measured"
        return "nvml" if self.sm_clock_mhz else None

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


def next_chunk(done: int, repeats: int, chunk: int = HOLD_CHUNK) -> int:
    """How many calls the next hold enqueues: up to ``chunk``, first to reach ``repeats`` exactly
    (120 by 50: 50, 50, 20), then whole chunks, never past MAX_REPEATS_FACTOR x ``repeats``."""
    wanted = repeats - done if done < repeats else chunk
    return max(0, min(chunk, wanted, MAX_REPEATS_FACTOR * repeats - done))


def relative_noise(samples: list[float]) -> float:
    """Standard deviation (n - 1) over the mean: nvbench's noise; 0 for one sample."""
    if len(samples) < 2:
        return 0.0
    return statistics.stdev(samples) / statistics.fmean(samples)


def noise_track(samples: list[float]) -> list[float]:
    """The noise after each sample from the second on (nvbench's noise tracker), in one pass."""
    track, total, squares = [], 0.0, 0.0
    for n, x in enumerate(samples, start=1):
        total, squares = total + x, squares + x * x
        if n >= 2:
            mean = total / n
            variance = max(squares - n * mean * mean, 0.0) / (n - 1)
            track.append(math.sqrt(variance) / mean)
    return track


def stop_reason(samples: list[float], min_repeats: int, max_noise: float) -> StoppedBy | None:
    """Why the samples so far are enough (module docstring), None while they are not: under the
    noise target, or settled (nvbench: more than SETTLED_AFTER of the last NOISE_WINDOW noise
    values, whose standard deviation around the latest is under SETTLED_SPREAD of it). Budget and cap are the caller's."""
    if len(samples) < max(min_repeats, 2):
        return None
    track = noise_track(samples)[-NOISE_WINDOW:]
    current = track[-1]
    if current < max_noise:
        return "noise"
    if len(track) > SETTLED_AFTER and current > 0:
        spread = math.sqrt(sum((x - current) ** 2 for x in track) / (len(track) - 1))
        if spread / current < SETTLED_SPREAD:
            return "settled"
    return None


def ran_at_mhz(stamps: list[tuple[int, int, int, int]]) -> float | None:
    """The mean SM clock over the calls, in MHz: the sum of cycles over the sum of nanoseconds.

    Each stamp pair is (ns before, cycles before, ns after, cycles after) read on SM 0; a pair
    where no stamp landed (zeros) or time did not advance is left out; None when none is left."""
    ns = cycles = 0
    for ns0, c0, ns1, c1 in stamps:
        if ns0 and ns1 and ns1 > ns0 and c1 > c0:
            ns, cycles = ns + ns1 - ns0, cycles + c1 - c0
    return cycles / ns * 1e3 if ns else None


@dataclass(frozen=True)
class Window:
    """A sample's span on the host's clock (time.perf_counter seconds)."""

    start: float
    end: float


def throttled(windows: list[Window], readings: list[tuple[float, ClockState]]) -> tuple[int, list[str]]:
    """(samples flagged, the caps named): a sample is flagged when a reading in its window, widened
    by one sampling period, names a power or thermal cap; a window with no reading takes the
    nearest one. No readings: nothing flagged."""
    if not readings:
        return 0, []
    flagged, names = 0, set()
    for window in windows:
        inside = [state for at, state in readings
                  if window.start - CLOCK_SAMPLE_SECONDS <= at <= window.end + CLOCK_SAMPLE_SECONDS]
        if not inside:
            middle = (window.start + window.end) / 2
            inside = [min(readings, key=lambda reading: abs(reading[0] - middle))[1]]
        caps = {name for state in inside for name in throttle_names(state.reasons)}
        flagged += bool(caps)
        names |= caps
    return flagged, sorted(names)


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


STAMP_SIGNATURE = "void(uint64[:, ::1], int32)"


def _stamp_on_sm0():
    """The stamp kernel's Python function: the block on SM 0 writes (%globaltimer, clock64) into
    ``stamps[slot]`` (module docstring). Special registers are read by inline PTX, as nvbench does."""
    from llvmlite import ir
    from numba.cuda import types
    from numba.cuda.extending import intrinsic

    def special(register: str, bits: int):
        @intrinsic
        def read(typingctx):
            def codegen(context, builder, signature, args):
                kind = ir.IntType(bits)
                asm = ir.InlineAsm(ir.FunctionType(kind, []), f"mov.u{bits} $0, %{register};",
                                   "=l" if bits == 64 else "=r", side_effect=True)
                return builder.call(asm, [])

            return (types.uint64 if bits == 64 else types.uint32)(), codegen

        return read

    smid, globaltimer, clock64 = special("smid", 32), special("globaltimer", 64), special("clock64", 64)

    def stamp_on_sm0(stamps, slot):
        if smid() == 0:
            stamps[slot, 0] = globaltimer()
            stamps[slot, 1] = clock64()

    return stamp_on_sm0


class _Stamps:
    """Host-mapped (ns, cycles) stamps, two per timed call of a chunk, and the launch that writes one."""

    def __init__(self, sm_count: int):
        cuda = _cuda()
        from labkit.gpu import expected_warnings_hidden

        self.stamps = cuda.mapped_array((2 * HOLD_CHUNK, 2), dtype="uint64")
        with expected_warnings_hidden():  # one thread per block on purpose
            self.launch = cuda.jit(STAMP_SIGNATURE)(_stamp_on_sm0())[sm_count, 1]
            # Its first launch loads the module: done here, not inside a hold, where it took long
            # enough for the hold to give up (seen on the H200: back_to_back False on a 1 GiB copy).
            self.stamp(0)
        cuda.synchronize()

    def clear(self) -> None:
        self.stamps[:] = 0

    def stamp(self, slot: int) -> None:
        self.launch(self.stamps, np.int32(slot))

    def pairs(self, calls: int) -> list[tuple[int, int, int, int]]:
        rows = self.stamps[: 2 * calls].tolist()
        return [(*rows[2 * i], *rows[2 * i + 1]) for i in range(calls)]


@functools.cache
def _stamps() -> _Stamps:
    return _Stamps(read_device_facts().sm_count)


class _ClockSampler:
    """Reads the clocks and NVML's clocks-event reasons every CLOCK_SAMPLE_SECONDS in a background
    thread, from enter to exit: ``readings`` holds (time.perf_counter(), state)."""

    def __init__(self, pci_bus_id: str):
        self.pci_bus_id = pci_bus_id
        self.readings: list[tuple[float, ClockState]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while True:
            state = read_clock_state(self.pci_bus_id)
            if state is None:  # no NVML nor nvidia-smi: nothing to sample
                return
            self.readings.append((time.perf_counter(), state))
            if self._stop.wait(CLOCK_SAMPLE_SECONDS):
                return

    def __enter__(self) -> _ClockSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()


def time_gpu(fn: Callable[[], object], *, warmup: int = 10, repeats: int = 100, flush_l2: bool = False,
             max_noise: float = MAX_NOISE, budget_seconds: float = BUDGET_SECONDS) -> Timing:
    """Time ``fn()``, which enqueues GPU work, by CUDA events (see the module docstring).

    Per repetition: (L2 flush), stamp, start event, fn(), end event, stamp; the device is
    synchronised before any event is read; each pair gives one sample (ms -> s). At least
    ``repeats`` samples, then more in chunks until the stopping rule holds.
    """
    (timing,) = time_interleaved((fn,), warmup=warmup, repeats=repeats, flush_l2=flush_l2, max_noise=max_noise,
                                 budget_seconds=budget_seconds)
    return timing


def time_interleaved(fns: Sequence[Callable[[], object]], *, warmup: int = 10, repeats: int = 100,
                     flush_l2: bool = False, max_noise: float = MAX_NOISE,
                     budget_seconds: float = BUDGET_SECONDS) -> tuple[Timing, ...]:
    """Time several functions call for call: repetition i times ``fns[0]``, then ``fns[1]``, ...,
    each as :func:`time_gpu` times one, so that each sees the same power state and clock history
    as the others (under a power cap, the clock a kernel is given depends on what ran before it
    and for how long: two kernels timed one after the other are compared at two clocks). Every
    function gets the same number of samples; the stopping rule must hold for each of them."""
    if repeats < 1 or warmup < 0:
        raise ValueError(f"need repeats >= 1 and warmup >= 0, got repeats={repeats}, warmup={warmup}")
    if not fns:
        raise ValueError("need at least one function to time")
    cuda = _cuda()
    flush = _flusher().flush if flush_l2 else (lambda: None)
    hold, stamps = _hold(), _stamps()
    width = len(fns)
    for _ in range(warmup):
        for fn in fns:
            flush()
            fn()
    cuda.synchronize()

    samples: list[list[float]] = [[] for _ in fns]
    windows: list[list[Window]] = [[] for _ in fns]
    pairs: list[list[tuple[int, int, int, int]]] = [[] for _ in fns]
    back_to_back = True
    chunk_limit = max(1, HOLD_CHUNK // width)     # the calls of a chunk fill the stamp slots
    stopped_by: list[StoppedBy | None] = [None] * width
    with _ClockSampler(current_pci_bus_id()) as sampler:
        minimum_done = None   # time.perf_counter() when the first ``repeats`` samples were in
        while not all(stopped_by):
            chunk = next_chunk(len(samples[0]), repeats, chunk_limit)
            events = [[(cuda.event(), cuda.event()) for _ in fns] for _ in range(chunk)]
            stamps.clear()
            if back_to_back:
                hold.hold()
            released = time.perf_counter()
            try:
                for index, row in enumerate(events):
                    for which, (fn, (start, end)) in enumerate(zip(fns, row)):
                        flush()
                        stamps.stamp(2 * (index * width + which))
                        start.record()
                        fn()
                        end.record()
                        stamps.stamp(2 * (index * width + which) + 1)
            finally:
                if back_to_back:
                    released = time.perf_counter()
                hold.release()
            cuda.synchronize()
            if back_to_back and hold.gave_up and chunk > 1:
                chunk_limit = max(1, chunk // 2)   # a mixture of held and unheld calls: not kept
                continue
            back_to_back = back_to_back and not hold.gave_up
            first = events[0][0][0]
            stamped = stamps.pairs(chunk * width)
            for index, row in enumerate(events):
                for which, (start, end) in enumerate(row):
                    samples[which].append(cuda.event_elapsed_time(start, end) / 1e3)
                    windows[which].append(Window(released + cuda.event_elapsed_time(first, start) / 1e3,
                                                 released + cuda.event_elapsed_time(first, end) / 1e3))
                    pairs[which].append(stamped[index * width + which])
            if len(samples[0]) < repeats:
                continue
            minimum_done = minimum_done or time.perf_counter()
            reasons = [stop_reason(each, repeats, max_noise) for each in samples]
            if all(reasons):
                stopped_by = reasons
            elif time.perf_counter() - minimum_done > budget_seconds:
                stopped_by = ["budget"] * width
            elif len(samples[0]) >= MAX_REPEATS_FACTOR * repeats:
                stopped_by = ["cap"] * width

    clocks = median_clocks([state.clocks for _, state in sampler.readings])
    timings = []
    for which in range(width):
        median_seconds, min_seconds, max_seconds = summarize_seconds(samples[which])
        flagged, caps = throttled(windows[which], sampler.readings)
        timings.append(Timing(
            median_seconds=median_seconds,
            min_seconds=min_seconds,
            max_seconds=max_seconds,
            repeats=len(samples[which]),
            warmup=warmup,
            l2_flushed=flush_l2,
            sm_clock_mhz=None if clocks is None else clocks.sm_mhz,
            mem_clock_mhz=None if clocks is None else clocks.mem_mhz,
            back_to_back=back_to_back,
            sm_clock_ran_mhz=ran_at_mhz(pairs[which]),
            relative_noise=relative_noise(samples[which]),
            throttled_repeats=flagged if sampler.readings else None,
            throttle_reasons=caps if sampler.readings else None,
            stopped_by=stopped_by[which],
        ))
    return tuple(timings)
