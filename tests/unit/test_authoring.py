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
[[Not.A_Figure]] in code is left alone, as is `[[inline code]]`.
```
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
                                      "labkit/figures.py"),
    ("/// quiz | q03-tail\n    unit: %\n\nQ?\n///\n", "line 2: option 'unit: %' is not valid YAML: quote its value, "
                                                    'e.g. unit: "%"'),
])

def test_each_mistake_is_named_with_its_line(text, problem):
    problems = authoring_problems(text)
    assert problems and problems[0].startswith(problem), problems


def test_quoted_and_plain_options_are_fine():
    assert authoring_problems('/// quiz | q\n    unit: "%"\n\nQ?\n///\n') == []
    assert authoring_problems("/// quiz | q\n    unit: FLOP/octet\n\nQ?\n///\n") == []


def test_line_numbers_count_the_front_matter():
    assert authoring_problems("[[X]]\n", first_line=4)[0].startswith("line 4:")
