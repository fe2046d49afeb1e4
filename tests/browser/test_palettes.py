"""Light and dark: the lab figures' text and marks, and the lab tables, keep enough contrast on
each palette's background (WCAG: 4.5:1 for text, 3:1 for graphical marks), and every page loads in
the dark palette too, offline and without a console error."""

import re

import pytest

from labkit.lab import labs
from labkit.project import Project
from labkit.results import recorded_paths
from labkit.report.labels import LANGUAGES
from labkit.results import read_results
from tests.browser.test_site import site_pages
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.browser

SCHEMES = {"light": "default", "dark": "slate"}
MARKS = ".lab-figure .theoretical, .lab-figure .measured, .lab-figure .sweep, .lab-figure .kernel, " \
        ".lab-figure [class^='phase-'], .lab-figure .line, .lab-figure .mark"
#: For each element: its colour (fill for text and filled marks, stroke for lines) and the page's background.
COLOURS_JS = """(selector) => [...document.querySelectorAll(selector)].map(el => {
  const style = getComputedStyle(el);
  const line = ['polyline', 'line', 'path'].includes(el.tagName);
  return {tag: el.tagName, cls: el.getAttribute('class') || '',
          colour: el.tagName === 'TD' ? style.color : (line ? style.stroke : style.fill)};
})"""
BACKGROUND_JS = "() => getComputedStyle(document.body).backgroundColor"


def rgba(css: str) -> tuple[float, float, float, float]:
    parts = [float(p) for p in re.findall(r"[\d.]+", css)]
    return (*parts[:3], parts[3] if len(parts) > 3 else 1.0)


def luminance(rgb) -> float:
    def channel(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = rgb[:3]
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(foreground: str, background: str) -> float:
    """WCAG contrast ratio, the foreground's alpha blended over the (opaque) background."""
    fr, fg, fb, alpha = rgba(foreground)
    br, bg, bb, _ = rgba(background)
    blended = (fr * alpha + br * (1 - alpha), fg * alpha + bg * (1 - alpha), fb * alpha + bb * (1 - alpha))
    lighter, darker = sorted((luminance(blended) + 0.05, luminance((br, bg, bb)) + 0.05), reverse=True)
    return lighter / darker


def chapters():
    """The chapters of the labs with a record (a lab block shows figures and tables only then), each
    with whether its lab draws figures from that record (lab 05 shows tables only)."""
    out = []
    for lab in labs().values():
        paths = list(recorded_paths(lab.lab_dir(Project(REPO_ROOT)), str))
        if paths:
            drawn = bool(lab.figures(read_results(paths[0], lab.results_type, lab.id).results, "en"))
            out += [(lang, lab.chapter.removesuffix(".md") + "/", drawn) for lang in LANGUAGES]
    return out


@pytest.fixture(params=list(SCHEMES))
def scheme(request, browser):
    context = browser.new_context(color_scheme=request.param)
    page = context.new_page()
    yield request.param, page
    context.close()


@pytest.mark.parametrize("lang, chapter, drawn", chapters())
def test_figures_and_tables_are_readable_in_both_palettes(scheme, site_url, lang, chapter, drawn):
    name, page = scheme
    page.goto(site_url + LANGUAGES[lang]["root"] + chapter, wait_until="networkidle")
    assert page.evaluate("() => document.body.getAttribute('data-md-color-scheme')") == SCHEMES[name]
    background = page.evaluate(BACKGROUND_JS)
    texts = page.evaluate(COLOURS_JS, ".lab-figure svg text")
    marks = page.evaluate(COLOURS_JS, MARKS)
    cells = page.evaluate(COLOURS_JS, ".lab-recorded td")
    assert cells, "the page has no lab table"
    assert (texts and marks) or not drawn, "the page has no lab figure"
    faint = [f"text {c['colour']}: {contrast(c['colour'], background):.2f}" for c in texts + cells
             if contrast(c["colour"], background) < 4.5]
    faint += [f"{c['tag']}.{c['cls']} {c['colour']}: {contrast(c['colour'], background):.2f}" for c in marks
              if contrast(c["colour"], background) < 3.0]
    assert not faint, f"{name} palette on {background}: " + "; ".join(sorted(set(faint))[:6])


def test_every_page_loads_in_the_dark_palette_offline(browser, site_url, built_site):
    from tests.browser.conftest import PageWatch

    context = browser.new_context(color_scheme="dark")
    page = context.new_page()
    watch = PageWatch(page)
    problems = []
    for rel in site_pages(built_site):
        watch.errors.clear()
        page.goto(site_url + rel.lstrip("/"), wait_until="networkidle")
        problems += [f"{rel}: {e}" for e in watch.errors]
    context.close()
    assert not problems, "\n".join(problems)
    assert watch.remote_requests == []
