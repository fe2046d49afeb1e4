"""The knee of a saturating curve, measured: where its two asymptotes meet.

A throughput that Little's law governs rises in proportion to the work in flight, then stops at a
ceiling: y = min(P, P x / x*). Fitted to measured points (x_i, y_i), the model's knee x* is the
measured knee: the x at which the line through the origin that the low points follow meets the
plateau the high points reach. It is what a Little's-law prediction of "where the curve
saturates" is compared with.

The fit minimises the squared error of log y (every point weighs by its relative error, from the
first, latency-bound point to the plateau). For a knee x*, the best plateau is the geometric mean
of y_i / min(1, x_i / x*); the knee is searched on a fine geometric grid around the points. A
curve already flat at its first point has no measurable knee below it (``Knee.within`` is False
and ``side`` says "below"), nor has a curve still rising at its last ("above").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Points of the geometric grid per doubling of x (a knee is resolved to 2^(1/256), 0.3 %).
GRID_PER_OCTAVE = 256
#: How far beyond the first and last points the grid extends (a factor on each side).
MARGIN = 4.0


@dataclass(frozen=True)
class Knee:
    x: float          # where y = P x / x* meets y = P
    plateau: float    # P
    side: str         # "within" the measured x, or "below" the first / "above" the last

    @property
    def within(self) -> bool:
        return self.side == "within"


def _error(logs_x: list[float], logs_y: list[float], log_knee: float) -> tuple[float, float]:
    """(squared error, log P) of the model with its knee at exp(log_knee)."""
    residuals = [ly - min(0.0, lx - log_knee) for lx, ly in zip(logs_x, logs_y)]
    log_plateau = sum(residuals) / len(residuals)
    return sum((r - log_plateau) ** 2 for r in residuals), log_plateau


def fit_knee(xs: list[float], ys: list[float]) -> Knee:
    """The knee of y = min(P, P x / x*) fitted to the points (x > 0, y > 0, x increasing, at least 2)."""
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"a knee needs at least two points, as many x as y; got {len(xs)} x and {len(ys)} y")
    if any(x <= 0 for x in xs) or any(y <= 0 for y in ys):
        raise ValueError("a knee is fitted on positive x and y only")
    if any(b <= a for a, b in zip(xs, xs[1:])):
        raise ValueError("the points' x must increase")
    logs_x, logs_y = [math.log(x) for x in xs], [math.log(y) for y in ys]
    low, high = logs_x[0] - math.log(MARGIN), logs_x[-1] + math.log(MARGIN)
    steps = math.ceil((high - low) / math.log(2) * GRID_PER_OCTAVE)
    best = min((_error(logs_x, logs_y, low + (high - low) * k / steps) + (low + (high - low) * k / steps,)
                for k in range(steps + 1)), key=lambda fit: fit[0])
    _, log_plateau, log_knee = best
    side = "below" if log_knee <= logs_x[0] else "above" if log_knee >= logs_x[-1] else "within"
    return Knee(x=math.exp(log_knee), plateau=math.exp(log_plateau), side=side)
