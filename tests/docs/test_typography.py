"""Each language's typography in the rendered HTML of every page (labkit.site.typography makes it):
French no-break spaces and apostrophes, no stray space between two Chinese characters."""

import re

import pytest
from bs4 import BeautifulSoup, NavigableString

from labkit.site.typography import FRENCH_UNITS, typeset
from tests.browser.test_site import site_pages

VERBATIM = {"pre", "code", "kbd", "samp", "script", "style", "textarea"}
#: An ordinary space (or a line break) where French typography wants a no-break one.
FRENCH_MISTAKES = {
    "space before a colon": re.compile(r"[ \t\n]:(?!//)"),
    "space before ; ! ? % or »": re.compile(r"[ \t\n][;!?%»]"),
    "space after «": re.compile(r"«[ \t\n]"),
    "space between a number and its unit": re.compile(r"\d[ \t\n](?:" + "|".join(FRENCH_UNITS) + r")(?![\w/])"),
    "straight apostrophe": re.compile(r"[^\W\d_]'"),
}
CJK = "\u3000-\u303f\u3400-\u4dbf\u4e00-\u9fff\uff00-\uffef"
CJK_SPACE = re.compile(f"[{CJK}]\\s+[{CJK}]")
#: Elements whose text is one run of prose.
TEXT_BLOCKS = ("p", "li", "td", "th", "h1", "h2", "h3", "h4", "h5", "h6", "figcaption", "dt", "dd", "summary",
               "caption", "text", "label", "title")


def verbatim(node) -> bool:
    for parent in node.parents:
        if parent.name in VERBATIM or "arithmatex" in (parent.get("class") or []):
            return True
    return False


def pages(built_site, lang):
    root = built_site / ("zh" if lang == "zh" else "")
    for rel in site_pages(root if lang == "zh" else built_site):
        if lang == "fr" and rel.startswith("zh/"):
            continue
        yield rel, root / rel.lstrip("/") / "index.html"


def french_problems(html: str) -> list[str]:
    soup = BeautifulSoup(html, "html.parser")
    problems = []
    for node in soup.find_all(string=True):
        if not isinstance(node, NavigableString) or type(node) is not NavigableString or verbatim(node):
            continue
        for what, pattern in FRENCH_MISTAKES.items():
            for match in pattern.finditer(str(node)):
                start = max(0, match.start() - 25)
                problems.append(f"{what}: {str(node)[start:match.end() + 10]!r}")
    return problems


def chinese_problems(html: str) -> list[str]:
    soup = BeautifulSoup(html, "html.parser")
    for hidden in soup.find_all(lambda tag: tag.name in VERBATIM or "arithmatex" in (tag.get("class") or [])):
        hidden.replace_with("X")
    for br in soup.find_all("br"):
        br.replace_with("\u21b5")   # a line break, not a space
    problems = []
    for block in soup.find_all(TEXT_BLOCKS):
        if block.find(TEXT_BLOCKS):
            continue   # the innermost runs only: a list item's paragraphs are checked one by one
        text = block.get_text()
        problems += [f"{block.name}: {text[max(0, m.start() - 15):m.end() + 15]!r}" for m in CJK_SPACE.finditer(text)]
    return problems


def test_every_french_page_has_french_spaces_and_apostrophes(built_site):
    seen, problems = 0, []
    for rel, path in pages(built_site, "fr"):
        seen += 1
        problems += [f"{rel}: {p}" for p in french_problems(path.read_text(encoding="utf-8"))]
    assert seen >= 12
    assert not problems, f"{len(problems)} places:\n" + "\n".join(problems[:40])


def test_every_chinese_page_has_no_space_between_two_chinese_characters(built_site):
    seen, problems = 0, []
    for rel, path in pages(built_site, "zh"):
        seen += 1
        problems += [f"zh{rel}: {p}" for p in chinese_problems(path.read_text(encoding="utf-8"))]
    assert seen >= 12
    assert not problems, f"{len(problems)} places:\n" + "\n".join(problems[:40])


@pytest.mark.parametrize("source, expected", [
    ("<p>Note : la latence ; 50 % et 50% « mot » l'occupancy ! Vraiment ?</p>",
     "<p>Note\u00a0: la latence\u202f; 50\u202f% et 50\u202f% «\u202fmot\u202f» l’occupancy\u202f! Vraiment\u202f?</p>"),
    ("<p>64 Kio, 3,2 ms et 1\u202f980 MHz, 4 partitions, voir http://x</p>",
     "<p>64\u202fKio, 3,2\u202fms et 1\u202f980\u202fMHz, 4 partitions, voir http://x</p>"),
    ("<p>texte\n: suite</p>", "<p>texte\u00a0: suite</p>"),
    ('<p><code>a : b</code> <span class="arithmatex">\\(x : y\\)</span> <a title="a : b">l\'x</a></p>',
     '<p><code>a : b</code> <span class="arithmatex">\\(x : y\\)</span> <a title="a : b">l’x</a></p>'),
    ('<pre class="mermaid"><code>A["Grille : d\'abord"] --&gt; B</code></pre><script>x = "a : b";</script>',
     '<pre class="mermaid"><code>A["Grille\u00a0: d’abord"] --&gt; B</code></pre><script>x = "a : b";</script>'),
])
def test_french_typesetting(source, expected):
    assert typeset(source, "fr") == expected
    assert french_problems(expected) == []


@pytest.mark.parametrize("source, expected", [
    ("<p>字节。\n有两种</p>", "<p>字节。有两种</p>"),
    ("<p>的\n<strong>校准</strong>和</p>", "<p>的<strong>校准</strong>和</p>"),
    ("<p><em>全局</em>\n计数器</p>", "<p><em>全局</em>计数器</p>"),
    ("<p>的 warp\n和</p>", "<p>的 warp\n和</p>"),            # a space beside Latin text stays
    ("<p><strong>怎么算。</strong> 加法</p>", "<p><strong>怎么算。</strong>加法</p>"),
    ("<pre><code>中\n文</code></pre>", "<pre><code>中\n文</code></pre>"),
    ("<p>一段。</p>\n<p>二段</p>", "<p>一段。</p>\n<p>二段</p>"),  # between blocks: nothing renders
])
def test_chinese_typesetting(source, expected):
    assert typeset(source, "zh") == expected


def test_the_checks_find_each_mistake():
    assert len(french_problems("<p>a : b ; c % « d » 3 Mo l'x</p>")) == 7
    assert len(chinese_problems("<p>字节。 有两种</p><ul><li><p>的\n校准</p></li></ul>")) == 2
