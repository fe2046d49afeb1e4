"""Line charts as inline SVG: series of points (solid or dashed, with or without markers, or as
staircases) on linear or logarithmic axes, reference lines, an optional second y axis that
relabels the first in another unit, a legend and axis titles. Pure: numbers in, an <svg> out,
no script and no external resource.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from typing import Callable

WIDTH, HEIGHT = 720, 420
LEFT, RIGHT, TOP, BOTTOM = 72, 72, 20, 50
#: Okabe-Ito, colour-blind friendly.
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00", "#56B4E9", "#000000")
GUIDE_COLOUR = "#888888"
LEGEND_ROW = 16


@dataclass(frozen=True)
class Axis:
    """One axis: its title, its range, log (base 2 when ``base`` is 2) or linear, and how ticks read."""

    title: str
    low: float
    high: float
    log: bool = False
    base: int = 10
    format_tick: Callable[[float], str] = lambda value: f"{value:g}"
    ticks: tuple[float, ...] = ()   # none: chosen here

    def position(self, value: float) -> float:
        """0 at ``low``, 1 at ``high`` (a value of 0 or less on a log axis: below its range)."""
        if self.log:
            if value <= 0:
                return -1.0
            return (math.log(value) - math.log(self.low)) / (math.log(self.high) - math.log(self.low))
        return (value - self.low) / (self.high - self.low)

    def tick_values(self) -> list[float]:
        return list(self.ticks) or nice_ticks(self.low, self.high, self.log, self.base)


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[tuple[float, float], ...]
    colour: str
    dashed: bool = False
    markers: bool = True
    steps: bool = False       # a staircase: each point's y holds until the next point's x
    legend: bool = True


@dataclass(frozen=True)
class Guide:
    """A reference line across the plot at ``value`` (on y, or on x when ``vertical``)."""

    label: str
    value: float
    vertical: bool = False


@dataclass(frozen=True)
class SecondAxis:
    """A right-hand y axis reading the left one in another unit: right value = left value x factor."""

    title: str
    factor: float
    format_tick: Callable[[float], str] = lambda value: f"{value:g}"


def nice_ticks(low: float, high: float, log: bool, base: int = 10) -> list[float]:
    """Ticks inside [low, high]: powers of ``base`` (and 2x, 5x of powers of 10 over few decades)
    on a log axis; multiples of 1, 2 or 5 x 10^k, about six of them, on a linear one."""
    if log:
        if base == 2:
            return [2.0 ** k for k in range(math.floor(math.log2(low)), math.ceil(math.log2(high)) + 1)
                    if low <= 2.0 ** k <= high]
        decades = range(math.floor(math.log10(low)), math.ceil(math.log10(high)) + 1)
        steps = (1, 2, 5) if math.log10(high / low) <= 3 else (1,)
        return [s * 10.0 ** k for k in decades for s in steps if low <= s * 10.0 ** k <= high * (1 + 1e-9)]
    raw = (high - low) / 6
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [first + k * step for k in range(int((high - first) / step + 1e-9) + 1)]


def _text(parent, x, y, text, **attributes) -> etree.Element:
    element = etree.SubElement(parent, "text", {"x": f"{x:.1f}", "y": f"{y:.1f}", "font-size": "11", **attributes})
    element.text = text
    return element


def line_chart(series: list[Series], x: Axis, y: Axis, title: str, guides: tuple[Guide, ...] = (),
               second: SecondAxis | None = None, legend_low: bool = False) -> etree.Element:
    """The chart; ``title`` names it for screen readers. Points outside an axis's range are clipped
    to the plot. The legend sits at the top left, or at the bottom right when ``legend_low``."""
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def px(value):
        return LEFT + plot_w * min(1.0, max(0.0, x.position(value)))

    def py(value):
        return TOP + plot_h * (1 - min(1.0, max(0.0, y.position(value))))

    svg = etree.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {WIDTH} {HEIGHT}",
                                "class": "lab-chart", "role": "img", "aria-label": title})
    etree.SubElement(svg, "rect", {"x": str(LEFT), "y": str(TOP), "width": str(plot_w), "height": str(plot_h),
                                   "fill": "none", "stroke": "#cccccc"})
    for value in x.tick_values():
        etree.SubElement(svg, "line", {"x1": f"{px(value):.1f}", "x2": f"{px(value):.1f}", "y1": str(TOP),
                                       "y2": str(TOP + plot_h), "stroke": "#eeeeee"})
        _text(svg, px(value), TOP + plot_h + 16, x.format_tick(value), **{"text-anchor": "middle"})
    for value in y.tick_values():
        etree.SubElement(svg, "line", {"x1": str(LEFT), "x2": str(LEFT + plot_w), "y1": f"{py(value):.1f}",
                                       "y2": f"{py(value):.1f}", "stroke": "#eeeeee"})
        _text(svg, LEFT - 6, py(value) + 4, y.format_tick(value), **{"text-anchor": "end"})
    if second is not None:
        for value in nice_ticks(y.low * second.factor, y.high * second.factor, y.log):
            _text(svg, LEFT + plot_w + 6, py(value / second.factor) + 4, second.format_tick(value))
        middle = TOP + plot_h / 2
        _text(svg, WIDTH - 12, middle, second.title, **{"font-size": "12", "text-anchor": "middle",
                                                        "transform": f"rotate(90 {WIDTH - 12} {middle})"})
    for guide in guides:
        if guide.vertical:
            line = {"x1": f"{px(guide.value):.1f}", "x2": f"{px(guide.value):.1f}", "y1": str(TOP),
                    "y2": str(TOP + plot_h)}
            label_at = (px(guide.value) + 4, TOP + 12)
        else:
            line = {"x1": str(LEFT), "x2": str(LEFT + plot_w), "y1": f"{py(guide.value):.1f}",
                    "y2": f"{py(guide.value):.1f}"}
            label_at = (LEFT + plot_w - 4, py(guide.value) - 4)
        etree.SubElement(svg, "line", {**line, "stroke": GUIDE_COLOUR, "stroke-dasharray": "2 3"})
        _text(svg, *label_at, guide.label, fill=GUIDE_COLOUR, **({} if guide.vertical else {"text-anchor": "end"}))
    for one in series:
        if not one.points:
            continue
        coordinates = [(px(a), py(b)) for a, b in one.points]
        if one.steps:
            stepped = [coordinates[0]]
            for (_, y0), (x1, y1) in zip(coordinates, coordinates[1:]):
                stepped += [(x1, y0), (x1, y1)]
            coordinates = stepped
        line = etree.SubElement(svg, "polyline", {
            "points": " ".join(f"{a:.1f},{b:.1f}" for a, b in coordinates), "fill": "none", "stroke": one.colour,
            "stroke-width": "1.5" if one.dashed else "2", **({"stroke-dasharray": "6 4"} if one.dashed else {})})
        etree.SubElement(line, "title").text = one.label
        if one.markers:
            for a, b in one.points:
                etree.SubElement(svg, "circle", {"cx": f"{px(a):.1f}", "cy": f"{py(b):.1f}", "r": "3.5",
                                                 "fill": one.colour})
    shown = [one for one in series if one.legend]
    for index, one in enumerate(shown):
        lx = LEFT + plot_w - 230 if legend_low else LEFT + 10
        ly = TOP + plot_h - 10 - (len(shown) - 1 - index) * LEGEND_ROW if legend_low else TOP + 14 + index * LEGEND_ROW
        etree.SubElement(svg, "line", {"x1": str(lx), "x2": str(lx + 22), "y1": str(ly - 4), "y2": str(ly - 4),
                                       "stroke": one.colour, "stroke-width": "2",
                                       **({"stroke-dasharray": "6 4"} if one.dashed else {})})
        _text(svg, lx + 28, ly, one.label)
    _text(svg, LEFT + plot_w / 2, HEIGHT - 8, x.title, **{"font-size": "12", "text-anchor": "middle"})
    middle = TOP + plot_h / 2
    _text(svg, 14, middle, y.title, **{"font-size": "12", "text-anchor": "middle", "transform": f"rotate(-90 14 {middle})"})
    return svg
