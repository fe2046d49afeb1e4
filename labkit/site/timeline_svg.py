"""A timeline picture as inline SVG: one row per (version, stream), one bar per phase span.

Pure: spans in, an ElementTree <svg> out, no script and no external resource.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

#: Colour of each phase (colour-blind friendly, Okabe-Ito).
PHASE_COLOURS = {"transfer": "#E69F00", "normalise": "#56B4E9", "layer": "#009E73", "loss": "#CC79A7"}
ROW_HEIGHT = 22
LABEL_WIDTH = 150
WIDTH = 760
AXIS_HEIGHT = 30
LEGEND_HEIGHT = 24


def timeline_svg(rows: list[tuple[str, list[dict]]], phase_labels: dict[str, str], axis_label: str,
                 format_ms) -> etree.Element:
    """rows: (row label, spans with phase/start_seconds/end_seconds); each row on its own time scale,
    whose length ``format_ms(seconds)`` writes at its end."""
    height = LEGEND_HEIGHT + len(rows) * (ROW_HEIGHT + 8) + AXIS_HEIGHT
    svg = etree.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {WIDTH} {height}",
                                "class": "lab-timeline", "role": "img", "aria-label": axis_label})
    x = LABEL_WIDTH
    for phase, colour in PHASE_COLOURS.items():
        etree.SubElement(svg, "rect", {"x": str(x), "y": "4", "width": "12", "height": "12", "fill": colour})
        text = etree.SubElement(svg, "text", {"x": str(x + 16), "y": "14", "font-size": "12"})
        text.text = phase_labels[phase]
        x += 150
    plot_width = WIDTH - LABEL_WIDTH - 10
    for index, (row_label, spans) in enumerate(rows):
        y = LEGEND_HEIGHT + index * (ROW_HEIGHT + 8)
        label = etree.SubElement(svg, "text", {"x": "0", "y": str(y + 15), "font-size": "12"})
        label.text = row_label
        start = min(s["start_seconds"] for s in spans)
        end = max(s["end_seconds"] for s in spans)
        scale = plot_width / (end - start) if end > start else 0.0
        etree.SubElement(svg, "rect", {"x": str(LABEL_WIDTH), "y": str(y), "width": str(plot_width),
                                       "height": str(ROW_HEIGHT), "fill": "#eeeeee"})
        for span in spans:
            bar = etree.SubElement(svg, "rect", {
                "x": f"{LABEL_WIDTH + (span['start_seconds'] - start) * scale:.2f}", "y": str(y),
                "width": f"{max((span['end_seconds'] - span['start_seconds']) * scale, 0.5):.2f}",
                "height": str(ROW_HEIGHT), "fill": PHASE_COLOURS[span["phase"]],
            })
            etree.SubElement(bar, "title").text = (
                f"{phase_labels[span['phase']]} #{span['iteration']}: "
                f"{format_ms(span['end_seconds'] - span['start_seconds'])}")
        scale_text = etree.SubElement(svg, "text", {"x": str(WIDTH - 10), "y": str(y + ROW_HEIGHT + 7),
                                                    "font-size": "10", "text-anchor": "end"})
        scale_text.text = format_ms(end - start)
    caption = etree.SubElement(svg, "text", {"x": str(LABEL_WIDTH), "y": str(height - 6), "font-size": "11"})
    caption.text = axis_label
    return svg
