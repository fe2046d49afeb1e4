"""Light and dark: every text and line of the lab figures, lab tables, widgets (access explorer,
occupancy calculator, quizzes) and Mermaid diagrams keeps enough contrast on what it is drawn on
(WCAG 2.1: 4.5:1 for text, 3:1 for lines, marks and form-field borders, 1.4.3 and 1.4.11), and
every page loads in the dark palette too, offline and without a console error. (The light palette
is seen on a desktop, the dark one on a phone: tests/browser/tour.py.)

A chart's grid lines and the timeline's track are left out: they are decoration under the data
(WCAG 1.4.11 asks 3:1 of what is needed to read the graphic), drawn faint on purpose."""

import re

import pytest

from labkit.labs.base import labs
from labkit.project import Project
from labkit.records.files import read_results, recorded_paths
from labkit.report.labels import LANGUAGES
from tests.browser.tour import PALETTES, load_problems, site_pages
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.browser

SCHEMES = {"light": "default", "dark": "slate"}


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


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("lang, chapter, drawn", chapters())
def test_figures_and_tables_are_readable_in_both_palettes(tour, scheme, lang, chapter, drawn):
    seen = tour.page(PALETTES[scheme], LANGUAGES[lang]["root"] + chapter)
    assert "unsettled" not in seen, seen["unsettled"]
    assert seen["scheme"] == SCHEMES[scheme]
    background, texts, marks, cells = seen["background"], seen["figure_texts"], seen["figure_marks"], seen["table_cells"]
    assert cells, "the page has no lab table"
    assert (texts and marks) or not drawn, "the page has no lab figure"
    faint = [f"text {c['colour']}: {contrast(c['colour'], background):.2f}" for c in texts + cells
             if contrast(c["colour"], background) < 4.5]
    faint += [f"{c['tag']}.{c['cls']} {c['colour']}: {contrast(c['colour'], background):.2f}" for c in marks
              if contrast(c["colour"], background) < 3.0]
    assert not faint, f"{scheme} palette on {background}: " + "; ".join(sorted(set(faint))[:6])


def test_every_page_loads_in_the_dark_palette_offline(tour, built_site):
    seen = tour.pages(PALETTES["dark"], site_pages(built_site))
    problems = load_problems(seen)
    problems += [f"{rel}: shown in the {page['scheme']} palette" for rel, page in seen.items()
                 if page.get("scheme", SCHEMES["dark"]) != SCHEMES["dark"]]
    assert not problems, "\n".join(problems)


def widget_pages():
    return [(lang, path) for lang in LANGUAGES for path in
            ("performance/", "performance/02-coalescing/", "performance/03-occupancy/", "performance/04-profiling/",
             "performance/05-checklist/")]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("lang, path", widget_pages())
def test_widgets_and_diagrams_are_readable_in_both_palettes(tour, scheme, lang, path):
    """Also in their error states: the explorer's message, the calculator's refusal and its
    field messages, a quiz's feedback (tour.use_widgets)."""
    seen = tour.page(PALETTES[scheme], LANGUAGES[lang]["root"] + path)
    assert "unsettled" not in seen, seen["unsettled"]
    assert seen["errors_in_use"] == [], f"console errors while the widgets were used: {seen['errors_in_use']}"
    colours = seen["widget_colours"]
    assert colours, "nothing to measure on the page"
    kinds = {item["kind"] for item in colours}
    assert kinds == {"text", "line"}
    faint = sorted({f"{item['what']} {item['colour']} on {item['backdrop']}: "
                    f"{contrast(item['colour'], item['backdrop']):.2f}"
                    for item in colours
                    if contrast(item["colour"], item["backdrop"]) < (4.5 if item["kind"] == "text" else 3.0)})
    assert not faint, f"{scheme} palette on {seen['background']}:\n" + "\n".join(faint[:12])


@pytest.mark.parametrize("scheme", SCHEMES)
def test_code_keeps_its_contrast_in_both_palettes(tour, built_site, scheme):
    """Every coloured token of every code block, inline code and link set in code, on its code's
    background (WCAG 4.5:1): Material's slate numbers, built-ins and code links were just under."""
    seen = tour.pages(PALETTES[scheme], site_pages(built_site))
    faint = set()
    for rel, page in seen.items():
        assert "unsettled" not in page, f"{rel}: {page['unsettled']}"
        for token in page["code_colours"]:
            backdrop = token["backdrop"] if rgba(token["backdrop"])[3] > 0 else page["background"]
            if contrast(token["colour"], backdrop) < 4.5:
                faint.add(f"{token['what']!r} {token['colour']} on {backdrop}: {contrast(token['colour'], backdrop):.2f} ({rel})")
    assert not faint, f"{scheme} palette:\n" + "\n".join(sorted(faint)[:12])
