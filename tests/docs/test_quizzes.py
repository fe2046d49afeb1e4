"""Every quiz has exactly one answer key, and the rendered answers are labkit's computed values."""

import re

import pytest
from bs4 import BeautifulSoup

from labkit.course.figures import FIGURES, render_figure
from labkit.course.quizzes import ANSWER_KEY, Choice
from labkit.report.labels import LANGUAGES
from labkit.report.numbers import format_number
from labkit.site import syntax
from labkit.site.inventory import language_pages
from labkit.site.plugin import FIGURE_PATTERN
from tests.conftest import DOCS


def quiz_ids(lang):
    ids = []
    for path in language_pages(DOCS, lang).values():
        ids += [block.id for block in syntax.blocks(syntax.read_page(path.read_text())) if block.kind == "quiz"]
    return ids


@pytest.mark.parametrize("lang", LANGUAGES)
def test_each_quiz_appears_once_and_has_one_key(lang):
    ids = quiz_ids(lang)
    assert len(ids) == len(set(ids)), f"a quiz id repeats in docs/{lang}: {ids}"
    assert sorted(set(ids) - ANSWER_KEY.keys()) == [], "quizzes without an answer key"
    assert sorted(ANSWER_KEY.keys() - set(ids)) == [], f"answer keys with no quiz in docs/{lang}"


def rendered_quizzes(site):
    for html in site.rglob("*.html"):
        for quiz in BeautifulSoup(html.read_text(), "html.parser").select(".quiz[data-quiz-id]"):
            yield html.relative_to(site), quiz


def test_rendered_answers_are_the_keys(built_site):
    seen = set()
    for page, quiz in rendered_quizzes(built_site):
        lang = "zh" if page.parts[0] == "zh" else "fr"
        key = ANSWER_KEY[quiz["data-quiz-id"]]
        seen.add((lang, quiz["data-quiz-id"]))
        key_line = quiz.select_one(".quiz-answer .quiz-key").get_text()
        if isinstance(key, Choice):
            assert quiz["data-answer"] == key.answer, page
            assert f"({key.answer})" in key_line, page
        else:
            assert float(quiz["data-answer"]) == key.expected, page
            shown = format_number(key.expected, FIGURES[key.figure].decimals, lang)
            assert shown in key_line, f"{page}: {key_line!r} does not show {shown}"
    assert seen == {(lang, q) for lang in LANGUAGES for q in ANSWER_KEY}


def test_the_excess_traffic_answer_is_the_chapters_arithmetic():
    """2900 GB/s for 45 us moves 130.5 MB, 3.3 times the 40 MB needed (seed question 2)."""
    assert ANSWER_KEY["q04-moved-bytes"].expected == pytest.approx(2900e9 * 45e-6 / 1e6)
    assert render_figure("ch04.traffic.moved_mb", "fr") == "130,5"
    assert render_figure("ch04.traffic.excess_factor", "zh") == "3.3"


def test_rendered_pages_show_computed_figures(built_site):
    """No placeholder is left, and the chapter shows the computed values in each language's format."""
    for html in built_site.rglob("*.html"):
        assert not FIGURE_PATTERN.search(html.read_text()), f"{html}: unreplaced [[figure]]"
    for lang in LANGUAGES:
        page = built_site / LANGUAGES[lang]["root"] / "performance/04-profiling/index.html"
        text = BeautifulSoup(page.read_text(), "html.parser").get_text()
        for name in ("ch04.traffic.moved_mb", "ch04.traffic.excess_factor", "h100.hbm_gbps"):
            assert render_figure(name, lang) in text, f"{page}: {name} not shown as {render_figure(name, lang)}"


def test_powers_of_two_are_not_distinctive_other_values_are():
    assert [_distinctive(v) for v in (128.0, 1024.0, 64.0, 12.5, 130.5, 300.0)] == [False, False, False, True,
                                                                                   True, True]


def _spellings(value: float, decimals: int) -> set[str]:
    plain = f"{value:.{decimals}f}"
    spelled = {plain, plain.replace(".", ",")}
    for lang in LANGUAGES:
        spelled.add(format_number(value, decimals, lang))
    if value >= 1000:
        spelled |= {f"{value:,.{decimals}f}".replace(",", sep) for sep in (" ", "\u202f", "\u00a0")}
    return spelled


def _distinctive(value: float) -> bool:
    """Three digits or more, not 100 and not a power of two: 100 is the full scale of every
    percentage ("100 %"), and 128, 256 or 1024 are how a GPU text writes sizes, lanes and bytes by
    definition, so a figure equal to one cannot be told from them."""
    if len(f"{value:g}".replace(".", "")) < 3 or value == 100:
        return False
    return not (value.is_integer() and value > 0 and (int(value) & (int(value) - 1)) == 0)


def test_no_computed_figure_is_typed_by_hand():
    """A distinctive computed value (see _distinctive) typed into a page instead of [[name]]."""
    typed = {}   # name: (spelling, the pattern that finds it typed) for each distinctive figure, computed once
    for name, figure in FIGURES.items():
        value = figure.value()
        if _distinctive(value):
            typed[name] = [(spelled, re.compile(rf"(?<![\d.,]){re.escape(spelled)}(?![\d])"))
                           for spelled in _spellings(value, figure.decimals)]
    offenders = []
    for lang in LANGUAGES:
        for rel, path in language_pages(DOCS, lang).items():
            text = FIGURE_PATTERN.sub("", path.read_text())
            for name, spellings in typed.items():
                for spelled, pattern in spellings:
                    if spelled in text and pattern.search(text):    # the plain search first: far quicker
                        offenders.append(f"docs/{lang}/{rel}: '{spelled}' typed instead of [[{name}]]")
    assert not offenders, "\n".join(offenders)
