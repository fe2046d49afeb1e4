"""A timeline picture as inline SVG: one row per (version, stream), one bar per phase span,
all rows on one time scale (each starting at its own first span) so their lengths compare, with
a time axis under the rows and each row's length at the end of its bar.

Pure: spans in, an ElementTree <svg> out, no script and no external resource. Colours are the
site stylesheet's (classes ``phase-<name>`` and ``track``), for the light and the dark palette;
text takes the page's colour, at the size of the charts (labkit.report.chart_svg.FONT).
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from typing import Callable

from labkit.report.chart_svg import FONT, TITLE_FONT, legend_layout, nice_ticks

TEXT = {"fill": "currentColor", "font-size": str(FONT)}
WIDTH = 720
LABEL_WIDTH = 170
RIGHT = 20
ROW_HEIGHT = 24
ROW_PITCH = ROW_HEIGHT + 22   # room under each bar for its length
LEGEND_ROW = 22
AXIS_HEIGHT = 56              # ticks, their labels and the axis title


def timeline_svg(rows: list[tuple[str, list]], phase_labels: dict[str, str], title: str,
                 format_ms: Callable[[float], str], axis_title: str,
                 format_tick: Callable[[float], str] = lambda ms: f"{ms:g}") -> etree.Element:
    """rows: (row label, spans with phase/start_seconds/end_seconds); each row's length is written
    under its end by ``format_ms(seconds)``; the axis reads milliseconds from each row's start,
    titled ``axis_title``, its ticks written by ``format_tick(ms)``; ``title`` names the picture
    for screen readers."""
    places = legend_layout(list(phase_labels.values()), LABEL_WIDTH, WIDTH - RIGHT)
    legend_rows = max((row for _, row in places), default=0) + 1
    top = legend_rows * LEGEND_ROW + 10
    plot_width = WIDTH - LABEL_WIDTH - RIGHT
    bottom_of_rows = top + len(rows) * ROW_PITCH
    height = bottom_of_rows + AXIS_HEIGHT
    longest = max(max(s.end_seconds for s in spans) - min(s.start_seconds for s in spans) for _, spans in rows)
    scale = plot_width / longest if longest > 0 else 0.0
    svg = etree.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {WIDTH} {height}",
                                "class": "lab-timeline", "role": "img", "aria-label": title})
    legend = etree.SubElement(svg, "g", {"class": "legend"})
    for (phase, text), (x, row) in zip(phase_labels.items(), places):   # colours: course.css
        y = row * LEGEND_ROW + FONT + 2
        etree.SubElement(legend, "rect", {"x": f"{x:.1f}", "y": str(y - 11), "width": "14", "height": "12",
                                          "class": f"phase-{phase} swatch"})
        etree.SubElement(legend, "text", {"x": f"{x + 20:.1f}", "y": str(y), **TEXT}).text = text
    for index, (row_label, spans) in enumerate(rows):
        y = top + index * ROW_PITCH
        etree.SubElement(svg, "text", {"x": "0", "y": str(y + 17), **TEXT}).text = row_label
        start = min(s.start_seconds for s in spans)
        end = max(s.end_seconds for s in spans)
        etree.SubElement(svg, "rect", {"x": str(LABEL_WIDTH), "y": str(y), "width": f"{(end - start) * scale:.2f}",
                                       "height": str(ROW_HEIGHT), "class": "track"})
        for span in spans:
            bar = etree.SubElement(svg, "rect", {
                "x": f"{LABEL_WIDTH + (span.start_seconds - start) * scale:.2f}", "y": str(y),
                "width": f"{max((span.end_seconds - span.start_seconds) * scale, 0.5):.2f}",
                "height": str(ROW_HEIGHT), "class": f"phase-{span.phase}",
            })
            etree.SubElement(bar, "title").text = (
                f"{phase_labels[span.phase]} #{span.iteration}: "
                f"{format_ms(span.end_seconds - span.start_seconds)}")
        etree.SubElement(svg, "text", {"x": f"{LABEL_WIDTH + (end - start) * scale:.2f}", "y": str(y + ROW_HEIGHT + 16),
                                       "text-anchor": "end", "class": "row-length", **TEXT}).text = format_ms(end - start)
    axis_y = bottom_of_rows + 2
    etree.SubElement(svg, "line", {"x1": str(LABEL_WIDTH), "x2": str(LABEL_WIDTH + plot_width), "y1": str(axis_y),
                                   "y2": str(axis_y), "class": "axis"})
    for ms in nice_ticks(0.0, longest * 1e3, log=False):
        x = LABEL_WIDTH + ms / 1e3 * scale
        etree.SubElement(svg, "line", {"x1": f"{x:.1f}", "x2": f"{x:.1f}", "y1": str(axis_y), "y2": str(axis_y + 5),
                                       "class": "axis"})
        etree.SubElement(svg, "text", {"x": f"{x:.1f}", "y": str(axis_y + 21), "text-anchor": "middle",
                                       **TEXT}).text = format_tick(ms)
    etree.SubElement(svg, "text", {"x": f"{LABEL_WIDTH + plot_width / 2:.1f}", "y": str(height - 6),
                                   "text-anchor": "middle", **{**TEXT, "font-size": str(TITLE_FONT)}}).text = axis_title
    return svg
