"""Line charts as inline SVG (labkit.report.chart_svg): ticks, series, staircases, guides, second axis."""

import xml.etree.ElementTree as etree

import pytest

from labkit.report import chart_svg
from labkit.report.chart_svg import Axis, Guide, SecondAxis, Series, line_chart, nice_ticks

NS = "{http://www.w3.org/2000/svg}"


def test_nice_ticks():
    assert nice_ticks(1, 64, log=True, base=2) == [1, 2, 4, 8, 16, 32, 64]
    assert nice_ticks(3, 50, log=True, base=2) == [4, 8, 16, 32]
    assert nice_ticks(10, 1000, log=True) == [10, 20, 50, 100, 200, 500, 1000]
    assert nice_ticks(1, 1e6, log=True) == [1, 10, 100, 1000, 1e4, 1e5, 1e6]
    assert nice_ticks(0, 4500, log=False) == [0, 1000, 2000, 3000, 4000]
    assert nice_ticks(0, 66, log=False) == [0, 20, 40, 60]
    assert nice_ticks(0, 12, log=False) == [0, 2, 4, 6, 8, 10, 12]


def test_positions_on_linear_and_log_axes():
    assert Axis("x", 0, 10).position(2.5) == pytest.approx(0.25)
    assert Axis("x", 1, 64, log=True, base=2).position(8) == pytest.approx(0.5)


def chart(**kwargs):
    series = [Series("measured", ((1, 10), (2, 20), (4, 35)), chart_svg.SERIES[0]),
              Series("model", ((1, 12), (4, 40)), chart_svg.SERIES[0], dashed=True, marker="none", legend=False),
              Series("steps", ((0, 5), (2, 10), (4, 15)), chart_svg.SERIES[1], steps=True, marker="none"),
              Series("ncu", ((1, 11), (2, 19)), chart_svg.SERIES[2], line=False, marker="cross")]
    return line_chart(series, Axis("warps", 1, 4, log=True, base=2), Axis("GB/s", 0, 50), "a chart", **kwargs)


def test_a_chart_draws_each_series_its_markers_and_its_legend():
    svg = chart()
    assert svg.get("role") == "img" and svg.get("aria-label") == "a chart"
    lines = svg.findall("polyline")
    assert len(lines) == 3
    assert lines[1].get("stroke-dasharray") and not lines[0].get("stroke-dasharray")
    assert len(svg.findall("circle")) == 3  # markers of the measured series only
    assert len(svg.findall("path")) == 2    # the crosses of the marker-only series
    assert [t.text for t in svg.iter(f"text") if t.text in ("measured", "model", "steps")] == ["measured", "steps"]
    # colours come from the stylesheet: classes, never a colour in the SVG
    assert lines[0].get("class") == "series-0 line" and svg.find("circle").get("class") == "series-0 mark"
    assert all(el.get("stroke") is None and el.get("fill") in (None, "none", "currentColor") for el in svg.iter())
    # a staircase holds each y until the next x: 3 points make 5 corners
    assert len(lines[2].get("points").split()) == 5


def test_guides_and_a_second_axis():
    svg = chart(guides=(Guide("ceiling", 40), Guide("25 %", 2, vertical=True)),
                second=SecondAxis("ns", 0.5, lambda v: f"{v:g}"))
    texts = [t.text for t in svg.findall("text")]
    assert "ceiling" in texts and "25 %" in texts and "ns" in texts
    assert "25" in texts  # the second axis: 0..50 read x 0.5 has a tick at 25


def test_points_outside_the_axes_are_clipped_to_the_plot():
    svg = line_chart([Series("s", ((0.5, -10), (100, 1e9)), chart_svg.SERIES[0])], Axis("x", 1, 4, log=True, base=2),
                     Axis("y", 0, 50), "clipped")
    frame = svg.find("rect")
    for circle in svg.findall("circle"):
        assert chart_svg.LEFT <= float(circle.get("cx")) <= chart_svg.WIDTH - chart_svg.RIGHT
        assert float(frame.get("y")) <= float(circle.get("cy")) <= float(frame.get("y")) + float(frame.get("height"))


def test_the_svg_is_self_contained():
    text = etree.tostring(chart(), encoding="unicode")
    assert "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "nan" not in text.lower()


def test_the_legend_sits_above_the_plot_and_wraps():
    """Nothing is drawn over the legend's text: it is above the plot's frame, one row or more."""
    many = [Series(f"a long series label number {k}", ((1, k), (4, k + 1)), chart_svg.SERIES[k % 6]) for k in range(6)]
    svg = line_chart(many, Axis("x", 1, 4), Axis("y", 0, 10), "wrapped")
    frame = svg.find("rect")
    legend = svg.find("g[@class='legend']")
    rows = {t.get("y") for t in legend.iter("text")}
    assert len(list(legend.iter("text"))) == 6 and len(rows) >= 2
    assert all(float(t.get("y")) + 4 < float(frame.get("y")) for t in legend.iter("text"))
    assert all(float(t.get("x")) + chart_svg.text_width(t.text) <= chart_svg.WIDTH for t in legend.iter("text"))
    height = float(svg.get("viewBox").split()[3])
    assert float(frame.get("y")) + float(frame.get("height")) + chart_svg.BOTTOM == pytest.approx(height)


def test_text_is_drawn_at_the_charts_size():
    assert {t.get("font-size") for t in chart().iter("text")} <= {str(chart_svg.FONT), str(chart_svg.TITLE_FONT)}
    # 720 units in Material's 688 px column, and at least 660 px on a phone: 12.8 px or more
    assert chart_svg.FONT * 660 / chart_svg.WIDTH >= 12.8
