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


@pytest.mark.parametrize("lang, word", [("fr", "Mesuré sur un NVIDIA H200 le "), ("zh", "在 NVIDIA H200 上测得")])
def test_recorded_results_render_in_each_language(lang, word):
    html = render("/// lab | lab-04\n///\n", lang)
    assert word in html and "<svg" in html and 'data-table="lab04.ablation"' in html


def test_a_solution_shows_its_docstring_in_the_pages_language_only():
    """Each solution's docstring holds both languages; its page shows one, wrapped to the code box."""
    import ast
    import re

    from labkit.report.columns import CLOSING, OPENING, columns
    from labkit.site.exercise_block import SHOWN_COLUMNS, SOLUTIONS, solution_for_page

    cjk = re.compile("[\u4e00-\u9fff]")
    for path in sorted(SOLUTIONS.glob("[!_]*.py")):
        for lang in ("fr", "zh"):
            shown = solution_for_page(path.read_text(encoding="utf-8"), lang)
            doc = ast.get_docstring(ast.parse(shown))
            assert doc and "FR." not in doc and "中文。" not in doc, path.name
            assert bool(cjk.search(doc)) == (lang == "zh"), f"{path.name} ({lang}): {doc[:80]}"
            lines = [line for line in doc.splitlines() if line]
            assert all(columns(line) <= SHOWN_COLUMNS for line in lines), path.name
            # no line starts with what may not start one (a closing mark), or ends with an opening one
            assert not [line for line in lines if line[0] in CLOSING or line[-1] in OPENING], path.name
            assert shown.split('"""', 2)[2] == path.read_text(encoding="utf-8").split('"""', 2)[2], "code changed"
