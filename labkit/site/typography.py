"""Each language's typography, applied by the build to the rendered HTML of every page, so that
authors type ordinary spaces and straight apostrophes (labkit's MkDocs plugin calls ``typeset``).

Only the text a reader reads is touched: text nodes outside ``pre``, ``code``, ``kbd``, ``samp``,
``script``, ``style``, ``textarea`` and the TeX of ``.arithmatex`` math; tags and attributes are
left alone. In a Mermaid diagram's source the quoted labels are prose and are set too.

French (Lexique des règles typographiques en usage à l'Imprimerie nationale):

- a no-break space (U+00A0) before ``:``;
- a narrow no-break space (U+202F, as labkit.report.numbers writes 2 048 and 93 %) before ``;``,
  ``!``, ``?`` and ``%``, after ``«`` and before ``»``, and between a number and its unit (64 Kio,
  3,2 ms, 1 980 MHz);
- the apostrophe is ’ (U+2019), never the typewriter '.

Chinese: no space between two Chinese characters (or CJK punctuation). A line break between two
of them in the source renders as a space in HTML, and so does a space typed after a bold lead-in
(``**怎么算。** 加法``): whitespace between two CJK characters goes, across inline tags too
(``的\\n<strong>校准</strong>``). Whitespace beside Latin text, digits or a symbol stays.
"""

from __future__ import annotations

import re

NBSP = "\u00a0"
NNBSP = "\u202f"

#: Elements whose text is code, math source or not text at all: left as they are.
VERBATIM = frozenset({"pre", "code", "kbd", "samp", "script", "style", "textarea"})
#: Elements that hold no text and have no end tag.
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
                  "track", "wbr"})

TOKEN = re.compile(r"<!--.*?-->|<!\[CDATA\[.*?\]\]>|<![^>]*>|<[^>]+>", re.DOTALL)
TAG = re.compile(r"<\s*(/?)\s*([a-zA-Z][a-zA-Z0-9:-]*)([^>]*)>", re.DOTALL)
CLASS = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)')""")

#: Units a French number is tied to (SI and binary prefixes, the course's rates and counts).
FRENCH_UNITS = (
    "octets?", "o", "[kKMGT]io", "[kKMGT]o", "[kKMGT]i?B", "B", "bits?", "[kMGT]?Hz", "[mµμn]?s",
    "[kMGT]?o/s", "[kKMGT]i?B/s", "[GT]?FLOP/s", "[GT]?FLOP", "[GT]?flop/s", "W", "V", "°C", "cycles?",
)
_UNIT = "(?:" + "|".join(FRENCH_UNITS) + ")"
#: A digit, ordinary spaces (a line break of the source too), a unit ending at a word boundary.
NUMBER_UNIT = re.compile(rf"(?<=\d)[ \t\n]+(?={_UNIT}(?![\w/]))")
BEFORE_COLON = re.compile(r"[ \u202f](?=:(?!//))")
BEFORE_HIGH = re.compile(rf"[ {NBSP}](?=[;!?%»])")
AFTER_OPEN_QUOTE = re.compile(rf"(?<=«)[ {NBSP}]")
#: The same places where the author typed no space at all: 50%, «mot».
GLUED = re.compile(r"(?<=\d)(?=%)|(?<=«)(?=[^\s\u202f\u00a0])|(?<=[^\s\u202f\u00a0])(?=»)")
#: A straight apostrophe between letters (l'occupancy, aujourd'hui) or after one (the elision of a
#: word followed by a tag: d'<em>...).
APOSTROPHE = re.compile(r"(?<=[^\W\d_])'")

CJK = "\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
CJK_CHAR = re.compile(f"[{CJK}]")
CJK_SPACE = re.compile(rf"(?<=[{CJK}])\s+(?=[{CJK}])")
MERMAID_LABEL = re.compile(r'"[^"\n]*"')


def _french_text(text: str) -> str:
    text = NUMBER_UNIT.sub(NNBSP, text)
    text = BEFORE_COLON.sub(NBSP, text)
    text = BEFORE_HIGH.sub(NNBSP, text)
    text = AFTER_OPEN_QUOTE.sub(NNBSP, text)
    text = GLUED.sub(NNBSP, text)
    return APOSTROPHE.sub("\u2019", text)


def french(text: str) -> str:
    """French typography of one run of prose (no markup in it)."""
    # A space the author typed before a colon, semicolon... may sit at a line break of the source.
    text = re.sub(r"[ \t]*\n[ \t]*(?=[:;!?%»])", " ", text)
    return _french_text(re.sub(r"(?<=«)[ \t]*\n[ \t]*", " ", text))


def typeset_text(text: str, lang: str) -> str:
    """One run of prose that the page's scripts show (an attribute's text): French typography in
    French, as it is otherwise."""
    return french(text) if lang == "fr" else text


def _classes(attributes: str) -> set[str]:
    match = CLASS.search(attributes)
    return set((match.group(1) or match.group(2) or "").split()) if match else set()


def _tokens(html: str):
    """(kind, text, verbatim) for every piece of the page: kind 'tag' or 'text'; verbatim says the
    text sits inside code, math or a script. Mermaid sources come as kind 'mermaid'."""
    stack: list[tuple[str, str]] = []   # (tag name, why it is verbatim: '', 'verbatim' or 'mermaid')
    position = 0
    for match in TOKEN.finditer(html):
        if match.start() > position:
            whys = {why for _, why in stack}
            yield ("mermaid" if "mermaid" in whys else "text"), html[position:match.start()], bool(whys - {""})
        yield "tag", match.group(0), True
        position = match.end()
        tag = TAG.match(match.group(0))
        if tag is None:
            continue
        closing, name, attributes = tag.group(1), tag.group(2).lower(), tag.group(3)
        if closing:
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == name:
                    del stack[depth:]
                    break
        elif name not in VOID and not attributes.rstrip().endswith("/"):
            classes = _classes(attributes)
            why = ("mermaid" if "mermaid" in classes else
                   "verbatim" if name in VERBATIM or "arithmatex" in classes else "")
            stack.append((name, why))
    if position < len(html):
        yield "text", html[position:], False


def typeset(html: str, lang: str) -> str:
    """The page with its language's typography (see the module's docstring)."""
    if lang == "fr":
        return _typeset_french(html)
    if lang == "zh":
        return _typeset_chinese(html)
    return html


def _typeset_french(html: str) -> str:
    out = []
    for kind, text, verbatim in _tokens(html):
        if kind == "text" and not verbatim:
            text = french(text)
        elif kind == "mermaid":
            text = MERMAID_LABEL.sub(lambda m: french(m.group(0)), text)
        out.append(text)
    return "".join(out)


def _typeset_chinese(html: str) -> str:
    pieces = list(_tokens(html))
    out = []
    for index, (kind, text, verbatim) in enumerate(pieces):
        if kind == "text" and not verbatim:
            text = CJK_SPACE.sub("", text)
            # Space at the end of this text and a CJK character after the inline tags that follow
            # it; or at its start, after a CJK character before the tags that precede it.
            if re.search(r"\s$", text) and _neighbour_is_cjk(pieces, index, +1) and _last_is_cjk(text):
                text = text.rstrip()
            if re.match(r"\s", text) and _neighbour_is_cjk(pieces, index, -1) and _first_is_cjk(text):
                text = text.lstrip()
        out.append(text)
    return "".join(out)


#: Inline tags a line break may sit next to without ending the run of text.
INLINE = frozenset({"a", "em", "strong", "b", "i", "span", "abbr", "mark", "sup", "sub", "small", "u", "s"})


def _last_is_cjk(text: str) -> bool:
    stripped = text.rstrip()
    return bool(stripped) and bool(CJK_CHAR.match(stripped[-1]))


def _first_is_cjk(text: str) -> bool:
    stripped = text.lstrip()
    return bool(stripped) and bool(CJK_CHAR.match(stripped[0]))


def _neighbour_is_cjk(pieces, index: int, step: int) -> bool:
    """Whether the first visible character after (step +1) or before (step -1) piece ``index``,
    past inline tags only, is CJK, in prose."""
    at = index + step
    crossed_tag = False
    while 0 <= at < len(pieces):
        kind, text, verbatim = pieces[at]
        if kind == "tag":
            tag = TAG.match(text)
            if tag is None or tag.group(2).lower() not in INLINE:
                return False
            crossed_tag = True
        elif text.strip():
            if verbatim:
                return False
            return crossed_tag and (_first_is_cjk(text) if step > 0 else _last_is_cjk(text))
        at += step
    return False
