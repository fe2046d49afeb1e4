"""Text in fixed columns, defined once (labkit.report.columns): its width is rich's, fast path
included; its wrapping never starts a line with a closing mark nor ends one with an opening mark;
and no other module of labkit measures width or lists Chinese punctuation of its own."""

import ast
from pathlib import Path

import pytest
from rich.cells import cell_len

import labkit
from labkit.report.columns import CLOSING, OPENING, columns, cut_to_columns, wrap

PACKAGE = Path(labkit.__file__).parent
HOME = PACKAGE / "report" / "columns.py"

SAMPLES = ("", "copy_kernel<float>", "a\tb\n", "e\u0301t\u00e9", "×µ·—…━", "每字节的指令太多——预期收益",
           "ＡＢ％（）", "Ω≈θ", "\x7f", "🙂 ok")


@pytest.mark.parametrize("text", SAMPLES)
def test_the_width_is_richs_with_or_without_the_fast_path(text):
    assert columns(text) == cell_len(text)
    assert cut_to_columns(text, 5) == next(text[:i] for i in range(len(text), -1, -1) if cell_len(text[:i]) <= 5)


#: The sentence `labkit diagnose` cut before its closing quotation mark (lab 05's kernel, in Chinese).
DISCOUNTED = "2. 每字节的指令太多——预期收益 9.4%（labkit 估算 16.6%，扣除其中属于“warp 内分歧”会消除的浪费的 43.0%）"


@pytest.mark.parametrize("width", range(8, 81))
def test_no_line_starts_with_a_closing_mark_or_ends_with_an_opening_one(width):
    text = DISCOUNTED + "：ＡＢ％，“x”。"
    lines = wrap(text, width, rest="   ")
    assert "".join(lines).replace(" ", "") == text.replace(" ", "")   # nothing lost, only spaces at breaks
    starts = [line for line in lines if line.strip()[0] in CLOSING]
    ends = [line for line in lines if line[-1] in OPENING]
    assert not starts and not ends, (width, starts, ends)


def test_every_closing_mark_has_its_opening_one_and_no_mark_is_both():
    pairs = {"）": "（", "］": "［", "｝": "｛", "〕": "〔", "〉": "〈", "》": "《", "」": "「", "』": "『", "】": "【",
             "”": "“", "’": "‘"}
    assert set(pairs) <= set(CLOSING) and set(OPENING) == set(pairs.values())
    assert not set(CLOSING) & set(OPENING)


def _punctuation_sets(path: Path) -> list[str]:
    """String constants of three or more characters, all Chinese closing or opening marks."""
    marks = set(CLOSING) | set(OPENING)
    return [node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) >= 3
            and set(node.value) <= marks]


def test_no_other_module_measures_width_or_lists_chinese_punctuation():
    """Two copies of these had drifted (％ in one set, ” in the other; three width functions)."""
    found = [f"{path.relative_to(PACKAGE.parent)}: {what}"
             for path in sorted(PACKAGE.rglob("*.py")) if path != HOME
             for what in (["east_asian_width"] if "east_asian_width" in path.read_text(encoding="utf-8") else [])
             + _punctuation_sets(path)]
    assert not found, found
