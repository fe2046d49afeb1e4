"""A small x-y chart as inline SVG: lines and markers on linear axes. Pure: numbers in, <svg> out."""

from __future__ import annotations

import math
import xml.etree.ElementTree as etree
from dataclasses import dataclass

WIDTH, HEIGHT = 720, 360
LEFT, RIGHT, TOP, BOTTOM = 70, 20, 30, 50
COLOURS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00")


@dataclass(frozen=True)
class Series:
    label: str
    points: tuple[tuple[float, float], ...]
    line: bool = True          # a polyline through the points; markers only otherwise
    marker: str = "circle"     # circle or cross
    dashed: bool = False


def nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round ticks covering [low, high]: steps of 1, 2 or 5 x 10^k."""
    if high <= low:
        high = low + 1
    raw = (high - low) / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.floor(low / step) * step
    return [first + i * step for i in range(int(math.ceil((high - first) / step)) + 1)]


def xy_svg(series: list[Series], x_title: str, y_title: str, caption: str) -> etree.Element:
    """The chart; axes start at 0 and end at the first round tick above the data."""
    xs = [x for s in series for x, _ in s.points] or [1.0]
    ys = [y for s in series for _, y in s.points] or [1.0]
    x_ticks, y_ticks = nice_ticks(0, max(xs)), nice_ticks(0, max(ys))
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM

    def x(value):
        return LEFT + value / x_ticks[-1] * plot_w

    def y(value):
        return TOP + plot_h - value / y_ticks[-1] * plot_h

    svg = etree.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {WIDTH} {HEIGHT}",
                                "class": "lab-chart", "role": "img", "aria-label": caption})
    etree.SubElement(svg, "rect", {"x": str(LEFT), "y": str(TOP), "width": str(plot_w), "height": str(plot_h),
                                   "fill": "none", "stroke": "#cccccc"})
    for tick in x_ticks:
        etree.SubElement(svg, "line", {"x1": f"{x(tick):.1f}", "x2": f"{x(tick):.1f}", "y1": str(TOP),
                                       "y2": str(TOP + plot_h), "stroke": "#eeeeee"})
        etree.SubElement(svg, "text", {"x": f"{x(tick):.1f}", "y": str(TOP + plot_h + 16), "font-size": "11",
                                       "text-anchor": "middle"}).text = f"{tick:g}"
    for tick in y_ticks:
        etree.SubElement(svg, "line", {"x1": str(LEFT), "x2": str(LEFT + plot_w), "y1": f"{y(tick):.1f}",
                                       "y2": f"{y(tick):.1f}", "stroke": "#eeeeee"})
        etree.SubElement(svg, "text", {"x": str(LEFT - 6), "y": f"{y(tick) + 4:.1f}", "font-size": "11",
                                       "text-anchor": "end"}).text = f"{tick:g}"
    for index, s in enumerate(series):
        colour = COLOURS[index % len(COLOURS)]
        if s.line and len(s.points) > 1:
            etree.SubElement(svg, "polyline", {
                "points": " ".join(f"{x(a):.1f},{y(b):.1f}" for a, b in s.points), "fill": "none",
                "stroke": colour, "stroke-width": "2", **({"stroke-dasharray": "6 4"} if s.dashed else {})})
        for a, b in s.points if s.marker else ():
            cx, cy = x(a), y(b)
            if s.marker == "cross":
                etree.SubElement(svg, "path", {"d": f"M{cx - 4:.1f},{cy - 4:.1f}L{cx + 4:.1f},{cy + 4:.1f}"
                                                    f"M{cx - 4:.1f},{cy + 4:.1f}L{cx + 4:.1f},{cy - 4:.1f}",
                                               "stroke": colour, "stroke-width": "2"})
            else:
                etree.SubElement(svg, "circle", {"cx": f"{cx:.1f}", "cy": f"{cy:.1f}", "r": "3", "fill": colour})
        lx = LEFT + 10 + index * 170
        etree.SubElement(svg, "rect", {"x": str(lx), "y": str(TOP - 22), "width": "12", "height": "10",
                                       "fill": colour})
        etree.SubElement(svg, "text", {"x": str(lx + 16), "y": str(TOP - 13), "font-size": "11"}).text = s.label
    etree.SubElement(svg, "text", {"x": str(LEFT + plot_w / 2), "y": str(HEIGHT - 8), "font-size": "12",
                                   "text-anchor": "middle"}).text = x_title
    etree.SubElement(svg, "text", {"x": "14", "y": str(TOP + plot_h / 2), "font-size": "12", "text-anchor": "middle",
                                   "transform": f"rotate(-90 14 {TOP + plot_h / 2})"}).text = y_title
    return svg


def figure(svg: etree.Element, caption: str) -> etree.Element:
    """``<figure class="lab-figure">`` with the chart and its caption."""
    out = etree.Element("figure", {"class": "lab-figure"})
    out.append(svg)
    etree.SubElement(out, "figcaption").text = caption
    return out
