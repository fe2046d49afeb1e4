"""The lab figures as the site renders them, from the recorded results: each its own caption,
words in the page's language (no English left in a French or Chinese figure), a time axis on
the timeline, and the charts' legends above their plots."""

import xml.etree.ElementTree as etree

import pytest

from labkit.labs.base import labs
from labkit.project import Project
from labkit.records.files import read_results, recorded_paths
from labkit.report.labels import LANGUAGES, label
from tests.conftest import REPO_ROOT

#: English words a figure of the course could leave untranslated.
ENGLISH = ("analyzer", "compute", "copy", "measured", "sweep", "stride", "sectors", "time", "blocks", "roof")


def recorded_figures():
    out = []
    for the_lab in labs().values():
        paths = list(recorded_paths(the_lab.lab_dir(Project(REPO_ROOT)), str))
        if paths:
            results = read_results(paths[0], the_lab.results_type, the_lab.id).results
            out += [(the_lab.id, lang, results) for lang in LANGUAGES]
    return out


def figures_of(lab_id, lang, results):
    return [f for f in labs()[lab_id].figures(results, lang) if f.tag == "figure"]


@pytest.mark.parametrize("lab_id, lang, results", recorded_figures(), ids=lambda v: v if isinstance(v, str) else "")
def test_each_figure_has_its_own_caption_and_speaks_the_pages_language(lab_id, lang, results):
    figures = figures_of(lab_id, lang, results)
    captions = [f.find("figcaption").text for f in figures]
    assert len(set(captions)) == len(captions), f"{lab_id}: two figures share a caption: {captions}"
    for figure in figures:
        words = " ".join(t.text or "" for t in figure.iter("{http://www.w3.org/2000/svg}text")).lower()
        words += " ".join(t.text or "" for t in figure.iter("text")).lower()
        left = [w for w in ENGLISH if f" {w} " in f" {words} " or f"· {w}" in words]
        assert not left, f"{lab_id} ({lang}): English words in a figure: {left}"


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_timeline_has_a_time_axis_and_translated_streams(lang):
    found = [r for lab_id, l, r in recorded_figures() if lab_id == "lab-04" and l == lang]
    if not found:
        pytest.skip("no lab 04 record")
    figure = figures_of("lab-04", lang, found[0])[0]
    svg = figure.find("svg") if figure.find("svg") is not None else figure[0]
    texts = [t.text for t in svg.iter() if t.tag.endswith("text")]
    assert label(lang, "lab04.timeline.axis") in texts
    assert "0" in texts and len([t for t in texts if t and t.replace(",", "").replace(".", "").isdigit()]) >= 3
    assert any(label(lang, "lab04.stream.compute") in (t or "") for t in texts)
    assert etree.tostring(svg, encoding="unicode").count('class="axis"') >= 3
