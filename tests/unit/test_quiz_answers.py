"""What a numeric quiz accepts: every way the site prints the expected number in the page's
language (2048, 2 048 with any space, 2,048, 130,5), with or without the question's unit; the page's
JavaScript applies the same rule (tests/browser/test_quiz_answers.py runs this table there)."""

import pytest

from labkit.course.figures import FIGURES
from labkit.course.quizzes import ANSWER_KEY, Numeric, ambiguous_readings, readings
from labkit.report.numbers import format_number

#: (typed, lang, unit, readings)
CASES = [
    ("2048", "fr", "octets", (2048.0,)),
    ("2 048", "fr", "octets", (2048.0,)),
    ("2\u202f048", "fr", "octets", (2048.0,)),
    ("2\u00a0048 octets", "fr", "octets", (2048.0,)),
    ("2 048 octet", "fr", "octets", (2048.0,)),
    ("2,048", "fr", "octets", (2048.0, 2.048)),
    ("2,048", "zh", "字节", (2048.0,)),
    ("2,048 字节", "zh", "字节", (2048.0,)),
    ("1,234.5", "zh", "", (1234.5,)),
    ("130,5", "fr", "Mo", (130.5,)),
    ("130,5 Mo", "fr", "Mo", (130.5,)),
    ("130.5", "fr", "Mo", (130.5,)),
    ("130.5 MB", "zh", "MB", (130.5,)),
    ("6,25 %", "fr", "%", (6.25,)),
    ("6.25%", "zh", "%", (6.25,)),
    ("32 个 sector", "zh", "个 sector", (32.0,)),
    ("32 sector", "zh", "个 sector", (32.0,)),
    ("−3", "fr", "", (-3.0,)),
    ("1e3", "fr", "", ()),
    ("12abc", "fr", "", ()),
    ("12 + 3", "fr", "", ()),
    ("", "zh", "", ()),
    ("2048 Mo", "fr", "octets", ()),
    ("２０４８", "zh", "字节", (2048.0,)),       # full-width digits, as a Chinese input method types them
    ("２，０４８ 字节", "zh", "字节", (2048.0,)),
    ("１２，５", "fr", "", (12.5,)),
    ("1.280", "fr", "octets", ()),           # ambiguous in French: ambiguous_readings
    ("1.280", "zh", "字节", (1.28,)),
    ("12.500.000", "fr", "", ()),
]

#: (typed, lang, the two readings of an answer grouped with dots in French, or ()).
AMBIGUOUS = [
    ("1.280", "fr", (1.28, 1280.0)),
    ("1.280 octets", "fr", (1.28, 1280.0)),
    ("12.500.000", "fr", ()),              # not a number the site writes: "type a number"
    ("1.280", "zh", ()),
    ("130.5", "fr", ()),
    ("1 280", "fr", ()),
]


@pytest.mark.parametrize("typed, lang, unit, expected", CASES)
def test_readings(typed, lang, unit, expected):
    assert readings(typed, lang, unit) == expected


@pytest.mark.parametrize("typed, lang, expected", AMBIGUOUS)
def test_ambiguous_readings(typed, lang, expected):
    assert ambiguous_readings(typed, lang, "octets") == expected


def printed_spellings(value: float, decimals: int, lang: str) -> set[str]:
    """How the site prints the value in ``lang`` (labkit.report.numbers), and the same digits
    grouped the other ways a reader copies them: 2 048 (U+202F, U+00A0, space), 2,048."""
    shown = format_number(value, decimals, lang)
    spelled = {shown, f"{value:.{decimals}f}", f"{value:,.{decimals}f}"}
    if lang == "fr":
        spelled |= {shown.replace("\u202f", space) for space in (" ", "\u00a0")}
    return spelled


@pytest.mark.parametrize("lang, unit", [("fr", "octets"), ("zh", "字节")])
def test_every_numeric_key_accepts_what_the_page_prints(lang, unit):
    numeric = {quiz: key for quiz, key in ANSWER_KEY.items() if isinstance(key, Numeric)}
    assert numeric
    for quiz, key in numeric.items():
        for spelled in printed_spellings(key.expected, FIGURES[key.figure].decimals, lang):
            for typed in (spelled, f"{spelled} {unit}"):
                assert key.accepts(typed, lang, unit), f"{quiz}: {typed!r} refused in {lang}"
        assert not key.accepts(format_number(key.expected * 2 + 1, 1, lang), lang, unit), quiz
