"""The suite catches what contributors break: each mistake below fails, naming the file."""

import re
import shutil

import pytest

from labkit.course.quizzes import ANSWER_KEY
from labkit.site.build import build_language, build_site, problems
from labkit.site.inventory import parity_problems
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


def test_a_removed_chinese_page_is_named(project):
    (project / "docs/zh" / CHAPTER).unlink()
    assert f"docs/zh/{CHAPTER} is missing (docs/fr/{CHAPTER} exists)" in parity_problems(project / "docs")


# Built as `make build` builds (its configuration's strictness included), but without running the
# lab notebooks into pages (notebooks=False): this is not about a notebook.
def test_a_changed_french_page_puts_a_banner_on_its_translation(project):
    page = project / "docs/fr/index.md"
    page.write_text(page.read_text() + "\nUne phrase ajoutée en français.\n")
    result = build_language("zh", project / "site", project, notebooks=False)
    assert result.returncode == 0, result.log
    assert "译文落后于原文" in (project / "site/zh/index.html").read_text()
    assert "译文落后于原文" not in (project / "site/zh/performance/index.html").read_text()


def _break(project, lang: str, page: str, old: str, new: str):
    path = project / "docs" / lang / page
    text = path.read_text()
    assert old in text, old
    path.write_text(text.replace(old, new, 1))


def _append(project, lang: str, page: str, text: str):
    path = project / "docs" / lang / page
    path.write_text(path.read_text() + text)


def _corrupt_results(project):
    path = project / "labs/04-profiling/results/nvidia-h200.json"
    path.write_text(path.read_text().replace('"schema": 2', '"schema": 3', 1))


def _drop_the_right_answer(project):
    right = ANSWER_KEY["q04-low-low"].answer
    page = project / "docs/zh" / CHAPTER
    text = page.read_text()
    quiz = re.search(r"/// quiz \| q04-low-low\n.*?\n///\n", text, re.DOTALL).group(0)
    page.write_text(text.replace(quiz, re.sub(rf"^- \({right}\) .*\n", "", quiz, flags=re.MULTILINE)))


def _drop_a_wrong_option(project, lang: str, page: str, quiz_id: str) -> str:
    """A choice quiz loses one of its wrong options in one language only; the letter dropped."""
    path = project / "docs" / lang / page
    text = path.read_text()
    quiz = re.search(rf"/// quiz \| {quiz_id}\n.*?\n///\n", text, re.DOTALL).group(0)
    letter = next(x for x in re.findall(r"^- \(([a-z])\) ", quiz, re.MULTILINE) if x != ANSWER_KEY[quiz_id].answer)
    path.write_text(text.replace(quiz, re.sub(rf"^- \({letter}\) .*\n", "", quiz, flags=re.MULTILINE)))
    return letter


FR, ZH = f"docs/fr/{CHAPTER}", f"docs/zh/{CHAPTER}"
FR3, ZH3 = "docs/fr/performance/03-occupancy.md", "docs/zh/performance/03-occupancy.md"
#: Mistakes made together, each in its own place: five in one French page, others in the Chinese
#: pages and in a record. Each: (make it, the parts of the one line that must name it).
#: One line per mistake, but for the record that several of chapter 5's blocks read: one per block;
#: the record is also named by lab 04's notebook page in each language.
ONE_PER_BLOCK = {"corrupt results, in French chapter 5", "corrupt results, in Chinese chapter 5"}
MISTAKES = {
    "quiz without an id": (lambda p: _break(p, "fr", CHAPTER, "/// quiz | q04-tool-order", "/// quiz"),
                           (f"{FR}, line", "'/// quiz' needs an id in lower case")),
    "unknown quiz id": (lambda p: _break(p, "fr", CHAPTER, "/// quiz | q04-low-low", "/// quiz | q04-nowhere"),
                        (f"{FR}: quiz 'q04-nowhere' has no answer key: add it to labkit/course/quizzes.py",)),
    "figure in capitals": (lambda p: _break(p, "fr", CHAPTER, "[[ch04.traffic.moved_mb]]", "[[Ch04.Traffic.Moved_MB]]"),
                           (f"{FR}, line", "[[Ch04.Traffic.Moved_MB]] is not a figure name")),
    "unknown figure": (lambda p: _break(p, "fr", CHAPTER, "[[ch04.diagnosis.high_pct]]", "[[ch04.diagnosis.nothing]]"),
                       (f"{FR}, line", "unknown computed figure [[ch04.diagnosis.nothing]]")),
    "option YAML cannot read": (lambda p: _break(p, "fr", CHAPTER, "    unit: Mo", "    unit: %"),
                                (f"{FR}, line", "option 'unit: %' is not valid YAML: quote its value, "
                                 "e.g. unit: \"%\"")),
    "corrupt results": (_corrupt_results, (f"{FR}: lab block 'lab-04': labs/04-profiling/results/nvidia-h200.json: "
                                           "field schema: Input should be 2",)),
    # the same record, read by chapter 5's checklist, profile and diagnosis blocks in each language
    "corrupt results, in French chapter 5": (lambda p: None, ("docs/fr/performance/05-checklist.md: ",
                                                              "labs/04-profiling/results/nvidia-h200.json: field "
                                                              "schema: Input should be 2")),
    "corrupt results, in Chinese chapter 5": (lambda p: None, ("docs/zh/performance/05-checklist.md: ",
                                                               "labs/04-profiling/results/nvidia-h200.json: field "
                                                               "schema: Input should be 2")),
    # and by lab 04's notebook, whose page each language's site runs (labkit.site.notebook_page)
    "corrupt results, in lab 04's French notebook page": (lambda p: None, (
        "labs/04-profiling/lab04.py (fr page): code cell ", "failed while the site ran it",
        "labs/04-profiling/results/nvidia-h200.json: field schema: Input should be 2")),
    "corrupt results, in lab 04's Chinese notebook page": (lambda p: None, (
        "labs/04-profiling/lab04.py (zh page): code cell ", "failed while the site ran it",
        "labs/04-profiling/results/nvidia-h200.json: field schema: Input should be 2")),
    "lab without an id": (lambda p: _break(p, "zh", CHAPTER, "/// lab | lab-04", "/// lab"),
                          (f"{ZH}, line", "'/// lab' needs an id in lower case")),
    "Chinese front matter not YAML": (lambda p: _break(p, "zh", CHAPTER, 'translation_of: "', 'translation_of: "x: "'),
                                      (f"{ZH}, line 2: its front matter (between the '---' lines) is not valid YAML",)),
    "quiz without its right answer": (_drop_the_right_answer, (
        f"{ZH}: quiz 'q04-low-low': the key's answer ({ANSWER_KEY['q04-low-low'].answer}) is not among",)),
    "quiz id used twice": (lambda p: _break(p, "zh", CHAPTER, "/// quiz | q04-l2-mirage", "/// quiz | q04-replay"),
                           (f"{ZH}, line", ": quiz id q04-replay is already used at ", f"{ZH}, line ")),
    "unmarked translation": (lambda p: _break(p, "zh", "performance/index.md", "translation_of:", "translated:"),
                             ("docs/zh/performance/index.md: no 'translation_of' in its front matter",)),
    # issue 31: what the build let through, and only `labkit chapter` (or nothing) caught
    "heading id used twice": (lambda p: _append(p, "fr", CHAPTER, "\n## Encore {#tool-order}\n\nTexte.\n"),
                              (f"{FR}, line", "heading id {#tool-order} is already the id of the heading of line 21")),
    "display math never closed": (lambda p: _append(p, "zh", "performance/03-occupancy.md", "\n$$\nx = 1\n\n文字。\n"),
                                  (f"{ZH3}, line", "the display math opened here with '$$' is never closed")),
    "unknown figure in code": (lambda p: _append(p, "fr", "performance/02-coalescing.md",
                                                 "\n```text\nsecteurs = [[ch02.nothing]]\n```\n"),
                               ("docs/fr/performance/02-coalescing.md, line", "unknown computed figure [[ch02.nothing]] "
                                "(in code, where the build replaces figures too)")),
    "quiz options differ between languages": (lambda p: _drop_a_wrong_option(p, "fr", "performance/03-occupancy.md",
                                                                              "q03-granularity"),
                                              (f"{FR3}, line", "quiz q03-granularity: options (", f"in its twin {ZH3}")),
    "quiz options differ between languages, from the Chinese page": (lambda p: None, (
        f"{ZH3}, line", "quiz q03-granularity: options (a, b, c, d) here", f"in its twin {FR3}")),
    # the four mistakes above that rename or drop a block's id in one language (quiz without an id,
    # unknown quiz id, lab without an id, quiz id used twice) leave the two pages with different
    # blocks: one line per page for all of them, naming what each side alone has
    "blocks in one language only, seen from the French page": (lambda p: None, (
        f"{FR}: its blocks and those of its twin {ZH} differ: only here lab lab-04 (line", "quiz q04-l2-mirage",
        "quiz q04-nowhere", "only there quiz q04-low-low", "quiz q04-tool-order")),
    "blocks in one language only, seen from the Chinese page": (lambda p: None, (
        f"{ZH}: its blocks and those of its twin {FR} differ: only here quiz q04-low-low (line", "quiz q04-tool-order",
        "only there lab lab-04", "quiz q04-l2-mirage", "quiz q04-nowhere")),
    # MkDocs' own link checks, strict as `make build` is: a warning fails the build
    "broken link": (lambda p: _append(p, "fr", "performance/02-coalescing.md", "\nVoir [la suite](06-nulle-part.md).\n"),
                    ("WARNING", "performance/02-coalescing.md", "06-nulle-part.md")),
    "broken anchor": (lambda p: _append(p, "zh", "performance/03-occupancy.md", "\n见 [不存在的小节](#no-such-section)。\n"),
                      ("WARNING", "performance/03-occupancy.md", "no-such-section")),
}


def test_every_authoring_mistake_of_every_page_is_named_in_one_build(project):
    """An author with mistakes in several places, in both languages, learns them all from one
    build, one line each (page, line or block, and the fix), nothing else, no traceback; the build
    fails and leaves the sources as they were."""
    for make, _ in MISTAKES.values():
        make(project)
    before = snapshot(project)
    results = build_site(project / "site", project)
    assert [r.returncode != 0 for r in results] == [True, True]
    log = "\n".join(r.log for r in results)
    assert "Traceback" not in log, log
    lines = [line for r in results for line in problems(r.log)]
    for mistake, (_, parts) in MISTAKES.items():
        named = [line for line in lines if all(part in line for part in parts)]
        assert (len(named) >= 1) if mistake in ONE_PER_BLOCK else (len(named) == 1), (mistake, lines)
    unexplained = [line for line in lines if not any(all(part in line for part in parts)
                                                     for _, parts in MISTAKES.values())]
    assert not unexplained, "\n".join(unexplained)
    assert snapshot(project) == before


def test_a_label_missing_from_its_module_is_one_line_naming_the_module(monkeypatch):
    """A table's label removed from labkit/report/labels/lab02.py: the lab block says which label,
    in which language, and the module it belongs in (a traceback of 40 lines before)."""
    import markdown

    from labkit.report import labels
    from labkit.site.block_extension import BlockError
    from labkit.site.lab_block import LabExtension

    monkeypatch.setitem(labels.LABELS, "fr", {k: v for k, v in labels.LABELS["fr"].items() if k != "table.lab02.sweep"})
    with pytest.raises(BlockError) as raised:
        markdown.markdown("/// lab | lab-02\n///\n", extensions=[LabExtension(lang="fr", project=str(REPO_ROOT))])
    assert str(raised.value) == ("lab block 'lab-02': no 'table.lab02.sweep' label for language 'fr': add it to "
                                 "labkit/report/labels/lab02.py (beside the other 'table.lab02.' labels)")


def test_front_matter_that_is_not_yaml_is_named_as_such():
    from labkit.site.plugin import front_matter_problem

    assert front_matter_problem('---\ntranslation_of: "abc"\n---\n# Titre\n') is None
    assert front_matter_problem("# Titre\n---\n") is None
    assert front_matter_problem('---\ntitle: a\ntranslation_of: "x: "abc"\n---\n# T\n').startswith(
        "line 3: its front matter (between the '---' lines) is not valid YAML (expected <block end>")
    assert front_matter_problem("---\n- a\n- b\n---\n# T\n").startswith("line 2: its front matter (between the '---' "
                                                                       "lines) is not 'key: value' lines")


def test_a_byte_that_is_not_utf8_names_the_page_and_the_line(project, monkeypatch, capsys):
    """It was a traceback from MkDocs' reader in the build, "internal error, UnicodeDecodeError" from
    `labkit chapter`; the Chinese build, which reads the French page to see whether its translation
    is stale, raised it too (the audit's case 292, re-run)."""
    from labkit.cli import main

    page = project / "docs/fr" / CHAPTER
    lines = page.read_bytes().split(b"\n")
    lines[9] = lines[9] + b" caf\xe9"
    page.write_bytes(b"\n".join(lines))
    expected = f"docs/fr/{CHAPTER}, line 10: byte 0xe9 is not UTF-8: save the page as UTF-8"
    result = build_language("fr", project / "site", project, notebooks=False)
    assert result.returncode != 0 and "Traceback" not in result.log, result.log
    assert [line for line in problems(result.log) if expected in line], result.log
    result = build_language("zh", project / "site", project, notebooks=False)
    assert result.returncode != 0 and "Traceback" not in result.log, result.log
    assert [line for line in problems(result.log) if f"{expected} (the page docs/zh/{CHAPTER} translates)" in line], \
        result.log
    monkeypatch.chdir(project)
    monkeypatch.delenv("LABKIT_PROJECT", raising=False)
    assert main(["chapter", "01"]) == 1
    assert capsys.readouterr().out.strip() == f"labkit: {expected}"


def test_an_empty_page_is_named_as_such(project):
    """An empty chapter failed only through warnings about other pages' links into it."""
    (project / "docs/fr" / CHAPTER).write_text("")
    result = build_language("fr", project / "site", project, notebooks=False)
    assert result.returncode != 0
    assert (f"docs/fr/{CHAPTER}: the page is empty: write it, or take it out of the nav: of both "
            "languages' configurations (and the links to it)") in result.log
    assert "Traceback" not in result.log
