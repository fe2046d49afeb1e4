"""A log-log roofline as inline SVG: roofs (theoretical dashed, measured solid), the intensity
sweep as dots, placed kernels as labelled diamonds. Pure: numbers in, an <svg> element out.

Colours are not in the SVG: each element has a class (``theoretical``, ``measured``, ``sweep``,
``kernel``, ``leader``, ``grid``, ``frame``) that the site's stylesheet colours for the light and the dark
palette alike (labkit/site/assets/course.css); text takes the page's own colour, at the charts'
sizes (labkit.report.chart_svg); the legend sits above the plot (in as many rows as it needs), and
the names in the plot (the kernels', the extra roofs') carry the halo of in-plot labels, so that no
line is drawn over text. Extra roofs whose levels are closer than a line of text share one label
(BF16 · FP16); a kernel's name whose place is taken (by a name or by another kernel's point) moves
to the nearest free height, on either side of its point, joined to it by a thin leader line.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as etree

from labkit.report.chart_svg import FONT, LEGEND_ROW, TITLE_FONT, legend_layout

WIDTH, HEIGHT = 720, 440
LEFT, RIGHT, TOP, BOTTOM = 76, 20, 40, 56
LEGEND_Y = 20
X_RANGE = (1 / 16, 512.0)          # FLOP/byte
TEXT = {"fill": "currentColor"}
#: The dotted stroke of the extra roofs, in the plot and in the legend.
EXTRA_DASHES = "2 3"


def _scale(value: float, low: float, high: float, pixels: float) -> float:
    return (math.log10(value) - math.log10(low)) / (math.log10(high) - math.log10(low)) * pixels


def roofline_svg(measured: tuple[float, float], theoretical: tuple[float, float], sweep: list[tuple[float, float]],
                 kernels: list[tuple[str, float, float]], words: dict[str, str],
                 extra_roofs: list[tuple[str, float]] = (), x_range: tuple[float, float] = X_RANGE) -> etree.Element:
    """measured / theoretical: (peak GFLOP/s, bandwidth GB/s); sweep: (I, GFLOP/s); kernels: (name, I, GFLOP/s);
    extra_roofs: (name, GFLOP/s) of other measured compute roofs (the tensor cores'), each drawn dotted
    as min(P_extra, I x B_measured), named at its right end; ``words["extra"]`` names them in the legend.
    Any consistent units do (lab 06 draws FLOP per clock per SM against bytes per clock per SM), and
    an empty sweep leaves its legend entry out.

    Roof at intensity I: min(P, I x B). ``words`` gives the axis titles and the legend.
    """
    kinds = (("theoretical", "measured") + (("sweep",) if sweep else ()) + (("extra",) if extra_roofs else ()))
    places = legend_layout([words[k] for k in kinds], LEFT, WIDTH - RIGHT)
    below_legend = max(row for _, row in places) * LEGEND_ROW     # the rows past the first push the plot down
    top, height = TOP + below_legend, HEIGHT + below_legend
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    values = ([g for _, g in sweep] + [g for _, _, g in kernels] + [theoretical[0], x_range[0] * measured[1]]
              + [g for _, g in extra_roofs])
    y_low = 10 ** math.floor(math.log10(min(values)))
    y_high = 10 ** math.ceil(math.log10(max(values) * 1.05))

    def x(intensity):
        return LEFT + _scale(intensity, *x_range, plot_w)

    def y(gflops):
        return top + plot_h - _scale(gflops, y_low, y_high, plot_h)

    svg = etree.Element("svg", {"xmlns": "http://www.w3.org/2000/svg", "viewBox": f"0 0 {WIDTH} {height}",
                                "class": "lab-roofline", "role": "img", "aria-label": words["y"]})
    etree.SubElement(svg, "rect", {"x": str(LEFT), "y": str(top), "width": str(plot_w), "height": str(plot_h),
                                   "fill": "none", "class": "frame"})
    for exponent in range(math.floor(math.log2(x_range[0])), math.ceil(math.log2(x_range[1])) + 1):
        intensity = 2.0 ** exponent
        if x_range[0] <= intensity <= x_range[1]:
            etree.SubElement(svg, "line", {"x1": f"{x(intensity):.1f}", "x2": f"{x(intensity):.1f}", "y1": str(top),
                                           "y2": str(top + plot_h), "class": "grid"})
            tick = etree.SubElement(svg, "text", {"x": f"{x(intensity):.1f}", "y": str(top + plot_h + 19),
                                                  "font-size": str(FONT), "text-anchor": "middle", **TEXT})
            tick.text = f"{intensity:g}" if intensity >= 1 else f"1/{int(round(1 / intensity))}"
    decade = y_low
    while decade <= y_high:
        etree.SubElement(svg, "line", {"x1": str(LEFT), "x2": str(LEFT + plot_w), "y1": f"{y(decade):.1f}",
                                       "y2": f"{y(decade):.1f}", "class": "grid"})
        tick = etree.SubElement(svg, "text", {"x": str(LEFT - 6), "y": f"{y(decade) + 4:.1f}", "font-size": str(FONT),
                                              "text-anchor": "end", **TEXT})
        tick.text = f"{decade:g}"
        decade *= 10
    for kind, (peak, bandwidth) in (("theoretical", theoretical), ("measured", measured)):
        ridge = peak / bandwidth
        points = [(x_range[0], x_range[0] * bandwidth), (ridge, peak), (x_range[1], peak)]
        etree.SubElement(svg, "polyline", {
            "points": " ".join(f"{x(i):.1f},{y(g):.1f}" for i, g in points), "fill": "none", "class": kind,
            "stroke-width": "2", **({"stroke-dasharray": "6 4"} if kind == "theoretical" else {}),
        })
    levels = []
    for name, peak in extra_roofs:
        level = min(peak, x_range[1] * measured[1])
        points = [(x_range[0], x_range[0] * measured[1]), (level / measured[1], level), (x_range[1], level)]
        etree.SubElement(svg, "polyline", {
            "points": " ".join(f"{x(i):.1f},{y(g):.1f}" for i, g in points), "fill": "none", "class": "measured",
            "stroke-width": "1.5", "stroke-dasharray": EXTRA_DASHES})
        levels.append((y(level), name))
    taken: list[tuple[float, float, float, float]] = []   # the boxes of the names drawn in the plot
    for group in _label_groups(levels):
        baseline = max(group[0][0] - 4, top + FONT)   # above the group's top roof, inside the plot
        text = etree.SubElement(svg, "text", {"x": f"{x(x_range[1]) - 4:.1f}", "y": f"{baseline:.1f}",
                                              "font-size": str(FONT), "text-anchor": "end", "class": "in-plot", **TEXT})
        text.text = " · ".join(name for _, name in group)
        taken.append(_box(text.text, x(x_range[1]) - 4, baseline, "end"))
    for intensity, gflops in sweep:
        etree.SubElement(svg, "circle", {"cx": f"{x(intensity):.1f}", "cy": f"{y(gflops):.1f}", "r": "4",
                                         "class": "sweep"})
    points = [(x(i) - 6, y(g) - 6, x(i) + 6, y(g) + 6) for _, i, g in kernels]   # no name over another's point
    for number, (name, intensity, gflops) in enumerate(kernels):
        cx, cy = x(intensity), y(gflops)
        others = taken + points[:number] + points[number + 1:]
        etree.SubElement(svg, "polygon", {"points": f"{cx:.1f},{cy - 6:.1f} {cx + 6:.1f},{cy:.1f} {cx:.1f},{cy + 6:.1f} "
                                                    f"{cx - 6:.1f},{cy:.1f}", "class": "kernel"})
        # in the right third of the plot, where the roofs' names sit, a kernel's name goes to its left;
        # where that place is taken, the nearest free height on either side, joined to its point by a line
        left_first = cx > LEFT + plot_w * 2 / 3
        frame = (LEFT, top, LEFT + plot_w, top + plot_h)
        candidates = sorted(((abs(shift), left != left_first, left, cy + 5 + shift)
                         for shift in range(-LABEL_SEARCH, LABEL_SEARCH + 1, 2) for left in (True, False)))
        free = [(left, baseline) for _, _, left, baseline in candidates
                if _inside(box := _box(name, cx - 8 if left else cx + 8, baseline, "end" if left else "start"), frame)
                and not any(_overlap(box, other) for other in others)]
        left, baseline = free[0] if free else (left_first, cy + 5)
        anchor_x = cx - 8 if left else cx + 8
        if abs(baseline - cy - 5) > FONT / 2:   # moved away from its point: a thin line says whose it is
            etree.SubElement(svg, "line", {"x1": f"{cx:.1f}", "y1": f"{cy:.1f}", "x2": f"{anchor_x:.1f}",
                                           "y2": f"{baseline - FONT / 3:.1f}", "class": "leader", "stroke-width": "0.8"})
        text = etree.SubElement(svg, "text", {"x": f"{anchor_x:.1f}", "y": f"{baseline:.1f}",
                                              "font-size": str(FONT), "class": "in-plot", **TEXT,
                                              **({"text-anchor": "end"} if left else {})})
        text.text = name
        taken.append(_box(name, anchor_x, baseline, "end" if left else "start"))
    legend = etree.SubElement(svg, "g", {"class": "legend"})
    for kind, (lx, row) in zip(kinds, places):
        ly = LEGEND_Y + row * LEGEND_ROW
        if kind == "extra":   # a dotted line, as the extra roofs are drawn
            etree.SubElement(legend, "line", {"x1": f"{lx:.1f}", "x2": f"{lx + 14:.1f}", "y1": str(ly - 4),
                                              "y2": str(ly - 4), "class": "measured", "stroke-width": "1.5",
                                              "stroke-dasharray": EXTRA_DASHES})
        else:
            etree.SubElement(legend, "rect", {"x": f"{lx:.1f}", "y": str(ly - 10), "width": "14", "height": "11",
                                              "class": f"{kind} swatch"})
        etree.SubElement(legend, "text", {"x": f"{lx + 20:.1f}", "y": str(ly), "font-size": str(FONT),
                                          **TEXT}).text = words[kind]
    etree.SubElement(svg, "text", {"x": str(LEFT + plot_w / 2), "y": str(height - 8), "font-size": str(TITLE_FONT),
                                   "text-anchor": "middle", **TEXT}).text = words["x"]
    title = etree.SubElement(svg, "text", {"x": "16", "y": str(top + plot_h / 2), "font-size": str(TITLE_FONT),
                                           "text-anchor": "middle", "transform": f"rotate(-90 16 {top + plot_h / 2})",
                                           **TEXT})
    title.text = words["y"]
    return svg


#: A generous width of one character of the plot's names, in ems (digits and Latin letters of the
#: sans-serif fonts the site uses are 0.55 to 0.64 em wide), and the room kept around a name.
CHAR_EM = 0.66
LABEL_MARGIN = 2.0
#: How far (pixels, up or down) a kernel's name may move from its point to find a free place.
LABEL_SEARCH = 60


def _box(text: str, x: float, baseline: float, anchor: str) -> tuple[float, float, float, float]:
    """The box (left, top, right, bottom) a name of the plot's font takes, anchored at ``x``."""
    width = len(text) * FONT * CHAR_EM
    left = x - width if anchor == "end" else x
    return (left - LABEL_MARGIN, baseline - FONT - LABEL_MARGIN, left + width + LABEL_MARGIN, baseline + 4 + LABEL_MARGIN)


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(box: tuple[float, float, float, float], frame: tuple[float, float, float, float]) -> bool:
    return box[0] >= frame[0] and box[1] >= frame[1] and box[2] <= frame[2] and box[3] <= frame[3]


def _label_groups(levels: list[tuple[float, str]]) -> list[list[tuple[float, str]]]:
    """The extra roofs' (y, name), top first, in groups that share a label: a roof joins the group
    above when its level is less than a line of text (FONT + 2) below that group's lowest roof."""
    groups: list[list[tuple[float, str]]] = []
    for level in sorted(levels):
        if groups and level[0] - groups[-1][-1][0] < FONT + 2:
            groups[-1].append(level)
        else:
            groups.append([level])
    return groups
