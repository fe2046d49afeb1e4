"""A timeline picture as inline SVG: one row per (version, stream), one bar per phase span,
all rows on one time scale (each starting at its own first span) so their lengths compare.

Pure: spans in, an ElementTree <svg> out, no script and no external resource. Colours are the
site stylesheet's (classes ``phase-<name>`` and ``track``), for the light and the dark palette;
text takes the page's colour.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

TEXT = {"fill": "currentColor"}
ROW_HEIGHT = 22
LABEL_WIDTH = 150
WIDTH = 760
AXIS_HEIGHT = 30  # room under the last row for its length
LEGEND_HEIGHT = 24


def timeline_svg(rows: list[tuple[str, list[dict]]], phase_labels: dict[str, str], title: str,
                 format_ms) -> etree.Element:
    """rows: (row label, spans with phase/start_seconds/end_seconds); each row's length is written
    at its end by ``format_ms(seconds)``; ``title`` names the picture for screen readers."""
    height = LEGEND_HEIGHT + len(rows) * (ROW_HEIGHT + 8) + AXIS_HEIGHT // 2
    longest = max(max(s.end_seconds for s in spans) - min(s.start_seconds for s in spans) for _, spans in rows)
    svg = etree.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {WIDTH} {height}",
                                "class": "lab-timeline", "role": "img", "aria-label": title})
    x = LABEL_WIDTH
    for phase in phase_labels:   # the legend, in the order given; colours: course.css
        etree.SubElement(svg, "rect", {"x": str(x), "y": "4", "width": "12", "height": "12",
                                       "class": f"phase-{phase} swatch"})
        text = etree.SubElement(svg, "text", {"x": str(x + 16), "y": "14", "font-size": "12", **TEXT})
        text.text = phase_labels[phase]
        x += 150
    plot_width = WIDTH - LABEL_WIDTH - 10
    for index, (row_label, spans) in enumerate(rows):
        y = LEGEND_HEIGHT + index * (ROW_HEIGHT + 8)
        label = etree.SubElement(svg, "text", {"x": "0", "y": str(y + 15), "font-size": "12", **TEXT})
        label.text = row_label
        start = min(s.start_seconds for s in spans)
        end = max(s.end_seconds for s in spans)
        scale = plot_width / longest if longest > 0 else 0.0
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
        length = etree.SubElement(svg, "text", {"x": f"{LABEL_WIDTH + (end - start) * scale:.2f}",
                                                "y": str(y + ROW_HEIGHT + 7), "font-size": "10", "text-anchor": "end",
                                                **TEXT})
        length.text = format_ms(end - start)
    return svg
