"""Authoring mistakes that Markdown would silently print as literal text, found before rendering.

- A block line ``/// ...`` must open one of BLOCKS (``/// quiz | <id>``, ``/// lab | <id>``...) or
  be a closing ``///``;
  every block is closed before the next opens and before the page ends.
- The option lines right under a block's opener (``    unit: MB``) are YAML: a value YAML cannot
  read (``unit: %``, a directive to YAML) would make the whole block print as text.
- A computed figure is written ``[[name.with.dots]]`` in lower case, and names a figure of
  labkit.figures.

Code (fenced blocks and inline code spans) is left alone: a chapter may show the syntax.
"""

from __future__ import annotations

import re

import yaml

from labkit.figures import FIGURES

FIGURE_PATTERN = re.compile(r"\[\[([a-z0-9_]+(?:\.[a-z0-9_]+)+)\]\]")
BLOCKS = ("quiz", "lab", "checklist", "profile", "diagnosis", "exercise")
BLOCK_LINE = re.compile(r"^\s*///(.*)$")
BLOCK_OPENER = re.compile(r"^\s*(\w+)\s*\|\s*([a-z0-9]+(?:-[a-z0-9]+)*)\s*$")
FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
INLINE_CODE = re.compile(r"(`+).+?\1")
OPTION_LINE = re.compile(r"^ {4}\w+:")
PLACEHOLDER = re.compile(r"\[\[(.*?)\]\]")


def authoring_problems(markdown: str, first_line: int = 1) -> list[str]:
    """Each mistake as 'line N: what is wrong and the fix' (``first_line``: the number of the
    text's first line in its file)."""
    problems = []
    fence: str | None = None
    open_block: tuple[str, int] | None = None
    in_options = False
    number = first_line - 1
    for number, line in enumerate(markdown.splitlines(), start=first_line):
        if in_options and OPTION_LINE.match(line):
            problem = _option_problem(line.strip())
            if problem:
                problems.append(f"line {number}: {problem}")
            continue
        in_options = False
        marker = FENCE.match(line)
        if marker:
            if fence is None:
                fence = marker.group(1)[0] * 3
            elif marker.group(1).startswith(fence):
                fence = None
            continue
        if fence is not None:
            continue
        block = BLOCK_LINE.match(line)
        if block:
            header = block.group(1).strip()
            if not header:
                if open_block is None:
                    problems.append(f"line {number}: '///' closes no block")
                open_block = None
                continue
            opener = BLOCK_OPENER.match(header)
            name = header.split("|")[0].strip()
            if name not in BLOCKS:
                known = [f"'/// {b} | <id>'" for b in BLOCKS]
                problems.append(f"line {number}: unknown block '/// {name}': the blocks are "
                                + ", ".join(known[:-1]) + " and " + known[-1])
            elif opener is None:
                problems.append(f"line {number}: '/// {header}' needs an id in lower case: write '/// {name} | <id>'")
            elif open_block is not None:
                problems.append(f"line {number}: '/// {name}' opens inside the {open_block[0]} block of line "
                                f"{open_block[1]}: close that one first with '///'")
            open_block = (name, number) if name in BLOCKS else open_block
            in_options = opener is not None and name in BLOCKS
            continue
        for placeholder in PLACEHOLDER.finditer(INLINE_CODE.sub("", line)):
            written = placeholder.group(0)
            if not FIGURE_PATTERN.fullmatch(written):
                problems.append(f"line {number}: {written} is not a figure name: lower-case words joined by dots, "
                                f"e.g. [[{_suggest(placeholder.group(1))}]]")
            elif placeholder.group(1) not in FIGURES:
                problems.append(f"line {number}: unknown computed figure {written}: define it in labkit/figures.py")
    if open_block is not None:
        problems.append(f"line {open_block[1]}: the {open_block[0]} block opened here is never closed: end it with '///'")
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
