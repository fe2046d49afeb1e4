"""The ``/// quiz | id`` block: a self-check question, interactive with JavaScript, readable without.

Markdown inside the block, in the page's language::

    /// quiz | q04-low-low
    The question, in Markdown.

    - (a) first option
    - (b) second option

    The explanation, shown once answered (and always readable in a <details>).
    ///

A numeric quiz has no option list and names its unit: ``    unit: MB`` under the header.
Which option is right, or which number is expected, comes from labkit.course.quizzes.ANSWER_KEY; a quiz on
a profiled kernel (labkit.course.quizzes.CASE_QUIZZES) is refused when that key is not the verdict
`labkit diagnose` gives on the kernel's recorded profile.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from pymdownx.blocks.block import type_string

from labkit.course.figures import FIGURES
from labkit.course.quizzes import CASE_QUIZZES, Choice, Numeric, answer_for, case_answer
from labkit.errors import LabkitError
from labkit.report.labels import label
from labkit.report.numbers import format_number
from labkit.site.block_extension import BlockError, LanguageBlockExtension, PageBlock
from labkit.site.typography import typeset_text

OPTION_PREFIX = re.compile(r"^\s*\(([a-z])\)\s+")


def _option_label(item: etree.Element) -> str | None:
    """The letter of a list item written '(a) text', or None."""
    holder = item[0] if len(item) and item[0].tag == "p" and not (item.text or "").strip() else item
    match = OPTION_PREFIX.match(holder.text or "")
    return match.group(1) if match else None


def _strip_option_label(item: etree.Element) -> None:
    holder = item[0] if len(item) and item[0].tag == "p" and not (item.text or "").strip() else item
    holder.text = OPTION_PREFIX.sub("", holder.text or "", count=1)


def _find_options(block: etree.Element) -> etree.Element | None:
    for child in block:
        if child.tag == "ul" and len(child) and all(_option_label(li) for li in child):
            return child
    return None


class QuizBlock(PageBlock):
    NAME = "quiz"
    ARGUMENT = True
    OPTIONS = {"unit": ["", type_string]}

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": "quiz"})

    def on_end(self, block: etree.Element) -> None:
        try:
            self._render(block)
        except BlockError:
            raise
        except LabkitError as exc:
            raise self.fail(str(exc)) from None

    def _render(self, block: etree.Element) -> None:
        lang = self.config["lang"]
        quiz_id = self.argument.strip()
        key = answer_for(quiz_id)
        block.set("id", f"quiz-{quiz_id}")
        block.set("data-quiz-id", quiz_id)
        # shown by quiz.js, after the build's typography: set here
        block.set("data-label-right", typeset_text(label(lang, "right"), lang))
        block.set("data-label-wrong", typeset_text(label(lang, "wrong"), lang))
        if quiz_id in CASE_QUIZZES:
            computed = case_answer(quiz_id, self.project())
            if computed is not None and computed != key.answer:
                raise self.fail(f"quiz '{quiz_id}': its key is ({key.answer}), but labkit diagnose gives "
                                f"({computed}) on the recorded profile: fix labkit/course/quizzes.py or the options")
        if isinstance(key, Choice):
            last_of_question = self._render_choice(block, quiz_id, key)
            key_text = f"({key.answer})"
            key_label = label(lang, "right_option")
        else:
            last_of_question = self._render_numeric(block, quiz_id, key, lang)
            key_text = f"{format_number(key.expected, FIGURES[key.figure].decimals, lang)} {self.options['unit']}"
            key_label = label(lang, "expected")

        explanation = list(block)[list(block).index(last_of_question) + 1 :]
        if not explanation:
            raise self.fail(f"quiz '{quiz_id}': write an explanation after the question")
        for child in explanation:
            block.remove(child)
        etree.SubElement(block, "div", {"class": "quiz-feedback", "aria-live": "polite"})
        details = etree.SubElement(block, "details", {"class": "quiz-answer"})
        etree.SubElement(details, "summary").text = label(lang, "answer")
        separator = " : " if lang == "fr" else "："
        etree.SubElement(details, "p", {"class": "quiz-key"}).text = f"{key_label}{separator}{key_text}"
        details.extend(explanation)

    def _render_choice(self, block: etree.Element, quiz_id: str, key: Choice) -> etree.Element:
        """Turn the '(a) ...' list into answer buttons; return the list element."""
        options = _find_options(block)
        if options is None:
            raise self.fail(f"quiz '{quiz_id}': a choice quiz needs a list of '(a) ...' options")
        letters = [_option_label(li) for li in options]
        if len(set(letters)) != len(letters):
            raise self.fail(f"quiz '{quiz_id}': option letters repeat: {letters}")
        if key.answer not in letters:
            raise self.fail(f"quiz '{quiz_id}': the key's answer ({key.answer}) is not among {letters}")
        block.set("data-quiz-kind", "choice")
        block.set("data-answer", key.answer)
        options.set("class", "quiz-options")
        for li, letter in zip(options, letters):
            _strip_option_label(li)
            li.set("data-option", letter)
            button = etree.Element("button", {"type": "button", "class": "quiz-option", "value": letter})
            button.text = f"({letter})"
            button.tail, li.text = " " + (li.text or ""), None
            li.insert(0, button)
        return options

    def _render_numeric(self, block: etree.Element, quiz_id: str, key: Numeric, lang: str) -> etree.Element:
        """Put an answer field after the question (the first paragraph); return the field's form."""
        if _find_options(block) is not None:
            raise self.fail(f"quiz '{quiz_id}': the key expects a number, but the page lists options")
        unit = self.options["unit"]
        if not unit:
            raise self.fail(f"quiz '{quiz_id}': a numeric quiz needs '    unit: ...' under its header")
        block.set("data-quiz-kind", "numeric")
        block.set("data-answer", repr(key.expected))
        block.set("data-tolerance", repr(key.rel_tolerance))
        block.set("data-unit", unit)
        block.set("data-lang", lang)
        block.set("data-label-number", typeset_text(label(lang, "quiz.type_a_number"), lang))
        block.set("data-label-ambiguous", typeset_text(label(lang, "quiz.ambiguous"), lang))
        form = etree.Element("form", {"class": "quiz-numeric"})
        field = etree.SubElement(form, "input", {
            "type": "text", "inputmode": "decimal", "name": quiz_id, "aria-label": unit, "autocomplete": "off",
        })
        field.tail = f" {unit} "
        etree.SubElement(form, "button", {"type": "submit"}).text = label(lang, "check")
        block.insert(1, form)
        return form


class QuizExtension(LanguageBlockExtension):
    """Registers the quiz block."""

    BLOCK = QuizBlock


def makeExtension(*args, **kwargs):
    return QuizExtension(*args, **kwargs)
