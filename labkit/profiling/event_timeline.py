"""labkit's own timeline, for machines without Nsight Systems: CUDA events around NVTX phases.

Each phase is an NVTX range (so nsys, where it exists, shows the same names) and a pair of
CUDA events recorded on the phase's stream. After the run, the events give every phase's span
on the GPU's clock (:class:`labkit.profiling.timeline.Span`).
"""

from __future__ import annotations

from contextlib import contextmanager

import nvtx

from labkit.gpu import cuda
from labkit.profiling.timeline import Span


class EventTimeline:
    """Records phases; ``spans()`` reads them once the GPU work is done (after a synchronise)."""

    def __init__(self):
        self._origin = None
        self._marks: list[tuple[str, int, str, object, object]] = []

    @contextmanager
    def phase(self, name: str, iteration: int, stream=None, stream_name: str = "compute"):
        """NVTX range + start/end CUDA events on ``stream`` (the default stream when None)."""
        stream = stream if stream is not None else cuda.default_stream()
        start, end = cuda.event(), cuda.event()
        if self._origin is None:
            self._origin = cuda.event()
            self._origin.record(stream)
        with nvtx.annotate(name, domain="labkit"):
            start.record(stream)
            yield
            end.record(stream)
        self._marks.append((name, iteration, stream_name, start, end))

    def spans(self) -> list[Span]:
        """Every phase as a span, in seconds from the earliest start (a copy stream's phase may
        start before the first event recorded on the compute stream)."""
        if self._origin is None:
            return []
        self._marks[-1][4].synchronize()
        cuda.synchronize()
        times = [(name, it, stream_name, self._origin.elapsed_time(s) / 1e3, self._origin.elapsed_time(e) / 1e3)
                 for name, it, stream_name, s, e in self._marks]
        first = min(start for *_, start, _ in times)
        return sorted((Span(phase=name, iteration=it, stream=stream_name, start_seconds=start - first,
                            end_seconds=end - first) for name, it, stream_name, start, end in times),
                      key=lambda span: span.start_seconds)
