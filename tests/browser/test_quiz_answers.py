"""Numeric quizzes in the browser: the page's parser is labkit.course.quizzes.readings, and on the
built pages an answer typed as the page prints it (1,280, 1 280, 1 280 with U+202F or U+00A0,
with the unit) is right in both languages; what is not a number is named, not judged."""

from pathlib import Path

import pytest

import labkit.site
from labkit.course.figures import FIGURES
from labkit.course.quizzes import ANSWER_KEY
from labkit.report.labels import LANGUAGES, label
from labkit.report.numbers import format_number
from labkit.site.typography import typeset_text
from tests.unit.test_quiz_answers import AMBIGUOUS, CASES

pytestmark = pytest.mark.browser

SCRIPT = Path(labkit.site.__file__).parent / "assets" / "quiz.js"
QUIZ = "q02-dram-fetch"
CHAPTER = "performance/02-coalescing/"


def test_the_pages_parser_is_labkits(page):
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(path=str(SCRIPT.with_name("typed_numbers.js")))   # the site loads it first
    page.add_script_tag(path=str(SCRIPT))
    got = page.evaluate("cases => cases.map(([t, l, u]) => window.labkitQuiz.readings(t, l, u))",
                        [[typed, lang, unit] for typed, lang, unit, _ in CASES])
    assert [tuple(float(v) for v in values) for values in got] == [expected for *_, expected in CASES]
    got = page.evaluate("cases => cases.map(([t, l]) => window.labkitQuiz.ambiguousReadings(t, l, 'octets'))",
                        [[typed, lang] for typed, lang, _ in AMBIGUOUS])
    assert [tuple(float(v) for v in values) for values in got] == [expected for *_, expected in AMBIGUOUS]


def spellings(lang):
    key = ANSWER_KEY[QUIZ]
    shown = format_number(key.expected, FIGURES[key.figure].decimals, lang)
    plain = f"{key.expected:.0f}"
    comma = f"{key.expected:,.0f}"
    unit = {"fr": "octets", "zh": "字节"}[lang]
    full_width = plain.translate({ord(d): 0xFF10 + int(d) for d in "0123456789"})   # a Chinese input method's digits
    found = [plain, comma, shown, f"{shown} {unit}", f"{comma} {unit}", full_width]
    if lang == "fr":
        found += [shown.replace("\u202f", " "), shown.replace("\u202f", "\u00a0")]
    return found


#: The mistake the quiz invites: counting the sectors instead of DRAM's fetched blocks.
SECTORS = "ch02.quiz.dram_stride10_sector_bytes"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_an_answer_typed_as_the_page_prints_it_is_right(page, site_url, lang):
    key = ANSWER_KEY[QUIZ]
    assert key.expected >= 1000   # printed with a group separator: the spellings below need one
    wrong = FIGURES[SECTORS].value()
    assert abs(wrong - key.expected) > key.rel_tolerance * key.expected
    page.goto(site_url + LANGUAGES[lang]["root"] + CHAPTER)
    quiz = page.locator(f"#quiz-{QUIZ}")
    field = quiz.locator("input")
    if lang == "fr":   # "1.280": 1,28 or 1 280? Said so, not judged, the answer kept folded
        field.fill("")
        field.press_sequentially(f"{key.expected:,.0f}".replace(",", "."))
        field.press("Enter")
        whole, _, rest = f"{key.expected:,.0f}".partition(",")
        assert quiz.locator(".quiz-feedback").inner_text() == typeset_text(label(lang, "quiz.ambiguous"), lang).format(
            typed=f"{whole}.{rest}", decimal=f"{whole},{rest}", grouped=f"{whole}\u202f{rest}")
        assert "quiz--wrong" not in quiz.get_attribute("class")
        assert not quiz.locator("details.quiz-answer").evaluate("d => d.open")
    for typed in spellings(lang):
        field.fill("")
        field.press_sequentially(typed)
        field.press("Enter")
        assert "quiz--right" in quiz.get_attribute("class"), f"{typed!r} judged wrong"
    field.fill("")
    field.press_sequentially("abc")
    field.press("Enter")
    assert quiz.locator(".quiz-feedback").inner_text() == typeset_text(label(lang, "quiz.type_a_number"), lang)
    assert "quiz--wrong" not in quiz.get_attribute("class")
    field.fill("")
    field.press_sequentially(f"{wrong:.0f}")
    field.press("Enter")
    assert "quiz--wrong" in quiz.get_attribute("class")
    assert page.watch.errors == []
