"""A choice quiz's key cannot be guessed by its length (labkit.site.quiz_balance).

In each language: option lengths within MAX_LENGTH_RATIO of each other in every quiz, and the
key the longest option in at most a third of the choice quizzes. The check fails on the quizzes
as they were at commit b3a289e (issue 12: the key was the longest option in all of them).
"""

import shutil
import subprocess

import pytest

from labkit.course.quizzes import Choice
from labkit.report.labels import LANGUAGES
from labkit.site.inventory import language_pages
from labkit.site.quiz_balance import ChoiceQuiz, balance_problems, choice_quizzes, shown_length
from tests.conftest import DOCS, REPO_ROOT

#: The commit before issue 12's rewrite, and its answer key (labkit/course/quizzes.py then).
BEFORE_ISSUE_12 = "b3a289e"
KEYS_BEFORE = {"q01-gemm-tile": Choice("c"), "q01-verdict": Choice("b"), "q01-stencil-reuse": Choice("d"),
               "q04-tool-order": Choice("b"), "q04-low-low": Choice("c"), "q04-replay": Choice("a"),
               "q04-l2-mirage": Choice("d"), "q04-sectors": Choice("b")}


def language_quizzes(lang):
    return [quiz for path in language_pages(DOCS, lang).values() for quiz in choice_quizzes(path.read_text())]


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_key_is_given_away_by_its_length(lang):
    quizzes = language_quizzes(lang)
    assert len(quizzes) >= 3, f"docs/{lang}: too few choice quizzes for the check to mean anything"
    problems = balance_problems(quizzes, f"docs/{lang}")
    assert not problems, "\n".join(problems)


def test_the_check_fails_when_the_key_is_always_the_longest():
    quizzes = [ChoiceQuiz(f"q{n}", {"a": "short", "b": "a much longer, detailed and careful answer", "c": "brief"}, "b")
               for n in range(3)]
    problems = balance_problems(quizzes, "sample")
    assert any("the key is the longest option in 3 of 3" in p for p in problems)
    assert any("quiz q0: its longest option is" in p for p in problems)


def test_one_longest_key_in_three_quizzes_is_allowed():
    options = {"a": "one option", "b": "two option", "c": "the longest"}
    quizzes = [ChoiceQuiz("q0", options, "c"), ChoiceQuiz("q1", options, "a"), ChoiceQuiz("q2", options, "b")]
    assert [q.key_is_longest for q in quizzes] == [True, False, False]
    assert balance_problems(quizzes, "sample") == []
    assert balance_problems(quizzes[:2], "sample") != []   # one in two is too many


def test_lengths_are_widths_as_the_reader_sees_them():
    assert shown_length("`ncu` **vite**") == len("ncu vite")
    assert shown_length("[[h100.ridge]] FLOP") == len("0000 FLOP")
    assert shown_length("停手") == 4


def _page_at(commit, lang, page):
    result = subprocess.run(["git", "show", f"{commit}:docs/{lang}/{page}"], cwd=REPO_ROOT,
                            capture_output=True, text=True)
    return result.stdout if result.returncode == 0 else None


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_check_fails_on_the_quizzes_before_issue_12(lang):
    if shutil.which("git") is None or not (REPO_ROOT / ".git").exists():
        pytest.skip("no git history here to read the quizzes of commit b3a289e")
    pages = [_page_at(BEFORE_ISSUE_12, lang, page) for page in ("performance/01-roofline.md",
                                                                 "performance/04-profiling.md")]
    if None in pages:
        pytest.skip(f"commit {BEFORE_ISSUE_12} is not in this clone's history")
    quizzes = [quiz for text in pages for quiz in choice_quizzes(text, KEYS_BEFORE)]
    problems = balance_problems(quizzes, f"docs/{lang} at {BEFORE_ISSUE_12}")
    assert any("the key is the longest option" in p for p in problems), problems
