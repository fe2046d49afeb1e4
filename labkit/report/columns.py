"""Text in fixed columns, as a terminal or a monospaced code box draws it: the width of a text,
and lines wrapped to a width in any of the course's languages. `labkit diagnose` (a terminal), the
exercises' report and the site's code boxes (a solution's docstring) all measure and wrap here.

Width: rich's table of cell widths (``rich.cells.cell_len``, the one rich draws the exercises'
report with): wide and full-width characters (Chinese) take two columns, combining marks none,
anything else one.

Wrapping: at spaces between Latin words; anywhere between two Chinese characters; never before
the punctuation that may not start a line (:data:`CLOSING`), never after a bracket or quotation
mark that may not end one (:data:`OPENING`).
"""

from __future__ import annotations

import re

from rich.cells import cell_len

#: What may not start a line of Chinese: pause and stop marks, closing brackets and quotation
#: marks, and the percent sign that follows its number. The line-start prohibitions of the W3C's
#: Requirements for Chinese Text Layout (clreq, 3.1.7), less the marks the course never writes.
#: The closing quotation mark ” is one: the Chinese pages and labels quote with “ ” (labkit's
#: typography check refuses straight quotes there), and a line starting with ” was a bug.
CLOSING = "，。、．；：！？）］｝〕〉》」』】”’％"
#: What may not end a line: the opening brackets and quotation marks of CLOSING.
OPENING = "（［｛〔〈《「『【“‘"

#: A word and its trailing space, or a space: :func:`_tokens` for text of one column a character.
_NARROW_TOKEN = re.compile(r"[^ ]+ ?| ")
#: No character below this takes other than one column but the controls (U+1100 is the first wide
#: one, Hangul Jamo; U+0300 the first combining mark).
_FIRST_NOT_ONE = "\u0300"


def _narrow(text: str) -> bool:
    """Every character of ``text`` printable and one column wide (checked at C speed)."""
    return not text or (min(text) >= " " and max(text) < _FIRST_NOT_ONE and "\x7f" not in text)


def columns(text: str) -> int:
    """Display width of ``text`` in columns (see the module docstring)."""
    return len(text) if _narrow(text) else cell_len(text)


def cut_to_columns(text: str, width: int) -> str:
    """The longest start of ``text`` that fits in ``width`` columns, in one pass (a kernel name of
    200 KB, cut one character at a time and measured again each time, took minutes)."""
    if _narrow(text):
        return text[:width]
    used = 0
    for index, char in enumerate(text):
        used += columns(char)
        if used > width:
            return text[:index]
    return text


def _tokens(text: str) -> list[str]:
    """Words, each with its trailing space; a wide character is a token of its own (Chinese breaks
    between characters), what may not start a line stays with what precedes it, and what may not
    end one with what follows."""
    if _narrow(text):
        return _NARROW_TOKEN.findall(text)
    tokens: list[str] = []
    for char in text:
        wide = columns(char) == 2
        if (tokens and char in CLOSING) or (tokens and tokens[-1][-1] in OPENING):
            tokens[-1] += char
        elif wide or not tokens or tokens[-1].endswith(" ") or columns(tokens[-1][-1]) == 2:
            tokens.append(char)
        else:
            tokens[-1] += char
    return tokens


def wrap(text: str, width: int, first: str = "", rest: str = "") -> list[str]:
    """Lines of at most ``width`` columns: ``first`` before the first, ``rest`` before the others.
    A word longer than the width is a line of its own, uncut."""
    lines, line, used = [], first, columns(first)   # used: the columns of ``line``
    for token in _tokens(text):
        if used + columns(token.rstrip()) > width and line.strip():
            lines.append(line.rstrip())
            line = rest + token.lstrip()
            used = columns(line)
        else:
            line += token
            used += columns(token)
    if line.strip():
        lines.append(line.rstrip())
    return lines
