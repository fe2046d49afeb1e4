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
    series = [Series("measured", ((1, 10), (2, 20), (4, 35)), "#0072B2"),
              Series("model", ((1, 12), (4, 40)), "#0072B2", dashed=True, markers=False, legend=False),
              Series("steps", ((0, 5), (2, 10), (4, 15)), "#E69F00", steps=True, markers=False)]
    return line_chart(series, Axis("warps", 1, 4, log=True, base=2), Axis("GB/s", 0, 50), "a chart", **kwargs)


def test_a_chart_draws_each_series_its_markers_and_its_legend():
    svg = chart()
    assert svg.get("role") == "img" and svg.get("aria-label") == "a chart"
    lines = svg.findall("polyline")
    assert len(lines) == 3
    assert lines[1].get("stroke-dasharray") and not lines[0].get("stroke-dasharray")
    assert len(svg.findall("circle")) == 3  # markers of the measured series only
    assert [t.text for t in svg.findall("text") if t.text in ("measured", "model", "steps")] == ["measured", "steps"]
    # a staircase holds each y until the next x: 3 points make 5 corners
    assert len(lines[2].get("points").split()) == 5


def test_guides_and_a_second_axis():
    svg = chart(guides=(Guide("ceiling", 40), Guide("25 %", 2, vertical=True)),
                second=SecondAxis("ns", 0.5, lambda v: f"{v:g}"))
    texts = [t.text for t in svg.findall("text")]
    assert "ceiling" in texts and "25 %" in texts and "ns" in texts
    assert "25" in texts  # the second axis: 0..50 read x 0.5 has a tick at 25


def test_points_outside_the_axes_are_clipped_to_the_plot():
    svg = line_chart([Series("s", ((0.5, -10), (100, 1e9)), "#000")], Axis("x", 1, 4, log=True, base=2),
                     Axis("y", 0, 50), "clipped")
    for circle in svg.findall("circle"):
        assert chart_svg.LEFT <= float(circle.get("cx")) <= chart_svg.WIDTH - chart_svg.RIGHT
        assert chart_svg.TOP <= float(circle.get("cy")) <= chart_svg.HEIGHT - chart_svg.BOTTOM


def test_the_svg_is_self_contained():
    text = etree.tostring(chart(), encoding="unicode")
    assert "http" not in text.replace('xmlns="http://www.w3.org/2000/svg"', "") and "nan" not in text.lower()
