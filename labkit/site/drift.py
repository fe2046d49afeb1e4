"""One content in two languages: what a page holds, section by section, that its translation lacks.

Parity (labkit.site.inventory) checks that both languages have the same pages, anchors, quizzes,
blocks and diagrams. Drift goes inside the sections: a page is cut at its ``##``/``###``
headings (by their ``{#anchor}``; what precedes the first one is the section ``top``), and each
block is a section of its own (``quiz:<id>``, ``lab:<id>``, ``exercise:<id>``...). The page is
read by labkit.site.syntax (code, blocks, headings, inline code, figures; HTML comments and the
front matter are not content). In each section, these items must be the same in both languages:

- code blocks, in order, compared with their comments stripped (``#`` in Python, shell and
  the like, ``//`` and ``/* */`` in C and C++); a Mermaid diagram by its nodes and edges, its
  labels being prose;
- inline code spans, ``[[figure]]`` placeholders and link targets (as multisets: the same
  item, as many times);
- admonitions (``!!! type``), by type, in order;
- list items (``-``, ``*``, ``1.``), counted;
- tables, by shape (columns x rows), in order;
- numbers written in the prose, normalised: decimal comma or point, thousands separators, the
  Chinese 万 (10^4) and 亿 (10^8), and a quantity in Chinese numerals before a unit (两分钟:
  2 minutes, 三倍: 3 times), as a set.

Prose is free: each language says the same thing in its own words, with these items in common.
"""

from __future__ import annotations

import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from labkit.report.labels import LANGUAGES
from labkit.site import syntax
from labkit.site.inventory import REFERENCE_LANG, SECTION_LEVELS, language_pages

ADMONITION = re.compile(r"^\s*(?:!!!|\?\?\?\+?) *(\w+)")
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.) +\S")
TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
TABLE_RULE = re.compile(r"^\s*\|(?:\s*:?-+:?\s*\|)+\s*$")
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
AUTOLINK = re.compile(r"<((?:https?://|mailto:)[^>\s]+)>")
ATTRIBUTES = re.compile(r"\{[^}]*#[\w-]+[^}]*\}")
#: A number in prose: digits with an optional decimal part, thousands grouped by (narrow) no-break
#: spaces, commas or spaces, optionally followed by 万 or 亿; not part of a word (H100, FP32, L2).
NUMBER = re.compile(
    r"(?<![A-Za-z0-9_.,\u00a0\u202f])"
    r"(\d{1,3}(?:(?:[\u00a0\u202f]|,(?=\d{3}(?!\d))| (?=\d{3}(?![\d.,])))\d{3})+|\d+)"
    r"(?:[.,](\d+))?"
    r"(?![A-Za-z0-9_])"
    r"(?:\s*([万亿]))?"
)
CHINESE_SCALES = {"万": 10**4, "亿": 10**8}
#: A quantity in Chinese numerals, counted only before a unit: 一个 ("a") is not a number, 两分钟 is.
CHINESE_QUANTITY = re.compile(r"([一二两三四五六七八九十百千]+)\s*(?=分钟|小时|秒|倍|天|周|年)")
CHINESE_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
CHINESE_UNITS = {"十": 10, "百": 100, "千": 1000}

#: Comment syntax by fence language.
HASH_COMMENTS = {"bash", "sh", "shell", "console", "python", "py", "pycon", "yaml", "toml", "ini", "cfg", "make"}
SLASH_COMMENTS = {"c", "cpp", "c++", "cu", "cuda", "h", "hpp", "js", "javascript", "ts", "java", "rust"}


@dataclass
class Section:
    """What one section holds, item by item."""

    code_blocks: list[str] = field(default_factory=list)
    inline_code: Counter = field(default_factory=Counter)
    admonitions: list[str] = field(default_factory=list)
    list_items: int = 0
    tables: list[str] = field(default_factory=list)
    numbers: set[str] = field(default_factory=set)
    figures: Counter = field(default_factory=Counter)
    links: Counter = field(default_factory=Counter)


def strip_comments(code: str, language: str) -> str:
    """The code without its comments, blank lines and runs of blanks: what both languages share."""
    language = language.lower()
    if language in {"python", "py"}:
        code = _strip_python_comments(code)
    elif language in HASH_COMMENTS:
        code = "\n".join(_strip_hash_comment(line) for line in code.splitlines())
    elif language in SLASH_COMMENTS:
        code = re.sub(r"/\*.*?\*/", "", code, flags=re.DOTALL)
        code = "\n".join(re.sub(r"//.*$", "", line) for line in code.splitlines())
    elif language == "mermaid":
        return mermaid_structure(code)
    return _normalise_lines(code)


def _normalise_lines(code: str) -> str:
    """Blank lines dropped, each line's runs of blanks as one space, edges trimmed."""
    return "\n".join(re.sub(r"\s+", " ", line).strip() for line in code.splitlines() if line.strip())


def _strip_python_comments(code: str) -> str:
    try:
        tokens = [t for t in tokenize.generate_tokens(io.StringIO(code + "\n").readline)
                  if t.type != tokenize.COMMENT]
        code = tokenize.untokenize(tokens)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        code = "\n".join(_strip_hash_comment(line) for line in code.splitlines())
    return _normalise_lines(code)


def _strip_hash_comment(line: str) -> str:
    """A shell-like line without its comment: a # at the start or after a blank, outside quotes."""
    quote = None
    for index, char in enumerate(line):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "#" and (index == 0 or line[index - 1].isspace()):
            return line[:index].rstrip()
    return line.rstrip()


def mermaid_structure(code: str) -> str:
    """A Mermaid flowchart as its node ids and edges, labels removed: ``A --> B``, one per line."""
    without_labels = re.sub(r"\[[^\]]*\]|\{[^}]*\}|\([^)]*\)|\|[^|]*\|", "", code)
    lines = []
    for line in without_labels.splitlines():
        line = re.sub(r"\s+", " ", line).strip()
        if line:
            lines.append(line)
    return "\n".join(lines)


def normalise_number(integer: str, decimals: str | None, scale: str | None) -> str:
    """'2 900' -> '2900', '1,25' -> '1.25', '2.68 亿' -> '268000000': the value, as a string."""
    digits = re.sub(r"[\s\u00a0\u202f,]", "", integer)
    text = f"{digits}.{decimals}" if decimals else digits
    if scale:
        value = round(float(text) * CHINESE_SCALES[scale], 6)
        text = str(int(value)) if value.is_integer() else str(value)
    else:
        text = str(float(text)) if decimals else str(int(digits))
    return text.rstrip("0").rstrip(".") if "." in text else text


def chinese_numeral(text: str) -> int:
    """一 -> 1, 十二 -> 12, 两百 -> 200, 三千零五 is not handled (零 is not a numeral here)."""
    total, digit = 0, 0
    for char in text:
        if char in CHINESE_DIGITS:
            digit = CHINESE_DIGITS[char]
        else:
            total += (digit or 1) * CHINESE_UNITS[char]
            digit = 0
    return total + digit


def prose_numbers(text: str) -> set[str]:
    """The numbers written in a piece of prose (figures, inline code and links already removed)."""
    numbers = {normalise_number(m.group(1), m.group(2), m.group(3)) for m in NUMBER.finditer(text)}
    return numbers | {str(chinese_numeral(m.group(1))) for m in CHINESE_QUANTITY.finditer(text)}


def page_sections(text: str) -> dict[str, Section]:
    """Each section of a page (see the module docstring), in order."""
    sections: dict[str, Section] = {"top": Section()}
    current = heading = "top"
    table = _Table()
    for element in syntax.read_page(text):
        if isinstance(element, syntax.Fence):
            table.close(sections[current])
            sections[current].code_blocks.append(strip_comments(_dedent(list(element.body)), element.language or "text"))
        elif isinstance(element, syntax.BlockMark):
            table.close(sections[current])
            if element.closes:
                current = heading
            elif element.well_formed:
                current = f"{element.kind}:{element.id}"
                sections[current] = Section()
        elif isinstance(element, syntax.Prose):
            title = syntax.heading_of(element)
            if title and title.level in SECTION_LEVELS and title.anchor:
                table.close(sections[current])
                current = heading = title.anchor
                sections[current] = Section()
                continue
            _read_line(element.text, sections[current], table)
    table.close(sections[current])
    return sections


class _Table:
    """The table being read: its columns (from the |---| rule) and rows so far."""

    def __init__(self) -> None:
        self.rows = self.columns = 0

    def close(self, section: Section) -> None:
        if self.rows:
            section.tables.append(f"{self.columns} columns x {self.rows} rows")
        self.rows = self.columns = 0


def _read_line(line: str, section: Section, table: _Table) -> None:
    """One prose line: a table row, an admonition, a list item, and its inline items."""
    if TABLE_ROW.match(line):
        if TABLE_RULE.match(line):
            table.columns = line.strip().strip("|").count("|") + 1
        else:
            table.rows += 1
    else:
        table.close(section)
    if ADMONITION.match(line):
        section.admonitions.append(ADMONITION.match(line).group(1))
        line = re.sub(r"\"[^\"]*\"\s*$", "", line)   # the title is prose
    if LIST_ITEM.match(line):
        section.list_items += 1
    _read_prose(line, section)


def _dedent(lines: list[str]) -> str:
    indents = [len(line) - len(line.lstrip()) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] for line in lines)


def _read_prose(line: str, section: Section) -> None:
    """Inline code, figures, links and numbers of one line of prose."""
    for _, _, code in syntax.code_spans(line):
        section.inline_code[code.strip()] += 1
    line = syntax.without_code_spans(line, " ")
    section.figures.update(syntax.FIGURE.findall(line))
    line = syntax.FIGURE.sub(" ", line)
    section.links.update(LINK.findall(line) + AUTOLINK.findall(line))
    line = LINK.sub("] ", AUTOLINK.sub(" ", line))
    line = ATTRIBUTES.sub(" ", line)
    line = re.sub(r"^\s*(?:[-*+]\s+\(\w\)|\d+\.)\s", " ", line)   # quiz option letters, list numbers
    section.numbers.update(prose_numbers(line))


def section_differences(page: str, name: str, ours: Section, theirs: Section, lang: str) -> list[str]:
    """Each item the reference language's section has and the other lacks, or the other way round."""
    ref, where = REFERENCE_LANG, f"docs/{lang}/{page} § {name}"
    problems = []
    for index in range(max(len(ours.code_blocks), len(theirs.code_blocks))):
        a = ours.code_blocks[index] if index < len(ours.code_blocks) else None
        b = theirs.code_blocks[index] if index < len(theirs.code_blocks) else None
        if a != b:
            if a is None:
                problems.append(f"{where}: code block {index + 1} is in {lang} only: {_first_line(b)!r}")
            elif b is None:
                problems.append(f"{where}: code block {index + 1} is missing (in {ref}: {_first_line(a)!r})")
            else:
                problems.append(f"{where}: code block {index + 1} differs beyond its comments "
                                f"({ref}: {_first_difference(a, b)!r}; {lang}: {_first_difference(b, a)!r})")
    for code in sorted((ours.inline_code - theirs.inline_code).keys()):
        problems.append(f"{where}: inline code `{code}` is missing (in {ref})")
    for code in sorted((theirs.inline_code - ours.inline_code).keys()):
        problems.append(f"{where}: inline code `{code}` is in {lang} only")
    if ours.admonitions != theirs.admonitions:
        problems.append(f"{where}: admonitions differ ({ref}: {ours.admonitions}; {lang}: {theirs.admonitions})")
    if ours.list_items != theirs.list_items:
        problems.append(f"{where}: list items differ ({ref}: {ours.list_items}; {lang}: {theirs.list_items})")
    if ours.tables != theirs.tables:
        problems.append(f"{where}: tables differ ({ref}: {ours.tables}; {lang}: {theirs.tables})")
    for kind in ("numbers", "figures", "links"):
        a, b = getattr(ours, kind), getattr(theirs, kind)
        label = {"numbers": "number", "figures": "figure", "links": "link to"}[kind]
        for item in sorted(set(a - b)):
            shown = f"[[{item}]]" if kind == "figures" else item
            problems.append(f"{where}: {label} {shown} is missing (in {ref})")
        for item in sorted(set(b - a)):
            shown = f"[[{item}]]" if kind == "figures" else item
            problems.append(f"{where}: {label} {shown} is in {lang} only")
    return problems


def _first_line(code: str | None) -> str:
    return (code or "").splitlines()[0] if code else ""


def _first_difference(a: str, b: str) -> str:
    b_lines = set(b.splitlines())
    return next((line for line in a.splitlines() if line not in b_lines), _first_line(a))


def page_drift(page: str, reference_text: str, other_text: str, lang: str) -> list[str]:
    """Every drift between one page and its translation, naming the page, the section and the item."""
    ours, theirs = page_sections(reference_text), page_sections(other_text)
    problems = []
    for name in ours.keys() - theirs.keys():
        problems.append(f"docs/{lang}/{page} § {name}: the section is missing (in {REFERENCE_LANG})")
    for name in theirs.keys() - ours.keys():
        problems.append(f"docs/{lang}/{page} § {name}: the section is in {lang} only")
    for name in ours:
        if name in theirs:
            problems += section_differences(page, name, ours[name], theirs[name], lang)
    return problems


def drift_problems(docs_dir: Path) -> list[str]:
    """Every drift between the reference language's pages and each translation's."""
    problems = []
    reference = language_pages(docs_dir, REFERENCE_LANG)
    for lang in LANGUAGES:
        if lang == REFERENCE_LANG:
            continue
        other = language_pages(docs_dir, lang)
        for page in sorted(reference.keys() & other.keys()):
            problems += page_drift(page, reference[page].read_text(encoding="utf-8"),
                                   other[page].read_text(encoding="utf-8"), lang)
    return problems
