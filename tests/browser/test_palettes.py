"""Light and dark: every text and line of the lab figures, lab tables, widgets (access explorer,
occupancy calculator, quizzes) and Mermaid diagrams keeps enough contrast on what it is drawn on
(WCAG 2.1: 4.5:1 for text, 3:1 for lines, marks and form-field borders, 1.4.3 and 1.4.11), and
every page loads in the dark palette too, offline and without a console error.

A chart's grid lines and the timeline's track are left out: they are decoration under the data
(WCAG 1.4.11 asks 3:1 of what is needed to read the graphic), drawn faint on purpose."""

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
        ".lab-figure [class^='phase-'], .lab-figure .line, .lab-figure .mark, .lab-figure .frame, .lab-figure .axis"
#: For each element: its colour (fill for text and filled marks, stroke for lines) and the page's background.
COLOURS_JS = """(selector) => [...document.querySelectorAll(selector)].map(el => {
  const style = getComputedStyle(el);
  const line = ['polyline', 'line', 'path'].includes(el.tagName) || el.getAttribute('class') === 'frame';
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


#: Every text and line of the widgets and diagrams, each with what it is drawn on: (what, kind,
#: colour, backdrop). Text on a coloured cell is measured against the cell.
WIDGET_COLOURS_JS = """() => {
  const page = getComputedStyle(document.body).backgroundColor;
  const out = [];
  const add = (el, kind, colour, backdrop) => out.push({
    what: el.tagName + '.' + (el.getAttribute('class') || '') + ' ' + (el.textContent || '').trim().slice(0, 20),
    kind, colour, backdrop: backdrop || page});
  const style = (el) => getComputedStyle(el);
  const all = (root, selector) => [...root.querySelectorAll(selector)];
  for (const el of all(document, '.access-explorer svg text')) {
    const cell = el.classList.contains('explorer-on-cell') ? el.previousElementSibling : null;
    add(el, 'text', style(el).fill, cell ? style(cell).fill : page);
  }
  for (const el of all(document, '.access-explorer .explorer-cell')) add(el, 'line', style(el).stroke);
  for (const el of all(document, '.access-explorer .explorer-shared-mark')) add(el, 'line', style(el).fill, style(el.previousElementSibling.previousElementSibling).fill);
  for (const el of all(document, '.access-explorer label, .access-explorer dt, .access-explorer dd, ' +
      '.access-explorer figcaption, .access-explorer__message, .occupancy-calculator p, .occupancy-calculator label, ' +
      '.occupancy-calculator th, .occupancy-calculator td, .occupancy-calculator figcaption, .occ-message, ' +
      '.quiz-feedback, .scroll-hint')) {
    if (el.textContent.trim()) add(el, 'text', style(el).color);
  }
  for (const el of all(document, '.occupancy-calculator svg text')) add(el, 'text', style(el).fill);
  for (const el of all(document, '.occupancy-calculator .occ-line, .occupancy-calculator .occ-axis')) add(el, 'line', style(el).stroke);
  for (const el of all(document, '.occupancy-calculator .occ-current')) add(el, 'line', style(el).fill);
  for (const el of all(document, '.access-explorer input, .access-explorer select, .occupancy-calculator input, ' +
      '.occupancy-calculator select, .quiz-numeric input')) {
    add(el, 'line', style(el).borderTopColor);
    add(el, 'text', style(el).color, style(el).backgroundColor);
  }
  for (const host of all(document, 'div.mermaid')) {
    const root = host.shadowRoot;
    for (const el of all(root, '.nodeLabel, .edgeLabel p, .edgeLabel span')) if (el.textContent.trim()) add(el, 'text', style(el).color);
    for (const el of all(root, '.node rect, .node polygon, .node path, .flowchart-link')) add(el, 'line', style(el).stroke);
  }
  return out;
}"""


def widget_pages():
    return [(lang, path) for lang in LANGUAGES for path in
            ("performance/", "performance/02-coalescing/", "performance/03-occupancy/", "performance/04-profiling/",
             "performance/05-checklist/")]


@pytest.mark.parametrize("lang, path", widget_pages())
def test_widgets_and_diagrams_are_readable_in_both_palettes(scheme, site_url, lang, path):
    """Also in their error states: the explorer's message, the calculator's refusal and its
    field messages, a quiz's feedback."""
    from tests.browser.test_site import OPEN_SHADOW_ROOTS

    name, page = scheme
    page.add_init_script(OPEN_SHADOW_ROOTS)
    page.goto(site_url + LANGUAGES[lang]["root"] + path, wait_until="networkidle")
    page.wait_for_function("() => [...document.querySelectorAll('div.mermaid')].every(d => d.shadowRoot)")
    background = page.evaluate(BACKGROUND_JS)
    seen = page.evaluate(WIDGET_COLOURS_JS)
    explorer, calculator = page.locator("div.access-explorer"), page.locator("div.occupancy-calculator")
    if explorer.count():
        explorer.locator("input >> nth=0").fill("2.5")
        seen += page.evaluate(WIDGET_COLOURS_JS)
        explorer.locator("input >> nth=0").fill("8")
        explorer.locator("select >> nth=1").select_option("shared")
        seen += page.evaluate(WIDGET_COLOURS_JS)
    if calculator.count():
        calculator.locator('input[name="threads_per_block"]').fill("2000")
        seen += page.evaluate(WIDGET_COLOURS_JS)
        calculator.locator('input[name="threads_per_block"]').fill("x")
        seen += page.evaluate(WIDGET_COLOURS_JS)
    quiz = page.locator(".quiz[data-quiz-kind='choice']").first
    if quiz.count():
        quiz.locator("button.quiz-option").first.click()
        seen += page.evaluate(WIDGET_COLOURS_JS)
    assert seen, "nothing to measure on the page"
    kinds = {item["kind"] for item in seen}
    assert kinds == {"text", "line"}
    faint = sorted({f"{item['what']} {item['colour']} on {item['backdrop']}: "
                    f"{contrast(item['colour'], item['backdrop']):.2f}"
                    for item in seen
                    if contrast(item["colour"], item["backdrop"]) < (4.5 if item["kind"] == "text" else 3.0)})
    assert not faint, f"{name} palette on {background}:\n" + "\n".join(faint[:12])
