"""Light and dark: the lab figures' text and marks, and the lab tables, keep enough contrast on
each palette's background (WCAG: 4.5:1 for text, 3:1 for graphical marks), and every page loads in
the dark palette too, offline and without a console error. The pages are read from one tour of the
site in each palette (the ``tour`` fixture, tests/browser/conftest.py)."""

import re

import pytest

from labkit.lab import labs
from labkit.project import Project
from labkit.report.labels import LANGUAGES
from labkit.results import read_results, recorded_paths
from tests.browser.conftest import SCHEMES
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.browser


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


@pytest.mark.xdist_group("tour")
@pytest.mark.parametrize("scheme", list(SCHEMES))
@pytest.mark.parametrize("lang, chapter, drawn", chapters())
def test_figures_and_tables_are_readable_in_both_palettes(tour, scheme, lang, chapter, drawn):
    visit = tour[scheme].visits[LANGUAGES[lang]["root"] + chapter]
    assert visit.scheme == SCHEMES[scheme]
    background = visit.background
    texts, marks, cells = visit.colours["texts"], visit.colours["marks"], visit.colours["cells"]
    assert cells, "the page has no lab table"
    assert (texts and marks) or not drawn, "the page has no lab figure"
    faint = [f"text {c['colour']}: {contrast(c['colour'], background):.2f}" for c in texts + cells
             if contrast(c["colour"], background) < 4.5]
    faint += [f"{c['tag']}.{c['cls']} {c['colour']}: {contrast(c['colour'], background):.2f}" for c in marks
              if contrast(c["colour"], background) < 3.0]
    assert not faint, f"{scheme} palette on {background}: " + "; ".join(sorted(set(faint))[:6])


@pytest.mark.xdist_group("tour")
def test_every_page_loads_in_the_dark_palette_offline(tour):
    dark = tour["dark"]
    problems = [f"{rel}: {e}" for rel, visit in dark.visits.items() for e in visit.errors]
    assert not problems, "\n".join(problems)
    assert dark.remote_requests == ()
