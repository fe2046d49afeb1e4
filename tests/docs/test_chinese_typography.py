"""Chinese pages follow Chinese typography in their prose: no space before a percent sign, and
Chinese quotation marks (“ ”) rather than straight double quotes. Code, math, HTML tags, Markdown
and block syntax (tab and admonition titles, a block's options) and the front matter are left
alone."""

import re

import pytest

from labkit.site.inventory import language_pages
from tests.conftest import DOCS

FENCE = re.compile(r"^\s*```.*?^\s*```", re.MULTILINE | re.DOTALL)
FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
SYNTAX_LINE = re.compile(r"^\s*(?:===|!!!|\?\?\?)|^\s+[a-z_]+: ")
HTML_TAG = re.compile(r"<[^>]+>")
CODE_OR_MATH = re.compile(r"`[^`]*`|\$\$.*?\$\$|\$[^$]*\$", re.DOTALL)


def prose_lines(text: str):
    text = FENCE.sub("", FRONT_MATTER.sub("", text))
    text = HTML_TAG.sub("", CODE_OR_MATH.sub("", text))
    for line in text.splitlines():
        if not SYNTAX_LINE.match(line):
            yield line


def typography_problems(text: str, where: str) -> list[str]:
    problems = []
    for line in prose_lines(text):
        if re.search(r"[ \u00a0\u202f][%％]", line):
            problems.append(f"{where}: a space before %: {line.strip()[:80]!r}")
        if '"' in line:
            problems.append(f"{where}: straight double quotes, write “ ”: {line.strip()[:80]!r}")
    return problems


@pytest.mark.parametrize("page", sorted(language_pages(DOCS, "zh")))
def test_chinese_prose_follows_chinese_typography(page):
    problems = typography_problems((DOCS / "zh" / page).read_text(encoding="utf-8"), f"docs/zh/{page}")
    assert not problems, "\n".join(problems)


def test_the_check_names_each_mistake():
    text = ('占峰值的 [[x.y]] %。\n在"每个缺陷的代价"表里\n`print("x")` 与 $a = "b"$ 不算\n=== "PyTorch"\n'
            '<div class="widget"></div>\n    unit: "%"\n')
    problems = typography_problems(text, "page")
    assert len(problems) == 2 and "space before %" in problems[0] and "straight double quotes" in problems[1]
