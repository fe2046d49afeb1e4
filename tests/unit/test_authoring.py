"""Authoring mistakes that Markdown would print as literal text are found, with their line."""

import pytest

from labkit.site.authoring import authoring_problems

GOOD = """# Title

Quoted figure: [[ch04.traffic.moved_mb]].

/// quiz | q04-low-low
Question?
///

```markdown
/// quiz
[[Not.A_Figure]] in code is left alone, as is `[[inline code]]`, and NumPy's `a[[0, 1]]`.
```

A figure in code is replaced too: `registers=[[lab05.max_registers]]`.

$$
x = 1
$$

Inline display math $$y$$ closes on its line.
"""


def test_a_correct_page_has_no_problem():
    assert authoring_problems(GOOD) == []


@pytest.mark.parametrize("text, problem", [
    ("/// quiz\nQ?\n///\n", "line 1: '/// quiz' needs an id in lower case: write '/// quiz | <id>'"),
    ("/// lab |\n///\n", "line 1: '/// lab |' needs an id in lower case"),
    ("/// quiz | Q04-Low\n///\n", "line 1: '/// quiz | Q04-Low' needs an id in lower case"),
    ("/// quizz | q04-low-low\n///\n", "line 1: unknown block '/// quizz': the blocks are '/// quiz | <id>', '/// lab | <id>',"),
    ("text\n/// quiz | q04-low-low\nQ?\n", "line 2: the quiz block opened here is never closed: end it with '///'"),
    ("/// quiz | a\n/// lab | lab-01\n///\n", "line 2: '/// lab' opens inside the quiz block of line 1"),
    ("///\n", "line 1: '///' closes no block"),
    ("See [[Ch04.Traffic.Moved_MB]].\n", "line 1: [[Ch04.Traffic.Moved_MB]] is not a figure name: lower-case words "
                                         "joined by dots, e.g. [[ch04.traffic.moved_mb]]"),
    ("See [[ ch04.traffic.moved_mb ]].\n", "line 1: [[ ch04.traffic.moved_mb ]] is not a figure name"),
    ("See [[ch04.traffic.moved]].\n", "line 1: unknown computed figure [[ch04.traffic.moved]]: define it in "
                                      "labkit/course/figures.py"),
    ("/// quiz | q03-tail\n    unit: %\n\nQ?\n///\n", "line 2: option 'unit: %' is not valid YAML: quote its value, "
                                                    'e.g. unit: "%"'),
    # issue 31: what the build let through
    ("Text.\n\n```text\nridge = [[no.such.figure]]\n```\n", "line 4: unknown computed figure [[no.such.figure]] "
                                                            "(in code, where the build replaces figures too)"),
    ("The syntax `[[no.such.figure]]`.\n", "line 1: unknown computed figure [[no.such.figure]] (in code"),
    ("## A {#same}\n\ntext\n\n## B {#same}\n", "line 5: heading id {#same} is already the id of the heading of "
                                               "line 1: give each heading its own id"),
    ("Text.\n\n$$\nx = 1\n\nMore text, then $$ y $$.\n", "line 3: the display math opened here with '$$' is never "
                                                        "closed: end the formula with '$$' (before any blank line)"),
    ("Text.\n\n$$\nx = 1\n", "line 3: the display math opened here with '$$' is never closed"),
])

def test_each_mistake_is_named_with_its_line(text, problem):
    problems = authoring_problems(text)
    assert problems and problems[0].startswith(problem), problems


def test_quoted_and_plain_options_are_fine():
    assert authoring_problems('/// quiz | q\n    unit: "%"\n\nQ?\n///\n') == []
    assert authoring_problems("/// quiz | q\n    unit: FLOP/octet\n\nQ?\n///\n") == []


def test_line_numbers_count_the_front_matter():
    assert authoring_problems("[[X]]\n", first_line=4)[0].startswith("line 4:")


def test_a_figure_whose_computation_raises_is_one_line_naming_it(monkeypatch):
    """It was a traceback in the build and "internal error, ZeroDivisionError" in labkit chapter."""
    from labkit.course import figures
    from labkit.errors import LabkitError

    monkeypatch.setitem(figures.FIGURES, "ch02.banks", figures.Figure(lambda: 1 / 0))
    for compute in (lambda: figures.figure_value("ch02.banks"), lambda: figures.render_figure("ch02.banks", "fr")):
        with pytest.raises(LabkitError, match=r"^computing \[\[ch02\.banks\]\] failed \(ZeroDivisionError: division by "
                                              r"zero\): fix its definition in labkit/course/figures\.py$"):
            compute()


TWIN_QUIZ = """/// quiz | q01-fp64-roof
Question?

- (a) one
- (b) two
- (c) three

Because.
///

/// profile | lab-05-a
    metrics: raw
///

/// quiz | q01-axpby-intensity
    unit: FLOP/octet

Question?
///
"""


@pytest.mark.parametrize("change, problem", [
    (("- (c) three\n", ""), "line 1: quiz q01-fp64-roof: options (a, b, c) here, (a, b) in its twin docs/zh/x.md, "
                             "line 1: the site builds both from one definition: give them the same"),
    (("    metrics: raw", "    metrics: details"), "line 11: profile lab-05-a: 'metrics: raw' here, 'metrics: details' "
                                                   "in its twin docs/zh/x.md, line 11"),
    (("    unit: FLOP/octet\n", ""), "line 15: quiz q01-axpby-intensity: option lines (unit) here, (none) in its twin"),
])
def test_a_block_that_disagrees_with_its_twin_in_the_other_language(tmp_path, change, problem):
    """Both languages' quizzes share one answer key, and a block's options select what it shows: the
    build refuses twins that differ (only labkit chapter did)."""
    from labkit.site.twins import twin_problems

    twin = tmp_path / "x.md"
    twin.write_text(TWIN_QUIZ.replace(*change))
    found = twin_problems(TWIN_QUIZ, 1, "docs/fr/x.md", {"docs/zh/x.md": twin})
    assert len(found) == 1 and found[0].startswith(f"docs/fr/x.md, {problem}"), found
    twin.write_text(TWIN_QUIZ.replace("FLOP/octet", "FLOP/字节"))   # a unit is written in its page's language
    assert twin_problems(TWIN_QUIZ, 1, "docs/fr/x.md", {"docs/zh/x.md": twin}) == []


def test_a_block_the_page_lacks_is_named_from_its_twin(tmp_path):
    from labkit.site.twins import twin_problems

    twin = tmp_path / "x.md"
    twin.write_text(TWIN_QUIZ + "\n/// lab | lab-01\n///\n")
    assert twin_problems(TWIN_QUIZ, 1, "docs/fr/x.md", {"docs/zh/x.md": twin}) == [
        "docs/fr/x.md: its blocks and those of its twin docs/zh/x.md differ: only there lab lab-01 (line 21): every "
        "block is in both languages: give both pages the same blocks"]


def test_a_block_renamed_in_one_language_is_one_line_naming_both_sides(tmp_path):
    from labkit.site.twins import twin_problems

    twin = tmp_path / "x.md"
    twin.write_text(TWIN_QUIZ)
    renamed = TWIN_QUIZ.replace("/// profile | lab-05-a", "/// profile | lab-05-b")
    assert renamed != TWIN_QUIZ
    assert twin_problems(renamed, 1, "docs/fr/x.md", {"docs/zh/x.md": twin}) == [
        "docs/fr/x.md: its blocks and those of its twin docs/zh/x.md differ: only here profile lab-05-b (line 11); "
        "only there profile lab-05-a (line 11): every block is in both languages: give both pages the same blocks"]
