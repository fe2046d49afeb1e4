"""French and Chinese trees hold the same pages, anchors, quizzes, labs and diagrams, in order."""

from labkit.site.inventory import language_pages, page_inventory, parity_problems
from tests.conftest import DOCS


def test_languages_are_in_parity():
    problems = parity_problems(DOCS)
    assert not problems, "translation parity broken:\n" + "\n".join(problems)


def test_parity_names_a_missing_page(tmp_path):
    for lang in ("fr", "zh"):
        (tmp_path / lang / "performance").mkdir(parents=True)
        (tmp_path / lang / "index.md").write_text("# x\n")
    (tmp_path / "fr" / "performance" / "ch.md").write_text("# x\n")
    assert parity_problems(tmp_path) == ["docs/zh/performance/ch.md is missing (docs/fr/performance/ch.md exists)"]


def test_parity_names_a_quiz_out_of_order(tmp_path):
    quiz = "/// quiz | {}\nQ?\n\n- (a) x\n- (b) y\n\nWhy.\n///\n"
    for lang, order in (("fr", ["q1", "q2"]), ("zh", ["q2", "q1"])):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "index.md").write_text("".join(quiz.format(q) for q in order))
    [problem] = parity_problems(tmp_path)
    assert problem.startswith("docs/zh/index.md: quizzes differ")


def test_inventory_reads_anchors_blocks_and_diagrams():
    text = (
        "# T\n## A {#a}\n### B {#b .x}\n## No anchor\n```mermaid\nflowchart TD\n```\n"
        "/// lab | lab-04\n///\n/// quiz | q-n\n    unit: MB\n\nQ?\n\nE.\n///\n"
    )
    inv = page_inventory(text)
    assert inv.anchors == ("a", "b")
    assert inv.labs == ("lab-04",)
    assert inv.quizzes == ("q-n",)
    assert inv.mermaid_diagrams == 1


def test_every_chapter_page_exists_in_both_languages():
    assert set(language_pages(DOCS, "fr")) == set(language_pages(DOCS, "zh"))
    assert "performance/04-profiling.md" in language_pages(DOCS, "fr")


def test_parity_names_a_heading_without_anchor(tmp_path):
    for lang in ("fr", "zh"):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "index.md").write_text("# T\n## A {#a}\n```\n## not a heading\n```\n")
    (tmp_path / "zh" / "index.md").write_text("# T\n## A {#a}\n### B\n")
    assert parity_problems(tmp_path) == ["docs/zh/index.md: heading without an explicit {#anchor}: ### B"]
