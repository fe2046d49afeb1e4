"""The suite catches what contributors break: each mistake below fails, naming the file."""

import re
import shutil

import pytest

from labkit.site.build import build_language, problems
from labkit.site.inventory import parity_problems
from labkit.quizzes import ANSWER_KEY
from tests.conftest import DOCS, REPO_ROOT

CHAPTER = "performance/04-profiling.md"


@pytest.fixture
def project(tmp_path):
    """A copy of the site's sources that a test may break (labs/ copied; node_modules and labkit/, whose
    source files chapters include as snippets, linked)."""
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copytree(REPO_ROOT / "labs", tmp_path / "labs")
    shutil.copy(REPO_ROOT / "mkdocs.yml", tmp_path)
    (tmp_path / "node_modules").symlink_to(REPO_ROOT / "node_modules")
    (tmp_path / "labkit").symlink_to(REPO_ROOT / "labkit")
    return tmp_path


def snapshot(folder) -> dict:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file() and "node_modules" not in p.parts and "site" not in p.parts}


def one_error(log: str) -> str:
    """The build's problems, which must be one line, and no traceback."""
    assert "Traceback" not in log, log
    lines = problems(log)
    assert len(lines) == 1, log
    return lines[0]


def test_a_broken_link_fails_the_build(project):
    page = project / "docs/fr" / CHAPTER
    page.write_text(page.read_text() + "\nVoir [la suite](06-nulle-part.md).\n")
    result = build_language("fr", project / "site", project)
    assert result.returncode != 0
    assert CHAPTER in result.log and "06-nulle-part.md" in result.log


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
    assert "docs/zh/performance/index.md: no 'translation_of' in its front matter" in one_error(result.log)


QUIZ = "/// quiz | q04-low-low"


def _break(project, old: str, new: str):
    page = project / "docs/fr" / CHAPTER
    text = page.read_text()
    assert old in text, old
    page.write_text(text.replace(old, new, 1))


def _corrupt_results(project):
    path = project / "labs/04-profiling/results/nvidia-h200.json"
    path.write_text(path.read_text().replace('"schema": 2', '"schema": 3', 1))


MISTAKES = {
    "quiz without an id": (lambda p: _break(p, QUIZ, "/// quiz"),
                           f"docs/fr/{CHAPTER}, line", "'/// quiz' needs an id in lower case"),
    "unknown quiz id": (lambda p: _break(p, QUIZ, "/// quiz | q04-nowhere"),
                        f"docs/fr/{CHAPTER}: quiz 'q04-nowhere' has no answer key: add it to labkit/quizzes.py"),
    "figure in capitals": (lambda p: _break(p, "[[ch04.traffic.moved_mb]]", "[[Ch04.Traffic.Moved_MB]]"),
                           f"docs/fr/{CHAPTER}, line", "[[Ch04.Traffic.Moved_MB]] is not a figure name"),
    "unknown figure": (lambda p: _break(p, "[[ch04.traffic.moved_mb]]", "[[ch04.traffic.moved]]"),
                       f"docs/fr/{CHAPTER}, line", "unknown computed figure [[ch04.traffic.moved]]"),
    "option YAML cannot read": (lambda p: _break(p, "    unit: Mo", "    unit: %"),
                                f"docs/fr/{CHAPTER}, line", "option 'unit: %' is not valid YAML: quote its value, "
                                "e.g. unit: \"%\""),
    "lab without an id": (lambda p: _break(p, "/// lab | lab-04", "/// lab"),
                          f"docs/fr/{CHAPTER}, line", "'/// lab' needs an id in lower case"),
    "corrupt results": (_corrupt_results, f"docs/fr/{CHAPTER}: lab block 'lab-04': "
                        "labs/04-profiling/results/nvidia-h200.json: field schema: Input should be 2"),
}


@pytest.mark.parametrize("mistake", MISTAKES)
def test_an_authoring_mistake_is_one_line_naming_the_page(project, mistake):
    make, *expected = MISTAKES[mistake]
    make(project)
    before = snapshot(project)
    result = build_language("fr", project / "site", project)
    assert result.returncode != 0
    line = one_error(result.log)
    assert all(part in line for part in expected), line
    assert snapshot(project) == before
