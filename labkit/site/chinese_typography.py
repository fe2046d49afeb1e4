"""Chinese pages follow Chinese typography in their prose: no space before a percent sign, and
Chinese quotation marks (“ ”) rather than straight double quotes.

Prose is what labkit.site.syntax reads as prose (code fences, block markers and options, the front
matter are not), less inline code, math (``$...$``, ``$$...$$``), HTML tags and the lines of
Markdown syntax that hold titles or options (tabs ``===``, admonitions ``!!!``/``???``, an indented
``key: value``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from labkit.site import syntax

SYNTAX_LINE = re.compile(r"^\s*(?:===|!!!|\?\?\?)|^\s+[a-z_]+: ")
HTML_TAG = re.compile(r"<[^>]+>")
MATH = re.compile(r"\$\$.*?\$\$|\$[^$]*\$", re.DOTALL)


def prose_lines(text: str) -> Iterator[str]:
    """The page's prose, line by line (see the module docstring)."""
    prose = "\n".join(syntax.without_code_spans(element.text) for element in syntax.read_page(text)
                      if isinstance(element, syntax.Prose))
    for line in HTML_TAG.sub("", MATH.sub("", prose)).splitlines():
        if not SYNTAX_LINE.match(line):
            yield line


def typography_problems(text: str, where: str) -> list[str]:
    """Each prose line with a space before % or a straight double quote, named by ``where``."""
    problems = []
    for line in prose_lines(text):
        if re.search(r"[ \u00a0\u202f][%％]", line):
            problems.append(f"{where}: a space before %: {line.strip()[:80]!r}")
        if '"' in line:
            problems.append(f"{where}: straight double quotes, write “ ”: {line.strip()[:80]!r}")
    return problems
