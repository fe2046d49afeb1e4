"""`labkit chapter NN` checks one chapter in both languages (labkit.site.chapter): what the suite
holds a chapter to, every problem in one run, each naming its file."""

import shutil

import pytest

from labkit import cli
from labkit.project import Project
from labkit.site.chapter import ChapterError, check_chapter, find_chapter
from tests.conftest import DOCS, REPO_ROOT

CHAPTER = "performance/04-profiling.md"


@pytest.fixture
def project(tmp_path):
    """A copy of the sources a test may break (as tests/docs/test_guards.py makes it)."""
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copytree(REPO_ROOT / "labs", tmp_path / "labs")
    shutil.copy(REPO_ROOT / "mkdocs.yml", tmp_path)
    (tmp_path / "node_modules").symlink_to(REPO_ROOT / "node_modules")
    (tmp_path / "labkit").symlink_to(REPO_ROOT / "labkit")
    return Project(tmp_path)


def replace(project: Project, lang: str, old: str, new: str) -> None:
    page = project.docs_dir / lang / CHAPTER
    text = page.read_text(encoding="utf-8")
    assert old in text, old
    page.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_a_chapter_of_the_course_passes_and_builds_its_two_pages(tmp_path):
    chapter, problems = check_chapter(Project(REPO_ROOT), "03", tmp_path)
    assert chapter.page == "performance/03-occupancy.md" and problems == []
    for root in ("", "zh/"):
        html = (tmp_path / root / "performance/03-occupancy/index.html").read_text(encoding="utf-8")
        assert 'data-quiz-id="q03-tail"' in html and "[[" not in html
    assert not (tmp_path / "performance/04-profiling").exists()   # the other pages are not built


def test_every_problem_of_the_chapter_is_named_in_one_run(project, tmp_path):
    replace(project, "fr", "[[ch04.traffic.moved_mb]]", "[[ch04.traffic.moved]]")              # authoring
    replace(project, "fr", "/// quiz | q04-low-low", "/// quiz | q04-nowhere")                  # quiz key
    replace(project, "zh", "`lts__t_sector_hit_rate.pct`", "lts__t_sector_hit_rate.pct")         # drift
    replace(project, "zh", "剖析", "剖析 \"x\"")                                                   # typography
    config = project.root / "mkdocs.yml"
    config.write_text(config.read_text().replace(f"      - {CHAPTER}\n", ""))                          # nav
    results = project.root / "labs/04-profiling/results/nvidia-h200.json"
    results.write_text(results.read_text().replace('"schema": 2', '"schema": 3', 1))            # the build
    _, problems = check_chapter(project, "4", tmp_path)
    expected = [
        (f"docs/fr/{CHAPTER}, line", "unknown computed figure [[ch04.traffic.moved]]"),
        (f"docs/fr/{CHAPTER}: quiz q04-nowhere has no answer key",),
        (f"docs/zh/{CHAPTER} § memory-workload: inline code `lts__t_sector_hit_rate.pct` is missing (in fr)",),
        (f"docs/zh/{CHAPTER}: straight double quotes",),
        (f"docs/fr/{CHAPTER}: not in the nav: of mkdocs.yml",),
        (f"docs/zh/{CHAPTER} (build, docs/mkdocs.zh.yml):", "nvidia-h200.json: field schema: Input should be 2"),
    ]
    for parts in expected:
        assert any(all(part in problem for part in parts) for problem in problems), (parts, problems)
    assert all("\n" not in problem and "Traceback" not in problem for problem in problems)


def test_a_rendered_page_is_checked_for_placeholders_and_keys():
    from labkit.site.chapter import rendered_problems

    html = '<div class="quiz" data-quiz-id="q04-low-low" data-answer="z"></div> [[ch04.traffic.moved_mb]]'
    problems = rendered_problems(html, "page")
    assert problems[0] == "page: [[ch04.traffic.moved_mb]] was not replaced"
    assert problems[1].startswith("page: quiz q04-low-low renders the answer 'z', its key is")


def test_an_unknown_chapter_names_the_chapters(project):
    with pytest.raises(ChapterError, match=r"no chapter '9' in docs/fr/: give a number \(01, 02, 03, 04, 05"):
        find_chapter(project, "9")
    assert find_chapter(project, "performance/index.md").page == "performance/index.md"


def test_a_chapter_in_one_language_only_is_named(project):
    (project.docs_dir / "zh" / CHAPTER).unlink()
    with pytest.raises(ChapterError, match=f"docs/zh/{CHAPTER} is missing"):
        find_chapter(project, "04")


def test_the_command_says_one_line_and_fails(monkeypatch, capsys, project):
    monkeypatch.chdir(project.root)
    assert cli.main(["chapter", "12"]) == cli.EXIT_ERROR
    out = capsys.readouterr().out
    assert out.startswith("labkit: no chapter '12'") and out.count("\n") == 1
