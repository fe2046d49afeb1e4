"""The course's Markdown syntax, read in one place: what is code, what is a block, what is prose.

Every job that reads a chapter's source (the authoring checks, the parity inventory, the drift
check between languages, the quiz balance) reads it through
:func:`read`, so that they agree on what a page holds. The rules:

- **Fenced code** (CommonMark): a line of three or more backticks, or three or more tildes,
  opens a fence, at any indentation (fences live inside admonitions and lists). A backtick
  fence's info string holds no backtick (otherwise the line is inline code, not a fence). The
  fence closes on a line of the *same* character, *at least as long* as the opener, with
  nothing else on it: a four-backtick fence that quotes a three-backtick line stays open. An
  unclosed fence runs to the end of the page. Nothing inside a fence is syntax.
- **Blocks** (pymdownx.blocks): a line ``/// kind | id`` opens a block of one of BLOCK_KINDS,
  a line ``///`` closes it; the lines right under a well-formed opener that are indented by four
  spaces and start with ``key:`` are the block's YAML options.
- **Headings**: ``#`` to ``######`` at the start of a line, then a space; an attribute list
  ``{#anchor .class}`` at its end names its anchor.
- **Inline code** (CommonMark code spans, within one line): a run of N backticks up to the next
  run of exactly N backticks; a run with no such partner is literal text.
- **Computed figures**: ``[[name.with.dots]]``; see FIGURE_NAME. The build replaces them
  everywhere, code included (a Mermaid label, ``max_registers=[[lab05.max_registers]]``); the
  checks hold every ``[[...]]`` of the prose to the syntax, and every well-formed one of code to
  a figure that exists (``a[[0, 1]]`` in code is code).
- **HTML comments** ``<!-- ... -->`` in prose, on one line or several, are not content.

:func:`read` turns a text into :class:`Prose`, :class:`Fence`, :class:`BlockMark` and
:class:`Option` elements, in order, each with its line number in the file; :func:`blocks`,
:func:`headings`, :func:`code_spans` and :func:`placeholders` answer the usual questions on them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Every block the course defines (labkit.site's block extensions), as ``/// <kind> | <id>``.
BLOCK_KINDS = ("quiz", "lab", "checklist", "profile", "diagnosis", "exercise")
#: A block id: lower-case words of letters and digits joined by hyphens, or by underscores inside a
#: key (a lab's case: ``lab-06-tma_bf16``, its step's key).
BLOCK_ID = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")
#: A computed figure's name as written between ``[[`` and ``]]``: lower-case words joined by dots.
FIGURE_NAME = re.compile(r"[a-z0-9_]+(?:\.[a-z0-9_]+)+")
#: A well-formed figure placeholder, as the build replaces it.
FIGURE = re.compile(r"\[\[(" + FIGURE_NAME.pattern + r")\]\]")
#: Anything written between ``[[`` and ``]]``: a figure, or an attempt at one.
PLACEHOLDER = re.compile(r"\[\[(.*?)\]\]")

_FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(.*)$")
_BLOCK_LINE = re.compile(r"^\s*///(.*)$")
_OPTION_LINE = re.compile(r"^ {4}\w+:")
_HEADING = re.compile(r"^(#{1,6}) (.*)$")
_ATTRIBUTES = re.compile(r"\{([^}]*)\}\s*$")
_ANCHOR = re.compile(r"(?:^|\s)#([\w-]+)")
_FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
_BACKTICKS = re.compile(r"`+")


@dataclass(frozen=True)
class Prose:
    """A line outside code and block markers (HTML comments removed from its text)."""

    line: int
    text: str


@dataclass(frozen=True)
class Fence:
    """A fenced code block: its opening line, marker (e.g. ```` ```` ```` or ``~~~``), info string
    and the lines between the fences, as written."""

    line: int
    marker: str
    info: str
    body: tuple[str, ...]
    closed: bool

    @property
    def language(self) -> str:
        """The info string's first word (``python`` of ``python title="x.py"``), or ''."""
        return self.info.split()[0] if self.info.split() else ""


@dataclass(frozen=True)
class BlockMark:
    """A ``///`` line outside code: an opener (``/// quiz | q01``) or, with nothing after, a closer."""

    line: int
    header: str

    @property
    def closes(self) -> bool:
        return not self.header

    @property
    def kind(self) -> str:
        """The word before ``|`` (the whole header when there is no ``|``)."""
        return self.header.split("|")[0].strip()

    @property
    def id(self) -> str | None:
        """What follows ``|``, stripped; None without a ``|``."""
        return self.header.split("|", 1)[1].strip() if "|" in self.header else None

    @property
    def well_formed(self) -> bool:
        """One of BLOCK_KINDS, then ``|`` and an id in lower case."""
        return self.kind in BLOCK_KINDS and self.id is not None and BLOCK_ID.fullmatch(self.id) is not None


@dataclass(frozen=True)
class Option:
    """One option line under a well-formed block opener (``    unit: MB``), stripped."""

    line: int
    text: str


Element = Prose | Fence | BlockMark | Option


@dataclass(frozen=True)
class Block:
    """A well-formed block and what lies between its opener and the next ``///`` that closes."""

    kind: str
    id: str
    line: int
    options: tuple[Option, ...]
    content: tuple[Element, ...]
    closed: bool

    @property
    def prose(self) -> str:
        """The block's prose lines, one per line (code and nested markers left out)."""
        return "".join(element.text + "\n" for element in self.content if isinstance(element, Prose))


@dataclass(frozen=True)
class Heading:
    line: int
    level: int
    text: str              # the whole line, as written
    anchor: str | None     # the ``#anchor`` of its attribute list, if any


def front_matter_lines(text: str) -> int:
    """How many lines the page's YAML front matter (``---`` ... ``---``) takes; 0 without one."""
    match = _FRONT_MATTER.match(text)
    return match.group(0).count("\n") if match else 0


def read_page(text: str) -> list[Element]:
    """A whole page file, its front matter skipped, line numbers counted from the file's first line."""
    skipped = front_matter_lines(text)
    body = text.split("\n", skipped)[-1] if skipped else text
    return read(body, first_line=skipped + 1)


def read(markdown: str, first_line: int = 1) -> list[Element]:
    """The elements of a Markdown text, in order (``first_line``: the number of its first line in
    its file, for messages)."""
    elements: list[Element] = []
    lines = _lines(markdown)
    index = 0
    in_comment = False
    options_open = False
    while index < len(lines):
        number, line = first_line + index, lines[index]
        if options_open and _OPTION_LINE.match(line):
            elements.append(Option(number, line.strip()))
            index += 1
            continue
        options_open = False
        fence = None if in_comment else _fence_opener(line)
        if fence is not None:
            marker, info = fence
            end = next((j for j in range(index + 1, len(lines)) if _closes(lines[j], marker)), None)
            body = lines[index + 1:end if end is not None else len(lines)]
            elements.append(Fence(number, marker, info, tuple(body), closed=end is not None))
            index = (end if end is not None else len(lines)) + 1
            continue
        text, in_comment = _without_comments(line, in_comment)
        mark = _BLOCK_LINE.match(text)
        if mark and not in_comment:
            block = BlockMark(number, mark.group(1).strip())
            elements.append(block)
            options_open = block.well_formed
        else:
            elements.append(Prose(number, text))
        index += 1
    return elements


def _lines(markdown: str) -> list[str]:
    """The text's lines, split at newlines only (what a line number counts), without their ``\r``."""
    lines = [line.removesuffix("\r") for line in markdown.split("\n")]
    return lines[:-1] if lines and not lines[-1] else lines


def _fence_opener(line: str) -> tuple[str, str] | None:
    """(marker, info string) when the line opens a fence, else None."""
    match = _FENCE.match(line)
    if match is None:
        return None
    marker, info = match.group(2), match.group(3)
    if marker[0] == "`" and "`" in info:
        return None
    return marker, info.strip()


def _closes(line: str, marker: str) -> bool:
    """CommonMark: the same character, at least as many, and nothing else but blanks."""
    stripped = line.strip()
    return len(stripped) >= len(marker) and stripped == marker[0] * len(stripped)


def _without_comments(line: str, in_comment: bool) -> tuple[str, bool]:
    """The line with its HTML comments removed, and whether a comment is still open at its end."""
    out = []
    position = 0
    while position <= len(line):
        if in_comment:
            end = line.find("-->", position)
            if end < 0:
                return "".join(out), True
            position, in_comment = end + 3, False
        else:
            start = line.find("<!--", position)
            if start < 0:
                out.append(line[position:])
                break
            out.append(line[position:start])
            position, in_comment = start + 4, True
    return "".join(out), in_comment


def blocks(elements: list[Element]) -> list[Block]:
    """The well-formed blocks, each with what lies up to the next closing ``///`` (or the end)."""
    found = []
    for start, element in enumerate(elements):
        if not (isinstance(element, BlockMark) and element.well_formed):
            continue
        options, content, closed = [], [], False
        for inner in elements[start + 1:]:
            if isinstance(inner, BlockMark) and inner.closes:
                closed = True
                break
            (options if isinstance(inner, Option) else content).append(inner)
        found.append(Block(element.kind, element.id, element.line, tuple(options), tuple(content), closed))
    return found


def heading_of(element: Element) -> Heading | None:
    """The ATX heading a prose line is, with its anchor; None for any other element or line."""
    if not isinstance(element, Prose):
        return None
    match = _HEADING.match(element.text)
    if match is None:
        return None
    attributes = _ATTRIBUTES.search(match.group(2))
    anchor = _ANCHOR.search(attributes.group(1)) if attributes else None
    return Heading(element.line, len(match.group(1)), element.text.rstrip(), anchor.group(1) if anchor else None)


def headings(elements: list[Element]) -> list[Heading]:
    """The ATX headings of the prose, with their anchors."""
    return [heading for heading in map(heading_of, elements) if heading is not None]


def code_spans(text: str) -> list[tuple[int, int, str]]:
    """The inline code spans of one line: (start, end, content) each, content as written.

    CommonMark: a run of N backticks opens; the next run of exactly N backticks closes; a run with
    no partner is literal. A backslash before a run escapes its first backtick.
    """
    runs = [(m.start(), m.end()) for m in _BACKTICKS.finditer(text)]
    spans = []
    index = 0
    while index < len(runs):
        start, end = runs[index]
        if start > 0 and text[start - 1] == "\\":
            start += 1
        width = end - start
        partner = next((j for j in range(index + 1, len(runs)) if runs[j][1] - runs[j][0] == width), None)
        if width == 0 or partner is None:
            index += 1
            continue
        spans.append((start, runs[partner][1], text[end:runs[partner][0]]))
        index = partner + 1
    return spans


def without_code_spans(text: str, replacement: str = "") -> str:
    """The line with each inline code span replaced by ``replacement``."""
    out, position = [], 0
    for start, end, _ in code_spans(text):
        out += [text[position:start], replacement]
        position = end
    return "".join(out) + text[position:]


def placeholders(text: str) -> list[str]:
    """Each ``[[...]]`` of a prose line outside inline code, as written (brackets included)."""
    return [match.group(0) for match in PLACEHOLDER.finditer(without_code_spans(text))]


def not_utf8(data: bytes) -> str | None:
    """Where a page's bytes stop being UTF-8 (``line 12: byte 0xe9 is not UTF-8``); None when they are.
    The build and `labkit chapter` say so in one line rather than fail inside MkDocs' reader."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[:exc.start].count(b"\n") + 1
        return f"line {line}: byte 0x{data[exc.start]:02x} is not UTF-8: save the page as UTF-8"
    return None
