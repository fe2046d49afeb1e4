"""The site as read on a desktop (1366 px) and a phone (360 px): no page scrolls sideways; every
diagram, chart and widget drawing shows its text at least at the body's small size (Material's
<small>, 12.8 px); a table wider than its column says so and keeps its first column in view."""

import pytest

from labkit.report.labels import LANGUAGES
from tests.browser.test_site import OPEN_SHADOW_ROOTS, site_pages

pytestmark = pytest.mark.browser

WIDTHS = {"desktop": (1366, 900), "phone": (360, 740)}
#: Pages with Mermaid diagrams, widgets or lab figures.
DRAWN = ["performance/", "performance/01-roofline/", "performance/02-coalescing/", "performance/03-occupancy/",
         "performance/04-profiling/", "performance/05-checklist/"]

#: The smallest text drawn on the page: (what, px), with each drawing's scale applied.
TEXT_SIZES_JS = """() => {
  const small = document.createElement('small');
  small.textContent = 'x';
  document.querySelector('.md-typeset').appendChild(small);
  const floor = parseFloat(getComputedStyle(small).fontSize);
  small.remove();
  const sizes = [];
  const scaleOf = (svg) => {
    const box = svg.viewBox && svg.viewBox.baseVal;
    return box && box.width ? svg.getBoundingClientRect().width / box.width : 1;
  };
  for (const host of document.querySelectorAll('div.mermaid')) {
    const svg = host.shadowRoot.querySelector('svg');
    for (const label of host.shadowRoot.querySelectorAll('.nodeLabel, .edgeLabel p, .edgeLabel span, text')) {
      if (label.textContent.trim()) sizes.push(['mermaid ' + label.textContent.trim().slice(0, 20),
                                               parseFloat(getComputedStyle(label).fontSize) * scaleOf(svg)]);
    }
  }
  for (const text of document.querySelectorAll('.lab-figure svg text, .access-explorer svg text, .occupancy-calculator svg text')) {
    const where = text.closest('.lab-figure, .access-explorer, .occupancy-calculator').className.split(' ')[0];
    sizes.push([where + ' ' + text.textContent.slice(0, 20), parseFloat(getComputedStyle(text).fontSize) * scaleOf(text.ownerSVGElement)]);
  }
  return {floor, sizes};
}"""


@pytest.fixture(params=list(WIDTHS))
def reader(request, browser):
    width, height = WIDTHS[request.param]
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=request.param == "phone",
                                  has_touch=request.param == "phone")
    page = context.new_page()
    page.add_init_script(OPEN_SHADOW_ROOTS)
    yield request.param, width, page
    context.close()


def settle(page):
    """Wait for Mermaid's diagrams (drawn after the page) and course.js's pass over them."""
    page.wait_for_function("() => [...document.querySelectorAll('div.mermaid')].every(d => d.shadowRoot && "
                           "d.shadowRoot.querySelector('svg'))", timeout=20_000)
    page.wait_for_timeout(300)


def test_no_page_scrolls_sideways_on_a_phone(browser, site_url, built_site):
    context = browser.new_context(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    page = context.new_page()
    too_wide = []
    pages = site_pages(built_site)
    assert len(pages) >= 24
    for rel in pages:
        page.goto(site_url + rel.lstrip("/"), wait_until="networkidle")
        page.wait_for_timeout(200)
        width = page.evaluate("() => document.documentElement.scrollWidth")
        if width > 360:
            culprit = page.evaluate("""() => [...document.querySelectorAll('article *')]
              .filter(e => e.getBoundingClientRect().right > 361)
              .filter(e => !e.parentElement.closest('[class*=scroll], pre, .highlight, .arithmatex, div.mermaid, figure'))
              .slice(0, 2).map(e => e.tagName + '.' + e.className)""")
            too_wide.append(f"{rel}: {width} px ({culprit})")
    context.close()
    assert not too_wide, "pages wider than a 360 px phone:\n" + "\n".join(too_wide)


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("path", DRAWN)
def test_every_drawing_shows_its_text_at_the_small_size_or_more(reader, site_url, lang, path):
    name, _, page = reader
    page.goto(site_url + LANGUAGES[lang]["root"] + path, wait_until="networkidle")
    settle(page)
    calculator = page.locator("div.occupancy-calculator")
    if calculator.count():
        calculator.scroll_into_view_if_needed()
    explorer = page.locator("div.access-explorer")
    if explorer.count():
        explorer.locator("select >> nth=1").select_option("shared")
    measured = page.evaluate(TEXT_SIZES_JS)
    floor, sizes = measured["floor"], measured["sizes"]
    assert floor >= 12, floor
    if path in ("performance/", "performance/03-occupancy/", "performance/04-profiling/", "performance/05-checklist/"):
        assert any(what.startswith("mermaid") for what, _ in sizes), "the page's diagram was not measured"
    small = sorted({f"{what!r}: {px:.1f} px" for what, px in sizes if px < floor - 0.05})
    assert not small, f"{name}: text under {floor} px:\n" + "\n".join(small[:12])


@pytest.mark.parametrize("lang", LANGUAGES)
def test_a_wide_table_says_there_is_more_and_keeps_its_first_column(reader, site_url, lang):
    name, _, page = reader
    page.goto(site_url + LANGUAGES[lang]["root"] + "performance/04-profiling/", wait_until="networkidle")
    page.wait_for_timeout(300)
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
        page.wait_for_timeout(50)
        left = box.bounding_box()["x"]
        assert left - 1 <= first.bounding_box()["x"] <= before + 1, "the first column scrolled away"
        assert second.bounding_box()["x"] < second_before - 100, "the table did not scroll"
        box.evaluate("b => { b.scrollLeft = b.scrollWidth; b.dispatchEvent(new Event('scroll')); }")
        page.wait_for_timeout(50)
        assert "scrolls--more-right" not in box.get_attribute("class")


@pytest.mark.parametrize("path", ["performance/02-coalescing/", "performance/03-occupancy/", "performance/04-profiling/"])
def test_the_widgets_french_follows_french_typography(page, site_url, path):
    """What the scripts write (widgets, their messages, a quiz's feedback) is not typeset by the
    build: it must be right as written."""
    from tests.docs.test_typography import FRENCH_MISTAKES

    page.goto(site_url + path, wait_until="networkidle")
    shown = []
    explorer, calculator = page.locator("div.access-explorer"), page.locator("div.occupancy-calculator")
    if explorer.count():
        explorer.locator("input >> nth=0").fill("2.5")
        shown.append(explorer.inner_text())
        explorer.locator("input >> nth=0").fill("8")
        explorer.locator("select >> nth=1").select_option("shared")
        shown.append(explorer.inner_text())
    if calculator.count():
        shown.append(calculator.inner_text())
        for typed in ("2000", "1e3"):
            calculator.locator('input[name="threads_per_block"]').fill(typed)
            shown.append(calculator.inner_text())
        calculator.locator('input[name="threads_per_block"]').fill("1024")
        calculator.locator('input[name="registers_per_thread"]').fill("255")
        shown.append(calculator.inner_text())
    for quiz in page.locator(".quiz").all()[:3]:
        option = quiz.locator("button.quiz-option")
        if option.count():
            option.first.click()
            shown.append(quiz.locator(".quiz-feedback").inner_text())
    assert shown
    problems = [f"{what}: {m.group(0)!r} in {text[max(0, m.start() - 30):m.end() + 10]!r}"
                for text in shown for what, pattern in FRENCH_MISTAKES.items() for m in pattern.finditer(text)]
    assert not problems, "\n".join(problems[:10])
