"""Choice quizzes whose answer is not given away by its length.

A reader who does not know the answer should gain nothing from picking the longest, most
detailed option. Two checks, on every page of each language:

- within a quiz, the longest option is at most MAX_LENGTH_RATIO times the shortest;
- across a language's choice quizzes, the key is the longest option (or tied for it) in at most
  MAX_KEY_LONGEST_SHARE of them.

Lengths are widths, counted on the option as the reader sees it: Markdown marks removed, a
``[[figure]]`` counted as FIGURE_CHARS characters (about the width of a rendered number), and a
wide (CJK) character as two, the width it takes on screen, so that a Chinese option that mixes
English terms and Chinese words is measured as it reads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labkit.course.quizzes import ANSWER_KEY, Choice
from labkit.report.columns import columns
from labkit.site import syntax

MAX_LENGTH_RATIO = 2.0
MAX_KEY_LONGEST_SHARE = 1 / 3
FIGURE_CHARS = 4

OPTION = re.compile(r"^- \(([a-z])\) (.+)$", re.MULTILINE)


@dataclass(frozen=True)
class ChoiceQuiz:
    quiz_id: str
    options: dict[str, str]      # letter -> option text, as written
    answer: str

    def length(self, letter: str) -> int:
        return shown_length(self.options[letter])

    @property
    def key_is_longest(self) -> bool:
        """The key is at least as long as every other option."""
        return all(self.length(self.answer) >= self.length(letter) for letter in self.options)

    @property
    def length_ratio(self) -> float:
        lengths = [self.length(letter) for letter in self.options]
        return max(lengths) / max(1, min(lengths))


def shown_length(option: str) -> int:
    """Width of an option as rendered: figures as FIGURE_CHARS, Markdown marks and math
    delimiters dropped, runs of spaces as one, wide characters counting two (labkit.report.columns)."""
    text = syntax.FIGURE.sub("0" * FIGURE_CHARS, option)
    text = re.sub(r"[`*_$\\]", "", text)
    text = re.sub(r"\s+", " ", text).strip()
    return columns(text)


def choice_quizzes(page_text: str, answers: dict | None = None) -> list[ChoiceQuiz]:
    """The page's choice quizzes with their options and key (labkit.course.quizzes unless ``answers``)."""
    answers = ANSWER_KEY if answers is None else answers
    quizzes = []
    for block in syntax.blocks(syntax.read_page(page_text)):
        key = answers.get(block.id)
        if block.kind != "quiz" or not isinstance(key, Choice):
            continue
        quizzes.append(ChoiceQuiz(block.id, dict(OPTION.findall(block.prose)), key.answer))
    return quizzes


def balance_problems(quizzes: list[ChoiceQuiz], where: str) -> list[str]:
    """Each quiz whose option lengths spread too far, and a key that is too often the longest."""
    problems = [
        f"{where}: quiz {quiz.quiz_id}: its longest option is {quiz.length_ratio:.1f} times its shortest "
        f"(at most {MAX_LENGTH_RATIO:g}), widths {', '.join(f'({k}) {quiz.length(k)}' for k in quiz.options)}"
        for quiz in quizzes if quiz.length_ratio > MAX_LENGTH_RATIO
    ]
    longest = [quiz.quiz_id for quiz in quizzes if quiz.key_is_longest]
    if quizzes and len(longest) > MAX_KEY_LONGEST_SHARE * len(quizzes):
        problems.append(f"{where}: the key is the longest option in {len(longest)} of {len(quizzes)} choice "
                        f"quizzes (at most a third): {', '.join(longest)}")
    return problems
