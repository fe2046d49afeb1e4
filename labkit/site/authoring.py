"""Authoring mistakes that Markdown would silently print as literal text, found before rendering.

- A block line ``/// ...`` must open one of BLOCKS (``/// quiz | <id>``, ``/// lab | <id>``...) or
  be a closing ``///``;
  every block is closed before the next opens and before the page ends.
- The option lines right under a block's opener (``    unit: MB``) are YAML: a value YAML cannot
  read (``unit: %``, a directive to YAML) would make the whole block print as text.
- A computed figure is written ``[[name.with.dots]]`` in lower case, and names a figure of
  labkit.figures.

Code (fenced blocks and inline code spans) is left alone: a chapter may show the syntax. What is
code, a block or prose is decided by labkit.site.syntax, the one reader of the course's Markdown.
"""

from __future__ import annotations

import re

import yaml

from labkit.figures import FIGURES
from labkit.site.syntax import BLOCK_KINDS, FIGURE, FIGURE_NAME, BlockMark, Option, Prose, placeholders, read

#: The placeholder the build replaces (labkit.site.syntax.FIGURE), under the name the plugin reads.
FIGURE_PATTERN = FIGURE
BLOCKS = BLOCK_KINDS


def authoring_problems(markdown: str, first_line: int = 1) -> list[str]:
    """Each mistake as 'line N: what is wrong and the fix' (``first_line``: the number of the
    text's first line in its file)."""
    problems = []
    open_block: BlockMark | None = None
    for element in read(markdown, first_line):
        if isinstance(element, Option):
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
    if open_block is not None:
        problems.append(f"line {open_block.line}: the {open_block.kind} block opened here is never closed: "
                        "end it with '///'")
    return problems


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
    """Each ``[[...]]`` of a prose line that is not a figure name, or names no figure of labkit.figures."""
    problems = []
    for written in placeholders(text):
        name = written[2:-2]
        if not FIGURE_NAME.fullmatch(name):
            problems.append(f"{written} is not a figure name: lower-case words joined by dots, "
                            f"e.g. [[{_suggest(name)}]]")
        elif name not in FIGURES:
            problems.append(f"unknown computed figure {written}: define it in labkit/figures.py")
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
