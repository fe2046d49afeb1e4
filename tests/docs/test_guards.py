"""The suite catches what contributors break: each mistake below fails, naming the file."""

import re
import shutil

import pytest

from labkit.site.build import build_language
from labkit.site.inventory import parity_problems
from labkit.quizzes import ANSWER_KEY
from tests.conftest import DOCS, REPO_ROOT

CHAPTER = "performance/04-profiling.md"


@pytest.fixture
def project(tmp_path):
    """A copy of the site's sources that a test may break."""
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copy(REPO_ROOT / "mkdocs.yml", tmp_path)
    return tmp_path


def test_a_broken_link_fails_the_build(project):
    page = project / "docs/fr" / CHAPTER
    page.write_text(page.read_text() + "\nVoir [la suite](05-checklist.md).\n")
    result = build_language("fr", project / "site", project)
    assert result.returncode != 0
    assert CHAPTER in result.log and "05-checklist.md" in result.log


def test_a_broken_anchor_fails_the_build(project):
    page = project / "docs/zh" / CHAPTER
    page.write_text(page.read_text() + "\n见 [不存在的小节](#no-such-section)。\n")
    result = build_language("zh", project / "site", project)
    assert result.returncode != 0
    assert CHAPTER in result.log and "no-such-section" in result.log


def test_a_removed_chinese_page_is_named(project):
    (project / "docs/zh" / CHAPTER).unlink()
    assert f"docs/zh/{CHAPTER} is missing (docs/fr/{CHAPTER} exists)" in parity_problems(project / "docs")


def test_a_page_that_drops_the_right_answer_fails_the_build(project):
    right = ANSWER_KEY["q04-low-low"].answer
    page = project / "docs/zh" / CHAPTER
    text = page.read_text()
    quiz = re.search(r"/// quiz \| q04-low-low\n.*?\n///\n", text, re.DOTALL).group(0)
    page.write_text(text.replace(quiz, re.sub(rf"^- \({right}\) .*\n", "", quiz, flags=re.MULTILINE)))
    result = build_language("zh", project / "site", project)
    assert result.returncode != 0
    assert CHAPTER in result.log and f"key's answer ({right}) is not among" in result.log


def test_a_changed_french_page_puts_a_banner_on_its_translation(project):
    page = project / "docs/fr/index.md"
    page.write_text(page.read_text() + "\nUne phrase ajoutée en français.\n")
    result = build_language("zh", project / "site", project)
    assert result.returncode == 0, result.log
    assert "译文落后于原文" in (project / "site/zh/index.html").read_text()
    assert "译文落后于原文" not in (project / "site/zh/performance/index.html").read_text()


def test_an_unmarked_translation_fails_the_build(project):
    page = project / "docs/zh/performance/index.md"
    page.write_text(re.sub(r'\A---\ntranslation_of: "[0-9a-f]+"\n---\n', "", page.read_text()))
    result = build_language("zh", project / "site", project)
    assert result.returncode != 0
    assert "docs/zh/performance/index.md: no 'translation_of'" in result.log
