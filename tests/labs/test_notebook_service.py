"""Each lab in a notebook service (labkit.commands.notebooks): with the public repository configured,
an "Open in Colab" link in the chapter's lab block and on the notebook page, and a first cell that
installs the course where it is missing; without it, none of these. Nothing is fetched here."""

from __future__ import annotations

import json
import shutil
import subprocess
import types

import markdown
import pytest

from labkit.commands import notebooks as ns
from labkit.labs.base import labs
from labkit.project import Project
from labkit.site.lab_block import LabExtension
from labkit.site.plugin import colab_link_on_notebook_page, notebook_paths
from tests.conftest import REPO_ROOT

REPO = "https://github.com/example-org/gpu-course"


@pytest.fixture
def configured(monkeypatch):
    monkeypatch.setenv(ns.REPO_URL_ENV, REPO)
    return REPO


def test_the_repository_comes_from_the_environment_or_pyproject(tmp_path, monkeypatch):
    monkeypatch.delenv(ns.REPO_URL_ENV, raising=False)
    assert ns.repository_url(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n\n[project.urls]\nHomepage = "https://a.b/"\n'
                                             f'Repository = "{REPO}"\n\n[tool.x]\nRepository = "no"\n')
    assert ns.repository_url(tmp_path) == REPO
    monkeypatch.setenv(ns.REPO_URL_ENV, "https://github.com/other/course.git")
    assert ns.repository_url(tmp_path) == "https://github.com/other/course.git"


def test_colab_opens_the_notebook_from_github_and_only_from_github():
    assert ns.colab_url(REPO, "labs/01-roofline/lab01.py") == (
        "https://colab.research.google.com/github/example-org/gpu-course/blob/main/labs/01-roofline/lab01.ipynb")
    assert ns.colab_url("https://github.com/example-org/gpu-course.git/", "labs/x/lab01.py").endswith(
        "/example-org/gpu-course/blob/main/labs/x/lab01.ipynb")
    assert ns.colab_url("https://gitlab.com/example-org/gpu-course", "labs/x/lab01.py") is None
    assert ns.colab_url(None, "labs/x/lab01.py") is None


def lab_block_html(lang: str = "fr") -> str:
    return markdown.markdown("/// lab | lab-01\n///\n", extensions=[LabExtension(lang=lang, project=str(REPO_ROOT))])


def test_the_lab_block_links_to_colab_when_configured(configured):
    html = lab_block_html("fr")
    expected = ns.colab_url(REPO, labs()["lab-01"].notebook)
    assert f'<a href="{expected}" rel="noopener">Ouvrir dans Colab</a>' in html
    assert "sans GPU attaché, les noyaux tournent dans le simulateur" in html
    assert "在 Colab 中打开" in lab_block_html("zh")


def test_no_link_without_a_configured_repository(monkeypatch):
    monkeypatch.delenv(ns.REPO_URL_ENV, raising=False)
    assert ns.repository_url(REPO_ROOT) is None, "pyproject.toml names a repository: drop this test's premise"
    assert "colab" not in lab_block_html().lower()
    page = types.SimpleNamespace(file=types.SimpleNamespace(src_uri=notebook_paths()[0]))
    html = '<article class="md-content__inner md-typeset"><h1>x</h1>'
    assert colab_link_on_notebook_page(html, page, Project(REPO_ROOT), "fr") == html


def test_the_notebook_page_opens_with_the_link(configured):
    page = types.SimpleNamespace(file=types.SimpleNamespace(src_uri=notebook_paths()[1]))
    html = '<body><article class="md-content__inner md-typeset"><h1>Lab 02</h1></article></body>'
    shown = colab_link_on_notebook_page(html, page, Project(REPO_ROOT), "zh")
    assert shown.startswith('<body><article class="md-content__inner md-typeset"><p class="lab-colab"><a href="'
                            + ns.colab_url(REPO, notebook_paths()[1]))
    other = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="performance/01-roofline.md"))
    assert colab_link_on_notebook_page(html, other, Project(REPO_ROOT), "zh") == html


def test_the_service_notebook_installs_the_course_first_and_nothing_where_it_is_installed(configured, monkeypatch):
    notebook = labs()["lab-03"].notebook
    cells = json.loads(ns.service_notebook(REPO_ROOT, notebook, REPO))["cells"]
    source = "".join(cells[0]["source"])
    assert cells[0]["cell_type"] == "code" and "outputs" in cells[0] and not cells[0]["outputs"]
    assert f"'git', 'clone', '--quiet', '--depth', '1', '{REPO}'" in source.replace('"', "'")
    assert "labkit.gpu.setup" in source and "'labs/03-occupancy'" in source.replace('"', "'")
    # the rest is the lab's notebook as it is
    plain = json.loads(ns.service_notebook(REPO_ROOT, notebook, None))["cells"]
    assert [c["source"] for c in cells[1:]] == [c["source"] for c in plain]

    def refuse(*args, **kwargs):
        raise AssertionError(f"the install cell ran {args} where labkit is installed")

    monkeypatch.setattr(subprocess, "run", refuse)
    exec(compile(source, "install-cell", "exec"), {})   # labkit is importable here: nothing happens


def test_labkit_notebooks_writes_what_the_tests_then_hold_equal(tmp_path, monkeypatch, capsys, configured):
    from labkit.cli import main

    shutil.copy(REPO_ROOT / "mkdocs.yml", tmp_path)
    shutil.copytree(REPO_ROOT / "labs", tmp_path / "labs", ignore=shutil.ignore_patterns("results", "calibration"))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("LABKIT_PROJECT", raising=False)
    assert ns.stale_notebooks(tmp_path, notebook_paths()) == [ns.ipynb_path(n) for n in notebook_paths()]
    assert main(["notebooks"]) == 0
    assert "wrote labs/01-roofline/lab01.ipynb" in capsys.readouterr().out
    assert ns.stale_notebooks(tmp_path, notebook_paths()) == []
    (tmp_path / "labs/01-roofline/lab01.py").write_text((REPO_ROOT / "labs/01-roofline/lab01.py").read_text() + "\n# %%\n1\n")
    assert ns.stale_notebooks(tmp_path, notebook_paths()) == ["labs/01-roofline/lab01.ipynb"]


def test_the_course_notebooks_are_up_to_date():
    stale = ns.stale_notebooks(REPO_ROOT, notebook_paths())
    assert not stale, f"{', '.join(stale)}: run `make notebooks` (the percent scripts changed)"
