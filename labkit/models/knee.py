"""The knee of a saturating curve, measured: where its two asymptotes meet.

A throughput that Little's law governs rises in proportion to the work in flight, then stops at a
ceiling: y = min(P, P x / x*). Fitted to measured points (x_i, y_i), the model's knee x* is the
measured knee: the x at which the line through the origin that the low points follow meets the
plateau the high points reach. It is what a Little's-law prediction of "where the curve
saturates" is compared with.

The fit minimises the squared error of log y (every point weighs by its relative error, from the
first, latency-bound point to the plateau), exactly: with the points split into those on the rising
line (x < x*) and those on the plateau, the best line and plateau are the mean of log(y / x) and
of log y over each part, so each split whose knee falls between its two parts is a candidate, as
is a knee at each point; the best candidate wins. A curve already flat at its first point has no
measurable knee below it (``Knee.within`` is False and ``side`` says "below"), nor has a curve still
rising at its last ("above").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Knees closer than this (in log x) to the first or last point are on it: rounding, not a knee.
SAME = 1e-9


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
    knees = list(logs_x)
    for rising in range(1, len(xs)):
        log_slope = sum(ly - lx for lx, ly in zip(logs_x[:rising], logs_y[:rising])) / rising
        log_plateau = sum(logs_y[rising:]) / (len(xs) - rising)
        if logs_x[rising - 1] <= log_plateau - log_slope <= logs_x[rising]:
            knees.append(log_plateau - log_slope)
    error, log_knee = min((_error(logs_x, logs_y, knee)[0], knee) for knee in knees)
    log_plateau = _error(logs_x, logs_y, log_knee)[1]
    side = ("below" if log_knee <= logs_x[0] + SAME else "above" if log_knee >= logs_x[-1] - SAME
            else "within")
    return Knee(x=math.exp(log_knee), plateau=math.exp(log_plateau), side=side)
