"""Authoring mistakes that Markdown would silently print as literal text, found before rendering.

- A block line ``/// ...`` must open one of BLOCKS (``/// quiz | <id>``, ``/// lab | <id>``...) or
  be a closing ``///``;
  every block is closed before the next opens and before the page ends.
- The option lines right under a block's opener (``    unit: MB``) are YAML: a value YAML cannot
  read (``unit: %``, a directive to YAML) would make the whole block print as text.
- A computed figure is written ``[[name.with.dots]]`` in lower case, and names a figure of
  labkit.course.figures. The build replaces figures in code too (a Mermaid label, an inline
  ``max_registers=[[lab05.max_registers]]``), so a well-formed name in code must name a figure as
  well; other ``[[...]]`` in code are code (``a[[0, 1]]`` in NumPy) and are left alone.
- A heading's ``{#anchor}`` is used once in its page: two elements of one id break the links to it.
- Display math: every ``$$`` that opens has one that closes (an unclosed one swallows the page's
  text up to the next ``$$`` into one formula, and KaTeX prints it as an error).

What is code, a block or prose is decided by labkit.site.syntax, the one reader of the course's
Markdown.
"""

from __future__ import annotations

import re

import yaml

from labkit.course.figures import FIGURES
from labkit.site.syntax import (BLOCK_KINDS, FIGURE, FIGURE_NAME, BlockMark, Fence, Option, Prose, code_spans, headings,
                                placeholders, read, without_code_spans)

#: A display-math delimiter (arithmatex's ``$$``), not escaped.
DISPLAY_MATH = re.compile(r"(?<!\\)\$\$")

#: The placeholder the build replaces (labkit.site.syntax.FIGURE), under the name the plugin reads.
FIGURE_PATTERN = FIGURE
BLOCKS = BLOCK_KINDS


def authoring_problems(markdown: str, first_line: int = 1) -> list[str]:
    """Each mistake as 'line N: what is wrong and the fix' (``first_line``: the number of the
    text's first line in its file)."""
    problems = []
    open_block: BlockMark | None = None
    elements = read(markdown, first_line)
    for element in elements:
        if isinstance(element, Fence):
            problems += [f"line {element.line + 1 + index}: {problem}" for index, text in enumerate(element.body)
                         for problem in _code_figure_problems(text)]
        elif isinstance(element, Option):
            problem = _option_problem(element.text)
            if problem:
                problems.append(f"line {element.line}: {problem}")
        elif isinstance(element, BlockMark):
            problem = _block_problem(element, open_block)
            if problem:
                problems.append(f"line {element.line}: {problem}")
            if element.closes:
                open_block = None
            elif element.kind in BLOCKS:
                open_block = element
        elif isinstance(element, Prose):
            problems += [f"line {element.line}: {problem}" for problem in _figure_problems(element.text)]
            problems += [f"line {element.line}: {problem}" for _, _, code in code_spans(element.text)
                         for problem in _code_figure_problems(code)]
    if open_block is not None:
        problems.append(f"line {open_block.line}: the {open_block.kind} block opened here is never closed: "
                        "end it with '///'")
    return problems + _anchor_problems(elements) + _display_math_problems(elements)


def _code_figure_problems(code: str) -> list[str]:
    """Each well-formed ``[[name]]`` of a line of code that names no figure (the build would leave it)."""
    return [f"unknown computed figure [[{name}]] (in code, where the build replaces figures too): define it in "
            "labkit/course/figures.py" for name in FIGURE.findall(code) if name not in FIGURES]


def _anchor_problems(elements: list) -> list[str]:
    """A heading anchor given to a second heading of the page."""
    first: dict[str, int] = {}
    problems = []
    for heading in headings(elements):
        if heading.anchor is None:
            continue
        if heading.anchor in first:
            problems.append(f"line {heading.line}: heading id {{#{heading.anchor}}} is already the id of the heading "
                            f"of line {first[heading.anchor]}: give each heading its own id (links find it by its id)")
        else:
            first[heading.anchor] = heading.line
    return problems


def _display_math_problems(elements: list) -> list[str]:
    """A ``$$`` of the prose (inline code aside) that opens display math nothing closes before the
    paragraph ends (a blank line, a fence, a block line or the page's end: a formula is one paragraph)."""
    problems = []
    opened: int | None = None
    for element in elements:
        text = without_code_spans(element.text) if isinstance(element, Prose) else None
        if opened is not None and (text is None or not text.strip()):
            problems.append(opened)
            opened = None
        for _ in DISPLAY_MATH.finditer(text or ""):
            opened = element.line if opened is None else None
    problems += [] if opened is None else [opened]
    return [f"line {line}: the display math opened here with '$$' is never closed: end the formula with '$$' "
            "(before any blank line)" for line in problems]


def _block_problem(mark: BlockMark, open_block: BlockMark | None) -> str | None:
    """What is wrong with a ``///`` line, given the block open before it (None: nothing)."""
    if mark.closes:
        return "'///' closes no block" if open_block is None else None
    if mark.kind not in BLOCKS:
        known = [f"'/// {b} | <id>'" for b in BLOCKS]
        return f"unknown block '/// {mark.kind}': the blocks are " + ", ".join(known[:-1]) + " and " + known[-1]
    if not mark.well_formed:
        return f"'/// {mark.header}' needs an id in lower case: write '/// {mark.kind} | <id>'"
    if open_block is not None:
        return (f"'/// {mark.kind}' opens inside the {open_block.kind} block of line {open_block.line}: "
                "close that one first with '///'")
    return None


def _figure_problems(text: str) -> list[str]:
    """Each ``[[...]]`` of a prose line that is not a figure name, or names no figure of labkit.course.figures."""
    problems = []
    for written in placeholders(text):
        name = written[2:-2]
        if not FIGURE_NAME.fullmatch(name):
            problems.append(f"{written} is not a figure name: lower-case words joined by dots, "
                            f"e.g. [[{_suggest(name)}]]")
        elif name not in FIGURES:
            problems.append(f"unknown computed figure {written}: define it in labkit/course/figures.py")
    return problems


def _option_problem(option: str) -> str | None:
    """Why a block option line is not a one-key YAML mapping, or None."""
    key = option.split(":", 1)[0]
    try:
        parsed = yaml.safe_load(option)
    except yaml.YAMLError:
        parsed = None
    if isinstance(parsed, dict) and len(parsed) == 1:
        return None
    value = option.split(":", 1)[1].strip()
    return f"option '{option}' is not valid YAML: quote its value, e.g. {key}: \"{value}\""


def _suggest(written: str) -> str:
    return re.sub(r"[^a-z0-9_.]+", "_", written.strip().lower()).strip("_") or "chapter.figure_name"
