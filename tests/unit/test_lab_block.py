"""The lab block on its own: rendering recorded results, telling how to make them, naming mistakes."""

import markdown
import pytest

from labkit.site.block_extension import BlockError
from labkit.site.lab_block import LabExtension
from tests.conftest import REPO_ROOT


def render(text, lang="fr", project=REPO_ROOT):
    return markdown.markdown(text, extensions=[LabExtension(lang=lang, project=str(project))])


def test_no_results_tells_how_to_make_them(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("site_name: x\n")
    (tmp_path / "labs").mkdir()
    html = render("/// lab | lab-04\nIntro.\n///\n", project=tmp_path)
    assert "make lab-04" in html and "Intro." in html


def test_unknown_lab_is_named():
    with pytest.raises(BlockError, match="lab block 'lab-77': unknown lab 'lab-77': choose one of lab-01"):
        render("/// lab | lab-77\n///\n")


@pytest.mark.parametrize("lang, word", [("fr", "Mesuré sur"), ("zh", "测量于")])
def test_recorded_results_render_in_each_language(lang, word):
    html = render("/// lab | lab-04\n///\n", lang)
    assert word in html and "<svg" in html and 'data-table="lab04.ablation"' in html
