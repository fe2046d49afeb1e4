"""labkit's own timeline, for machines without Nsight Systems: CUDA events around NVTX phases.

Each phase is an NVTX range (so nsys, where it exists, shows the same names) and a pair of
CUDA events recorded on the phase's stream. After the run, the events give every phase's span
on the GPU's clock; the GPU is idle wherever no span covers the time.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import asdict, dataclass

import nvtx
from numba import cuda


@dataclass(frozen=True)
class Span:
    """One phase of one iteration, in seconds from the first event of the run."""

    phase: str
    iteration: int
    stream: str
    start_seconds: float
    end_seconds: float

    @property
    def seconds(self) -> float:
        return self.end_seconds - self.start_seconds

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Gap:
    start_seconds: float
    end_seconds: float

    @property
    def seconds(self) -> float:
        return self.end_seconds - self.start_seconds


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
        if self._origin is None:
            return []
        self._marks[-1][4].synchronize()
        cuda.synchronize()
        return sorted(
            (Span(name, it, stream_name, cuda.event_elapsed_time(self._origin, s) / 1e3,
                  cuda.event_elapsed_time(self._origin, e) / 1e3)
             for name, it, stream_name, s, e in self._marks),
            key=lambda span: span.start_seconds,
        )


def idle_gaps(spans: list[Span], min_gap_seconds: float = 0.0) -> list[Gap]:
    """Stretches between the first start and the last end that no span covers (any stream)."""
    gaps = []
    ordered = sorted(spans, key=lambda s: s.start_seconds)
    if not ordered:
        return gaps
    covered_until = ordered[0].end_seconds
    for span in ordered[1:]:
        if span.start_seconds - covered_until > min_gap_seconds:
            gaps.append(Gap(covered_until, span.start_seconds))
        covered_until = max(covered_until, span.end_seconds)
    return gaps


def busy_fraction(spans: list[Span]) -> float:
    """Share of the run's wall span during which at least one phase was on the GPU."""
    if not spans:
        return 0.0
    start = min(s.start_seconds for s in spans)
    end = max(s.end_seconds for s in spans)
    idle = sum(g.seconds for g in idle_gaps(spans))
    return 1.0 - idle / (end - start) if end > start else 0.0
