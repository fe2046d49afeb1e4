"""The site as read on a desktop (1366 px) and a phone (360 px): no page scrolls sideways, even with
every fold open; every diagram, chart and widget drawing shows its text at least at the body's
small size (Material's <small>, 12.8 px), no label of a plot on another, none cut by its drawing's
edge; a table wider than its column says so and keeps its first column in view, and chapter 5's
profile tables show their values beside it; an exercise's solution is a code block like every
other, its text the file's (its docstring and comments in the page's language)."""

import pytest

from labkit.exercises import exercises
from labkit.report.labels import LANGUAGES
from labkit.site.exercise_block import comments_for_page, solution_for_page, solution_source
from tests.browser.tour import READERS, WIDTHS, site_pages

pytestmark = pytest.mark.browser

#: Pages with Mermaid diagrams, widgets or lab figures.
DRAWN = ["performance/", "performance/01-roofline/", "performance/02-coalescing/", "performance/03-occupancy/",
         "performance/04-profiling/", "performance/05-checklist/"]


def test_no_page_scrolls_sideways_on_a_phone(tour, built_site):
    pages = site_pages(built_site)
    assert len(pages) >= 24
    phone = READERS[WIDTHS["phone"]]["viewport"]["width"]
    seen = tour.pages(WIDTHS["phone"], pages)
    problems = [f"{rel}: did not settle: {page['unsettled']}" if "unsettled" in page else
                f"{rel}: {page['scroll_width']} px ({page['sticking_out']}), with every fold open "
                f"{page['scroll_width_folds_open']} px ({page['sticking_out_folds_open']})"
                for rel, page in seen.items()
                if "unsettled" in page or max(page["scroll_width"], page["scroll_width_folds_open"]) > phone]
    assert not problems, f"pages wider than a {phone} px phone:\n" + "\n".join(problems)


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", DRAWN)
def test_every_drawing_shows_its_text_at_the_small_size_or_more(tour, width, lang, path):
    """(Measured with the explorer on shared memory, which draws the banks, and the calculator
    scrolled into view: tour.use_widgets.)"""
    seen = tour.page(WIDTHS[width], LANGUAGES[lang]["root"] + path)
    assert "unsettled" not in seen, seen["unsettled"]
    floor, sizes = seen["text_sizes"]["floor"], seen["text_sizes"]["sizes"]
    assert floor >= 12, floor
    if path in ("performance/", "performance/03-occupancy/", "performance/04-profiling/", "performance/05-checklist/"):
        assert any(what.startswith("mermaid") for what, _ in sizes), "the page's diagram was not measured"
    small = sorted({f"{what!r}: {px:.1f} px" for what, px in sizes if px < floor - 0.05})
    assert not small, f"{width}: text under {floor} px:\n" + "\n".join(small[:12])


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_wide_table_says_there_is_more_and_keeps_its_first_column(tour, width, lang):
    """(Each table scrolled 400 px, then to its end: tour.WIDE_TABLES_JS.)"""
    seen = tour.page(WIDTHS[width], LANGUAGES[lang]["root"] + "performance/04-profiling/")
    assert "unsettled" not in seen, seen["unsettled"]
    wide = seen["wide_tables"]
    assert wide, "no lab table wider than its column on chapter 4 (the ncu table is 17 columns)"
    for table in wide:
        assert table["hint"], "no visible hint"
        assert table["more_right"]
        assert table["left"] - 1 <= table["first_scrolled"] <= table["first"] + 1, "the first column scrolled away"
        assert table["second_scrolled"] < table["second"] - 100, "the table did not scroll"
        assert not table["more_right_at_end"]


@pytest.mark.parametrize("path", ["performance/02-coalescing/", "performance/03-occupancy/", "performance/04-profiling/"])
def test_the_widgets_french_follows_french_typography(tour, path):
    """What the scripts write (widgets, their messages, a quiz's feedback) is not typeset by the
    build: it must be right as written (the text of each state tour.use_widgets leaves them in)."""
    from tests.docs.test_typography import FRENCH_MISTAKES

    seen = tour.page(WIDTHS["desktop"], path)
    assert "unsettled" not in seen, seen["unsettled"]
    shown = seen["widget_texts"]
    assert shown
    problems = [f"{what}: {m.group(0)!r} in {text[max(0, m.start() - 30):m.end() + 10]!r}"
                for text in shown for what, pattern in FRENCH_MISTAKES.items() for m in pattern.finditer(text)]
    assert not problems, "\n".join(problems[:10])


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", DRAWN + ["performance/06-matmul/"])
def test_no_label_of_a_drawing_covers_another_or_leaves_its_drawing(tour, width, lang, path):
    seen = tour.page(WIDTHS[width], LANGUAGES[lang]["root"] + path)
    assert "unsettled" not in seen, seen["unsettled"]
    assert seen["overlapping_labels"] == [], "labels inside a plot on top of each other"
    assert seen["cut_texts"] == [], "text cut by its drawing's edge"


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_chapter_5s_profile_tables_show_every_value_beside_the_metrics_names(tour, width, lang):
    """(Each table scrolled to its end: tour.CASE_TABLES_JS.)"""
    seen = tour.page(WIDTHS[width], LANGUAGES[lang]["root"] + "performance/05-checklist/")
    assert "unsettled" not in seen, seen["unsettled"]
    assert len(seen["case_tables"]) >= 8
    # all of each value, or at least half a phone's column of it (3 px for the cells' borders)
    hidden = [f"kernel {t['table']}: {t['least_shown']:.0f} px of a {t['of_width']:.0f} px value in view"
              for t in seen["case_tables"] if t["least_shown"] < min(t["of_width"], 160) - 3]
    assert not hidden, "\n".join(hidden)


def solution_pages():
    return sorted({(lang, item.chapter) for item in exercises().values() for lang in LANGUAGES})


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("lang, chapter", solution_pages())
def test_an_opened_solution_is_a_code_block_showing_the_files_text(tour, width, lang, chapter):
    """Material's scroll box, code background and copy button (pre > code), inside its fold; the
    text as the file has it (no Markdown applied to the docstring), in the page's language."""
    seen = tour.page(WIDTHS[width], LANGUAGES[lang]["root"] + chapter.removesuffix(".md") + "/")
    assert "unsettled" not in seen, seen["unsettled"]
    shown = {solution["id"]: solution for solution in seen["solutions"]}
    expected = {item.id for item in exercises().values() if item.chapter == chapter}
    assert set(shown) == expected
    for item_id, solution in shown.items():
        item = exercises()[item_id]
        assert solution["code_block"] and solution["copy_button"], f"{item_id}: not a code block"
        assert solution["inner_code"] == 0, f"{item_id}: Markdown applied inside the code"
        assert solution["scrolls"] == "auto" and solution["background"] not in ("rgba(0, 0, 0, 0)", "transparent")
        assert solution["right"] <= solution["fold_right"] + 1, f"{item_id}: the code runs out of its fold"
        text = comments_for_page(solution_for_page(solution_source(item), lang), lang, item.solution)
        assert solution["text"].strip() == text.strip(), f"{item_id}: not the file's text"
