"""The site as read on a desktop (1366 px) and a phone (360 px): no page scrolls sideways; every
diagram, chart and widget drawing shows its text at least at the body's small size (Material's
<small>, 12.8 px); a table wider than its column says so and keeps its first column in view."""

import pytest

from labkit.report.labels import LANGUAGES
from tests.browser.tour import READERS, WIDTHS, diagrams_in, settle, site_pages

pytestmark = pytest.mark.browser

#: Pages with Mermaid diagrams, widgets or lab figures.
DRAWN = ["performance/", "performance/01-roofline/", "performance/02-coalescing/", "performance/03-occupancy/",
         "performance/04-profiling/", "performance/05-checklist/"]


def test_no_page_scrolls_sideways_on_a_phone(tour, built_site):
    pages = site_pages(built_site)
    assert len(pages) >= 24
    phone = READERS[WIDTHS["phone"]]["viewport"]["width"]
    seen = tour.pages(WIDTHS["phone"], pages)
    unsettled = [f"{rel}: {page['unsettled']}" for rel, page in seen.items() if "unsettled" in page]
    assert not unsettled, "pages that did not settle:\n" + "\n".join(unsettled)
    too_wide = [f"{rel}: {page['scroll_width']} px ({page['sticking_out']})" for rel, page in seen.items()
                if page["scroll_width"] > phone]
    assert not too_wide, f"pages wider than a {phone} px phone:\n" + "\n".join(too_wide)


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


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_wide_table_says_there_is_more_and_keeps_its_first_column(reader_page, site_url, built_site, lang):
    _width, page = reader_page
    path = LANGUAGES[lang]["root"] + "performance/04-profiling/"
    page.goto(site_url + path)
    settle(page, diagrams_in((built_site / path / "index.html").read_text(encoding="utf-8")))
    boxes = page.locator(".lab-recorded > .md-typeset__scrollwrap")
    wide = [i for i in range(boxes.count())
            if boxes.nth(i).evaluate("b => b.scrollWidth > b.clientWidth + 1")]
    assert wide, "no lab table wider than its column on chapter 4 (the ncu table is 17 columns)"
    for index in wide:
        box = boxes.nth(index)
        hint = box.locator("xpath=preceding-sibling::*[1]")
        assert "scroll-hint" in (hint.get_attribute("class") or "") and hint.is_visible(), "no visible hint"
        assert "scrolls--more-right" in box.get_attribute("class")
        first = box.locator("tbody tr >> nth=0").locator("td >> nth=0")
        second = box.locator("tbody tr >> nth=0").locator("td >> nth=1")
        before, second_before = first.bounding_box()["x"], second.bounding_box()["x"]
        box.evaluate("b => { b.scrollLeft = 400; b.dispatchEvent(new Event('scroll')); }")
        left = box.bounding_box()["x"]
        assert left - 1 <= first.bounding_box()["x"] <= before + 1, "the first column scrolled away"
        assert second.bounding_box()["x"] < second_before - 100, "the table did not scroll"
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; b.dispatchEvent(new Event('scroll')); }")
        assert "scrolls--more-right" not in box.get_attribute("class")


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
