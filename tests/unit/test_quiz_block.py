"""The quiz block on its own, with Python-Markdown alone: rendering and every error path."""

import re

import markdown
import pytest

from labkit.course.quizzes import ANSWER_KEY
from labkit.site.block_extension import BlockError
from labkit.site.quiz_block import QuizExtension

CHOICE = "/// quiz | q04-low-low\nQuestion ?\n\n{options}\n\nParce que.\n///\n"
OPTIONS = "- (a) un\n- (b) deux\n- (c) trois\n- (d) quatre"
KEY = ANSWER_KEY["q04-low-low"].answer
#: Two options that leave the key out.
OTHERS = [letter for letter in "abcd" if letter != KEY][:2]


def render(text, lang="fr"):
    return markdown.markdown(text, extensions=[QuizExtension(lang=lang)])


def test_choice_quiz_renders_buttons_and_hidden_key():
    html = render(CHOICE.format(options=OPTIONS))
    assert f'data-answer="{ANSWER_KEY["q04-low-low"].answer}"' in html
    assert html.count('class="quiz-option"') == 4
    assert '<details class="quiz-answer">' in html and "Parce que." in html
    assert f"Bonne réponse : ({KEY})" in html


def test_numeric_quiz_renders_field_and_expected_value():
    html = render("/// quiz | q04-moved-bytes\n    unit: MB\n\nHow many?\n\nBecause.\n///\n", "zh")
    assert 'data-quiz-kind="numeric"' in html and 'data-answer="130.5"' in html
    assert "期望值：130.5 MB" in html and "<input" in html


@pytest.mark.parametrize(
    "text, message",
    [
        (CHOICE.format(options="\n".join(f"- ({letter}) x" for letter in OTHERS)),
         re.escape(f"key's answer ({KEY}) is not among {OTHERS}")),
        (CHOICE.format(options="- (a) un\n- (a) deux\n- (c) x"), "option letters repeat"),
        (CHOICE.format(options="no list"), "needs a list"),
        ("/// quiz | q04-low-low\nQ?\n\n" + OPTIONS + "\n///\n", "write an explanation"),
        ("/// quiz | q04-moved-bytes\n\nHow many?\n\nBecause.\n///\n", "needs '    unit: ...'"),
        ("/// quiz | q04-moved-bytes\n    unit: MB\n\nQ?\n\n" + OPTIONS + "\n\nE.\n///\n", "expects a number"),
    ],
)
def test_inconsistent_quizzes_fail_with_the_reason(text, message):
    with pytest.raises(BlockError, match=message):
        render(text)


def test_unknown_quiz_names_the_key_file():
    with pytest.raises(BlockError, match="q-unknown.*labkit/course/quizzes.py"):
        render("/// quiz | q-unknown\nQ?\n\n- (a) x\n\nE.\n///\n")
