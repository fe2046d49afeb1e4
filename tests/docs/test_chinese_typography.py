"""Chinese pages follow Chinese typography in their prose (labkit.site.chinese_typography): no
space before a percent sign, and Chinese quotation marks (“ ”) rather than straight double quotes.
Code, math, HTML tags, Markdown and block syntax (tab and admonition titles, a block's options)
and the front matter are left alone."""

import pytest

from labkit.site.chinese_typography import typography_problems
from labkit.site.inventory import language_pages
from tests.conftest import DOCS


@pytest.mark.parametrize("page", sorted(language_pages(DOCS, "zh")))
def test_chinese_prose_follows_chinese_typography(page):
    problems = typography_problems((DOCS / "zh" / page).read_text(encoding="utf-8"), f"docs/zh/{page}")
    assert not problems, "\n".join(problems)


def test_the_check_names_each_mistake():
    text = ('占峰值的 [[x.y]] %。\n在"每个缺陷的代价"表里\n`print("x")` 与 $a = "b"$ 不算\n=== "PyTorch"\n'
            '<div class="widget"></div>\n    unit: "%"\n')
    problems = typography_problems(text, "page")
    assert len(problems) == 2 and "space before %" in problems[0] and "straight double quotes" in problems[1]
