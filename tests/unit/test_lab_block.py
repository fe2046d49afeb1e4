"""The lab block on its own: rendering recorded results, and refusing a corrupt file by name."""

import markdown
import pytest

from labkit.labs import load_lab
from labkit.results import ResultsError
from labkit.site.lab_block import LabExtension


def render(text, lang="fr"):
    return markdown.markdown(text, extensions=[LabExtension(lang=lang)])


def test_no_results_tells_how_to_make_them(tmp_path, monkeypatch):
    monkeypatch.setattr(load_lab("lab-04"), "LAB_DIR", tmp_path)
    html = render("/// lab | lab-04\nIntro.\n///\n")
    assert "make lab-04" in html and "Intro." in html


def test_a_corrupt_results_file_names_file_and_field(tmp_path, monkeypatch):
    monkeypatch.setattr(load_lab("lab-04"), "LAB_DIR", tmp_path)
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "nvidia-h200.json").write_text('{"schema": 1, "lab": "lab-04"}')
    with pytest.raises(ResultsError, match=r"nvidia-h200.json: field \(top level\): 'provenance' is a required"):
        render("/// lab | lab-04\n///\n")


def test_unknown_lab_is_named():
    with pytest.raises(ValueError, match="unknown lab 'lab-77'"):
        render("/// lab | lab-77\n///\n")


@pytest.mark.parametrize("lang, word", [("fr", "Mesuré sur"), ("zh", "测量于")])
def test_recorded_results_render_in_each_language(lang, word):
    html = render("/// lab | lab-04\n///\n", lang)
    assert word in html and "<svg" in html and 'data-table="lab04.ablation"' in html
