"""Timeline arithmetic, pure: phases as spans on the GPU's clock, the gaps between them, and how
busy the GPU was. The spans come from Nsight Systems or from labkit's own
:class:`labkit.profiling.event_timeline.EventTimeline`.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import model_validator

from labkit.records import Count, NonNegative, Record


class Span(Record):
    """One phase of one iteration, in seconds from the first event of the run."""

    phase: str
    iteration: Count
    stream: str
    start_seconds: NonNegative
    end_seconds: NonNegative

    @model_validator(mode="after")
    def _ends_after_start(self) -> Span:
        if self.end_seconds < self.start_seconds:
            raise ValueError(f"span {self.phase} #{self.iteration} ends ({self.end_seconds:g} s) before it starts "
                             f"({self.start_seconds:g} s)")
        return self

    @property
    def seconds(self) -> float:
        return self.end_seconds - self.start_seconds


@dataclass(frozen=True)
class Gap:
    start_seconds: float
    end_seconds: float

    @property
    def seconds(self) -> float:
        return self.end_seconds - self.start_seconds


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


def wall_seconds(spans: list[Span]) -> float:
    """From the first start to the last end."""
    return max(s.end_seconds for s in spans) - min(s.start_seconds for s in spans) if spans else 0.0


def busy_fraction(spans: list[Span]) -> float:
    """Share of the run's wall span during which at least one phase was on the GPU."""
    wall = wall_seconds(spans)
    if wall <= 0:
        return 0.0
    return 1.0 - sum(g.seconds for g in idle_gaps(spans)) / wall
