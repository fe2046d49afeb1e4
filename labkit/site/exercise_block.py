"""The ``/// exercise | NN-name`` block: an exercise in its chapter.

The Markdown inside the block states the task; below it, from the exercise's definition
(labkit.exercises, so the page, the checker and the tests cannot disagree): the learner's file and
the command that checks it, the criteria with their targets and where each is measured, one folded
hint per criterion, and our solution, folded, highlighted from its source file.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
import xml.etree.ElementTree as etree
from pathlib import Path

from markdown.util import AtomicString
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import PythonLexer

import labkit.exercises
from labkit.errors import LabkitError
from labkit.exercises import exercise
from labkit.exercises.metrics import metric
from labkit.exercises.spec import CORRECT, Exercise
from labkit.report.columns import wrap
from labkit.report.labels import MissingLabelError, label
from labkit.report.numbers import format_number
from labkit.site.block_extension import LanguageBlockExtension, PageBlock
from labkit.site.typography import CJK_SPACE

SOLUTIONS = Path(labkit.exercises.__file__).parent / "solutions"


#: Where each language's part of a solution's docstring begins (its first line is "French title ·
#: Chinese title").
DOCSTRING_PARTS = {"fr": "FR.", "zh": "中文。"}
#: Lines of the docstring shown on the page: about as wide as the code box shows without scrolling.
SHOWN_COLUMNS = 80


def solution_source(item: Exercise) -> str:
    return (SOLUTIONS / f"{item.solution}.py").read_text(encoding="utf-8")


def solution_for_page(source: str, lang: str) -> str:
    """The solution as its page shows it: its docstring in the page's language only (the file holds
    both: a title "French · Chinese", then a paragraph per language, "FR." and "中文。"), wrapped to
    the code box; the code as it is."""
    module = ast.parse(source)
    first = module.body[0] if module.body else None
    if not (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str)):
        return source
    doc = first.value.value
    titles = doc.split("\n", 1)[0].split(" · ")
    parts = {}
    for name, marker in DOCSTRING_PARTS.items():
        start = doc.find("\n" + marker)
        if start < 0:
            return source
        parts[name] = start + 1 + len(marker)
    order = sorted(parts, key=parts.get)
    following = {name: (parts[order[i + 1]] - len(DOCSTRING_PARTS[order[i + 1]]) - 1 if i + 1 < len(order) else len(doc))
                 for i, name in enumerate(order)}
    text = " ".join(doc[parts[lang]:following[lang]].split())
    if lang == "zh":   # a line break between two Chinese characters is no space
        text = CJK_SPACE.sub("", text)
    title = titles[0 if lang == "fr" else -1].strip()
    lines = source.split("\n")
    shown = ['"""' + title, "", *wrap(text, SHOWN_COLUMNS), '"""']
    return "\n".join(lines[:first.lineno - 1] + shown + lines[first.end_lineno:])


def comments_for_page(source: str, lang: str, name: str) -> str:
    """The solution with each comment in the page's language: the file's comments are English, and
    comment N (in the file's order) of ``solutions/<name>.py`` is the label
    ``exercise.comment.<name>.N``, whose English must be the comment as the file writes it (a
    comment edited or added without its label is refused, naming both)."""
    lines = source.split("\n")
    comments = [token for token in tokenize.generate_tokens(io.StringIO(source).readline)
                if token.type == tokenize.COMMENT]
    for number, token in reversed(list(enumerate(comments, start=1))):
        marker = re.match(r"#:?\s*", token.string).group(0)
        english = token.string[len(marker):]
        key = f"exercise.comment.{name}.{number}"
        try:
            known = label("en", key)
        except MissingLabelError as exc:
            raise LabkitError(f"solutions/{name}.py, comment {number} ({english!r}) has no translation: {exc}") from None
        if known != english:
            raise LabkitError(f"solutions/{name}.py, comment {number} reads {english!r} but its label {key} "
                              f"translates {known!r}: update the label (labkit/report/labels/exercises.py)")
        row, column = token.start
        line = lines[row - 1]
        lines[row - 1] = line[:column] + marker + label(lang, key) + line[token.end[1]:]
    return "\n".join(lines)


def solution_html(item: Exercise, lang: str) -> etree.Element:
    """The solution as a code block like every other on the site (Material's scroll box,
    background and copy button hang on ``pre > code``), its text kept as the file writes it:
    atomic, so that no Markdown inline pattern (a docstring's backticks) is applied to it."""
    shown = comments_for_page(solution_for_page(solution_source(item), lang), lang, item.solution)
    code = etree.fromstring(highlight(shown, PythonLexer(), HtmlFormatter(cssclass="highlight", wrapcode=True)))
    for element in code.iter():
        if element.text:
            element.text = AtomicString(element.text)
        if element.tail:
            element.tail = AtomicString(element.tail)
    return code


def render_exercise(block: etree.Element, item: Exercise, lang: str) -> None:
    words = lambda key: label(lang, key)  # noqa: E731
    title = etree.Element("p", {"class": "exercise-title"})
    etree.SubElement(title, "strong").text = f"{words('exercise.block.title')} {item.id} · " \
                                             f"{words(f'exercise.{item.id}.title')}"
    block.insert(0, title)
    facts = etree.SubElement(block, "p", {"class": "exercise-command"})
    facts.text = words("exercise.block.file")
    etree.SubElement(facts, "code").text = item.learner_file
    etree.SubElement(facts, "br").tail = words("exercise.block.check")
    etree.SubElement(facts, "code").text = item.command

    wrapper = etree.SubElement(etree.SubElement(block, "div", {"class": "md-typeset__scrollwrap"}),
                               "div", {"class": "md-typeset__table"})
    table = etree.SubElement(wrapper, "table", {"data-exercise-criteria": item.id})
    head = etree.SubElement(etree.SubElement(table, "thead"), "tr")
    for key in ("criterion", "target", "where"):
        etree.SubElement(head, "th").text = words(f"exercise.block.{key}")
    body = etree.SubElement(table, "tbody")
    for criterion in item.criteria:
        row = etree.SubElement(body, "tr", {"data-metric": criterion.metric})
        etree.SubElement(row, "td").text = words(f"exercise.metric.{criterion.metric}")
        if criterion.metric == CORRECT:
            target = words("exercise.block.must_pass")
        else:
            sign = "≤" if criterion.at_most is not None else "≥"
            target = f"{sign} {format_number(criterion.target, metric(item, criterion.metric).decimals, lang)}"
        etree.SubElement(row, "td").text = target
        etree.SubElement(row, "td").text = words(f"exercise.where.{criterion.where}")

    for criterion in item.criteria:
        hint = etree.SubElement(block, "details", {"class": "tip", "data-hint": criterion.metric})
        etree.SubElement(hint, "summary").text = words("exercise.block.hint").format(
            criterion=words(f"exercise.metric.{criterion.metric}"))
        text = etree.SubElement(hint, "p")
        text.text = words(criterion.hint) + " "
        etree.SubElement(text, "a", {"href": f"#{criterion.section}"}).text = "§"

    solution = etree.SubElement(block, "details", {"class": "success", "data-solution": item.id})
    etree.SubElement(solution, "summary").text = words("exercise.block.solution")
    solution.append(solution_html(item, lang))


class ExerciseBlock(PageBlock):
    NAME = "exercise"
    ARGUMENT = True

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": "exercise"})

    def on_end(self, block: etree.Element) -> None:
        exercise_id = self.argument.strip()
        try:
            item = exercise(exercise_id)
            block.set("id", f"exercise-{item.id}")
            block.set("data-exercise", item.id)
            render_exercise(block, item, self.config["lang"])
        except LabkitError as exc:
            raise self.fail(f"exercise block '{exercise_id}': {exc}") from None


class ExerciseExtension(LanguageBlockExtension):
    """Registers the exercise block."""

    BLOCK = ExerciseBlock


def makeExtension(*args, **kwargs):
    return ExerciseExtension(*args, **kwargs)
