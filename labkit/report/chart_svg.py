"""Line charts as inline SVG: series of points (solid or dashed, with circles, crosses or no
markers, or as staircases) on linear or logarithmic axes, reference lines, an optional second y
axis that relabels the first in another unit, a legend and axis titles. Pure: numbers in, an
<svg> out, no script and no external resource.

Colours are not in the SVG: a series names one of the site's series colours (``SERIES``), and the
stylesheet (labkit/site/assets/course.css) colours it for the light and the dark palette; text
takes the page's own colour.

Readable as drawn: text at FONT (14 units: 13.4 px in the site's 688 px column, and the stylesheet
keeps a figure at least 660 px wide on a phone, scrolling beside the page); the legend sits above
the plot, where no data line can cross it; labels inside the plot (guides) get a halo of the
page's background (course.css) so that a line passing under them does not strike them through.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as etree
from dataclasses import dataclass
from typing import Callable

WIDTH, PLOT_HEIGHT = 720, 330
LEFT, RIGHT, TOP, BOTTOM = 84, 84, 14, 58
FONT, TITLE_FONT = 14, 15
#: The series colours (Okabe-Ito, colour-blind friendly; each palette's shades are in course.css),
#: and the grey of reference curves and guides.
SERIES = tuple(f"series-{index}" for index in range(6))
REFERENCE = "reference"
LEGEND_ROW = 22
LEGEND_SWATCH = 28


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
    colour: str               # one of SERIES, or REFERENCE
    dashed: bool = False
    marker: str = "circle"    # circle, cross, or none
    line: bool = True         # a line through the points (markers alone otherwise)
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
    element = etree.SubElement(parent, "text", {"x": f"{x:.1f}", "y": f"{y:.1f}", "font-size": str(FONT),
                                                "fill": "currentColor", **attributes})
    element.text = text
    return element


def text_width(text: str, font: float = FONT) -> float:
    """About how wide ``text`` is drawn: 0.6 em for a Latin character, 1 em for a CJK one."""
    return sum(font if ord(ch) >= 0x2e80 else 0.6 * font for ch in text)


def legend_layout(labels: list[str], left: float, right: float) -> list[tuple[float, int]]:
    """Where each legend entry goes: (x, row), entries side by side, wrapping at ``right``."""
    places, x, row = [], left, 0
    for label in labels:
        width = LEGEND_SWATCH + 6 + text_width(label) + 22
        if x > left and x + width > right:
            x, row = left, row + 1
        places.append((x, row))
        x += width
    return places


def line_chart(series: list[Series], x: Axis, y: Axis, title: str, guides: tuple[Guide, ...] = (),
               second: SecondAxis | None = None) -> etree.Element:
    """The chart; ``title`` names it for screen readers. Points outside an axis's range are clipped
    to the plot. The legend sits above the plot, in as many rows as it needs."""
    shown = [one for one in series if one.legend]
    places = legend_layout([one.label for one in shown], LEFT, WIDTH - RIGHT)
    legend_rows = max((row for _, row in places), default=-1) + 1
    top = TOP + legend_rows * LEGEND_ROW + (8 if legend_rows else 0)
    plot_w, plot_h = WIDTH - LEFT - RIGHT, PLOT_HEIGHT
    height = top + plot_h + BOTTOM

    def px(value):
        return LEFT + plot_w * min(1.0, max(0.0, x.position(value)))

    def py(value):
        return top + plot_h * (1 - min(1.0, max(0.0, y.position(value))))

    svg = etree.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {WIDTH} {height}",
                                "class": "lab-chart", "role": "img", "aria-label": title})
    etree.SubElement(svg, "rect", {"x": str(LEFT), "y": str(top), "width": str(plot_w), "height": str(plot_h),
                                   "fill": "none", "class": "frame"})
    for value in x.tick_values():
        etree.SubElement(svg, "line", {"x1": f"{px(value):.1f}", "x2": f"{px(value):.1f}", "y1": str(top),
                                       "y2": str(top + plot_h), "class": "grid"})
        _text(svg, px(value), top + plot_h + 19, x.format_tick(value), **{"text-anchor": "middle"})
    for value in y.tick_values():
        etree.SubElement(svg, "line", {"x1": str(LEFT), "x2": str(LEFT + plot_w), "y1": f"{py(value):.1f}",
                                       "y2": f"{py(value):.1f}", "class": "grid"})
        _text(svg, LEFT - 6, py(value) + 5, y.format_tick(value), **{"text-anchor": "end"})
    if second is not None:
        for value in nice_ticks(y.low * second.factor, y.high * second.factor, y.log):
            _text(svg, LEFT + plot_w + 6, py(value / second.factor) + 5, second.format_tick(value))
        middle = top + plot_h / 2
        _text(svg, WIDTH - 14, middle, second.title, **{"font-size": str(TITLE_FONT), "text-anchor": "middle",
                                                        "transform": f"rotate(90 {WIDTH - 14} {middle})"})
    # A horizontal guide's label ends at the plot's right edge, above its line: (left, top, right, bottom)
    across = [(LEFT + plot_w - 4 - text_width(g.label), py(g.value) - 4 - FONT, LEFT + plot_w - 4, py(g.value) - 4)
              for g in guides if not g.vertical]
    for guide in guides:
        if guide.vertical:
            line = {"x1": f"{px(guide.value):.1f}", "x2": f"{px(guide.value):.1f}", "y1": str(top),
                    "y2": str(top + plot_h)}
            label_at = (px(guide.value) + 4, top + 16)
            # under any horizontal guide's label it would cover: moved down, below that line
            for left, upper, right, lower in sorted(across, key=lambda box: box[1]):
                x0, x1 = label_at[0], label_at[0] + text_width(guide.label)
                if x0 < right and left < x1 and label_at[1] - FONT < lower and upper < label_at[1]:
                    label_at = (label_at[0], lower + 4 + FONT + 4)
        else:
            line = {"x1": str(LEFT), "x2": str(LEFT + plot_w), "y1": f"{py(guide.value):.1f}",
                    "y2": f"{py(guide.value):.1f}"}
            label_at = (LEFT + plot_w - 4, py(guide.value) - 4)
        etree.SubElement(svg, "line", {**line, "class": f"{REFERENCE} line", "stroke-dasharray": "2 3"})
        _text(svg, *label_at, guide.label, **{"class": "in-plot", **({} if guide.vertical else {"text-anchor": "end"})})
    for one in series:
        if not one.points:
            continue
        coordinates = [(px(a), py(b)) for a, b in one.points]
        if one.steps:
            stepped = [coordinates[0]]
            for (_, y0), (x1, y1) in zip(coordinates, coordinates[1:]):
                stepped += [(x1, y0), (x1, y1)]
            coordinates = stepped
        if one.line and len(coordinates) > 1:
            line = etree.SubElement(svg, "polyline", {
                "points": " ".join(f"{a:.1f},{b:.1f}" for a, b in coordinates), "fill": "none",
                "class": f"{one.colour} line", "stroke-width": "1.5" if one.dashed else "2",
                **({"stroke-dasharray": "6 4"} if one.dashed else {})})
            etree.SubElement(line, "title").text = one.label
        for a, b in one.points if one.marker != "none" else ():
            cx, cy = px(a), py(b)
            if one.marker == "cross":
                etree.SubElement(svg, "path", {"d": f"M{cx - 4:.1f},{cy - 4:.1f}L{cx + 4:.1f},{cy + 4:.1f}"
                                                    f"M{cx - 4:.1f},{cy + 4:.1f}L{cx + 4:.1f},{cy - 4:.1f}",
                                               "class": f"{one.colour} line", "stroke-width": "2"})
            else:
                etree.SubElement(svg, "circle", {"cx": f"{cx:.1f}", "cy": f"{cy:.1f}", "r": "3.5",
                                                 "class": f"{one.colour} mark"})
    legend = etree.SubElement(svg, "g", {"class": "legend"}) if shown else None
    for one, (lx, row) in zip(shown, places):
        ly = TOP + FONT + row * LEGEND_ROW
        if one.line or one.marker == "none":
            etree.SubElement(legend, "line", {"x1": f"{lx:.1f}", "x2": f"{lx + LEGEND_SWATCH:.1f}", "y1": str(ly - 5),
                                              "y2": str(ly - 5), "class": f"{one.colour} line", "stroke-width": "2",
                                              **({"stroke-dasharray": "6 4"} if one.dashed else {})})
        if one.marker == "cross":
            cx = lx + LEGEND_SWATCH / 2
            etree.SubElement(legend, "path", {"d": f"M{cx - 4:.1f},{ly - 9:.1f}L{cx + 4:.1f},{ly - 1:.1f}"
                                                   f"M{cx - 4:.1f},{ly - 1:.1f}L{cx + 4:.1f},{ly - 9:.1f}",
                                              "class": f"{one.colour} line", "stroke-width": "2"})
        elif one.marker == "circle":
            etree.SubElement(legend, "circle", {"cx": f"{lx + LEGEND_SWATCH / 2:.1f}", "cy": str(ly - 5), "r": "3.5",
                                                "class": f"{one.colour} mark"})
        _text(legend, lx + LEGEND_SWATCH + 6, ly, one.label)
    _text(svg, LEFT + plot_w / 2, height - 10, x.title, **{"font-size": str(TITLE_FONT), "text-anchor": "middle"})
    middle = top + plot_h / 2
    _text(svg, 16, middle, y.title, **{"font-size": str(TITLE_FONT), "text-anchor": "middle",
                                       "transform": f"rotate(-90 16 {middle})"})
    return svg


def figure(svg: etree.Element, caption: str) -> etree.Element:
    """``<figure class="lab-figure">`` with the chart and its caption."""
    out = etree.Element("figure", {"class": "lab-figure"})
    out.append(svg)
    etree.SubElement(out, "figcaption").text = caption
    return out
