import pytest

from labkit.course.figures import figure_value
from labkit.report.numbers import format_number, format_percent


def test_french_uses_decimal_comma_and_narrow_spaces():
    assert format_number(3350, 0, "fr") == "3\u202f350"
    assert format_number(3.26, 1, "fr") == "3,3"


def test_chinese_uses_decimal_point():
    assert format_number(3350, 0, "zh") == "3,350"
    assert format_number(130.5, 1, "zh") == "130.5"


def test_percent_sign_follows_each_language():
    assert format_percent(93.4, 0, "fr") == "93\u202f%"
    assert format_percent(93.4, 1, "zh") == "93.4%"


def test_unknown_figure_is_named():
    with pytest.raises(KeyError, match=r"\[\[nope.figure\]\].*labkit/course/figures.py"):
        figure_value("nope.figure")


def test_percent_of_peak_is_achieved_over_datasheet():
    assert figure_value("ch04.traffic.percent_of_peak") == round(100 * 2900 / 3350)
