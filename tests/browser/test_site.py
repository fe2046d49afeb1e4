"""The built site in a real browser: loads, offline, languages, search, math, diagrams, quizzes."""

import json
import re

import pytest

from labkit.course.figures import render_figure
from labkit.course.quizzes import ANSWER_KEY
from labkit.report.labels import LANGUAGES, label
from labkit.site.typography import typeset_text
from tests.browser.tour import READERS, WIDTHS, load_problems, search, site_pages

pytestmark = pytest.mark.browser

CHAPTER = "performance/04-profiling/"
#: A word each language's chapter uses and the other's does not.
SEARCH_TERMS = {"fr": "chronologie", "zh": "时间线"}


def test_every_page_loads_without_error_or_remote_request(tour, built_site):
    pages = site_pages(built_site)
    assert len(pages) >= 6
    problems = load_problems(tour.pages("light desktop", pages))
    assert not problems, "\n".join(problems)


def test_switcher_leads_to_the_same_page_and_back(page, site_url):
    """French to Chinese, then back to French, on the same chapter (each language's switcher)."""
    page.goto(site_url + LANGUAGES["fr"]["root"] + CHAPTER)
    for target in ("zh", "fr"):
        page.hover(".md-header__option .md-select")
        with page.expect_navigation():
            page.click(f'a.md-select__link[hreflang="{target}"]')
        assert page.url == site_url + LANGUAGES[target]["root"] + CHAPTER
        assert page.get_attribute("html", "lang") == target


#: Queries and the chapters one of which must be their first result: French readers may say
#: "occupation", the course says "occupancy"; in Chinese "占用率" is also in the lab 03 notebook and
#: chapter 5; Chinese readers type 共享内存 and 张量核心 where the course writes shared memory and
#: tensor core; "tuile" is taught in chapter 6, chapter 1 only works an example with one
#: (labkit.site.search_terms).
OCCUPANCY, COALESCING, MATMUL = "performance/03-occupancy/", "performance/02-coalescing/", "performance/06-matmul/"
NOTIONS = {"fr": (("occupation", (OCCUPANCY,)), ("occupancy", (OCCUPANCY,)), ("tuile", (MATMUL,)),
                  ("coalescence", (COALESCING,))),
           "zh": (("占用率", (OCCUPANCY,)), ("occupancy", (OCCUPANCY,)), ("共享内存", (COALESCING, MATMUL)),
                  ("张量核心", (MATMUL,)))}
#: TeX as written: a search snippet shows text, it renders no formula.
RAW_TEX = re.compile(r"\\[(\[)]|\\(?:text|frac|times|min|left|right)\b")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_search_finds_the_language_and_puts_the_chapter_that_teaches_a_notion_first(search_page, site_url, lang,
                                                                                    built_site):
    """One page of each language, searched several times (Material indexes the language once a page);
    no snippet of the results shows TeX, nor does any entry of the index."""
    page = search_page
    page.goto(site_url + LANGUAGES[lang]["root"])
    hrefs = search(page, SEARCH_TERMS[lang])
    assert any(CHAPTER in href for href in hrefs), hrefs
    assert all(f"/{LANGUAGES['zh']['root']}" in href for href in hrefs) == (lang == "zh"), hrefs
    snippets = []
    for query, chapters in NOTIONS[lang]:
        hrefs = search(page, query)
        assert any(hrefs[0].startswith(site_url + LANGUAGES[lang]["root"] + chapter) for chapter in chapters), \
            (query, hrefs[:4])
        snippets.append(page.inner_text(".md-search-result__list"))
    assert not [m.group(0) for text in snippets for m in RAW_TEX.finditer(text)], "TeX in the snippets"
    index = json.loads((built_site / LANGUAGES[lang]["root"] / "search" / "search_index.json").read_text(encoding="utf-8"))
    raw = [doc["location"] for doc in index["docs"] if RAW_TEX.search(doc["title"] + doc["text"])]
    assert not raw, f"TeX in the search index: {raw[:5]}"
    assert page.watch.errors == [] and page.watch.remote_requests == []


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_404_page_leads_to_each_languages_home(page, site_url, lang):
    page.goto(site_url + LANGUAGES[lang]["root"] + "404.html")
    for target in LANGUAGES:
        href = page.get_attribute(f'a.md-select__link[hreflang="{target}"]', "href")
        assert href == "/" + LANGUAGES[target]["root"], (target, href)
    page.hover(".md-header__option .md-select")
    with page.expect_navigation():
        page.click('a.md-select__link[hreflang="zh"]')
    assert page.url == site_url + "zh/" and page.get_attribute("html", "lang") == "zh"


@pytest.mark.parametrize("reader", READERS)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", ["performance/", CHAPTER])
def test_math_and_mermaid_render(tour, reader, lang, path):
    seen = tour.page(reader, LANGUAGES[lang]["root"] + path)
    assert "unsettled" not in seen, seen["unsettled"]
    if path == "performance/":
        assert seen["katex"] > 0, "no formula rendered by KaTeX"
    diagrams = seen["diagrams"]
    assert diagrams and all(d["nodes"] for d in diagrams), diagrams
    assert all("Syntax error" not in d["text"] for d in diagrams), diagrams
    assert seen["errors"] == [], f"console errors: {seen['errors']}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_choice_quiz_and_a_numeric_quiz_say_wrong_then_right(page, site_url, lang):
    page.goto(site_url + LANGUAGES[lang]["root"] + CHAPTER)
    quiz = page.locator("#quiz-q04-low-low")
    right = ANSWER_KEY["q04-low-low"].answer
    wrong = "a" if right != "a" else "b"
    assert not quiz.locator("details.quiz-answer").evaluate("d => d.open")
    quiz.locator(f'button.quiz-option[value="{wrong}"]').click()
    assert "quiz--wrong" in quiz.get_attribute("class")
    assert quiz.locator(".quiz-feedback").inner_text() == typeset_text(label(lang, "wrong"), lang)
    assert quiz.locator("details.quiz-answer").evaluate("d => d.open")
    quiz.locator(f'button.quiz-option[value="{right}"]').click()
    assert "quiz--right" in quiz.get_attribute("class")
    assert quiz.locator(".quiz-feedback").inner_text() == typeset_text(label(lang, "right"), lang)

    quiz = page.locator("#quiz-q04-moved-bytes")   # the numeric one accepts the computed value
    quiz.locator("input").fill("40")
    quiz.locator("form button").click()
    assert "quiz--wrong" in quiz.get_attribute("class")
    quiz.locator("input").fill(render_figure("ch04.traffic.moved_mb", lang))
    quiz.locator("form button").click()
    assert "quiz--right" in quiz.get_attribute("class")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_case_diagnosis_shows_once_its_quiz_is_answered(page, site_url, lang):
    """Chapter 5's mystery kernels: the diagnosis below a profile stays out of sight until the reader
    has answered the quiz on it, whatever the answer."""
    page.goto(site_url + LANGUAGES[lang]["root"] + "performance/05-checklist/")
    diagnosis = page.locator('[data-after-quiz="q05-a"]')
    assert not diagnosis.locator("details").is_visible()
    assert diagnosis.locator(".case-locked-note").is_visible()
    wrong = next(letter for letter in "abcd" if letter != ANSWER_KEY["q05-a"].answer)
    page.locator(f'#quiz-q05-a button.quiz-option[value="{wrong}"]').click()
    assert diagnosis.locator("details").is_visible()
    assert not diagnosis.locator(".case-locked-note").is_visible()
    assert not page.locator('[data-after-quiz="q05-b"] details').is_visible()


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_lab_notebook_and_its_record_speak_the_pages_language(tour, lang):
    """The notebook page's record line names the whole commit and writes the clock as the chapter
    does; the chapter's provenance fold speaks the page's language; the calculator cell prints a
    sentence, not a Python tuple."""
    from labkit.report.labels import label as word
    from labkit.report.numbers import format_number

    notebook = tour.page(WIDTHS["desktop"], LANGUAGES[lang]["root"] + "labs/03-occupancy/lab03/")
    chapter = tour.page(WIDTHS["desktop"], LANGUAGES[lang]["root"] + "performance/03-occupancy/")
    assert "unsettled" not in notebook and "unsettled" not in chapter
    lines = notebook["provenance_lines"]
    assert lines, "no record line on the notebook page"
    for line in lines + chapter["provenance_lines"]:
        assert re.search(r"commit [0-9a-f]{12}\b", line), f"the commit is cut: {line!r}"
        sm = re.search(r"SM (\S+(?:\u202f\S+)?) MHz", line).group(1)
        assert sm == format_number(float(sm.replace("\u202f", "").replace(",", "")), 0, lang), line
    fold = chapter["provenance_lines"][0]
    assert word(lang, "lab.provenance.driver") in fold and word(lang, "lab.provenance.memory") in fold, fold
    if lang == "fr":
        assert not re.search(r"\b(?:driver|mem)\b", fold), fold
    shown = notebook["short_outputs"]
    assert any(word(lang, "notebook.limiter.registers").strip() in text for text in shown), shown
    assert not [text for text in shown if re.search(r"\('[a-z_]+',?\)", text)], shown
