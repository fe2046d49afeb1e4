"""Every Chinese text of the course holds to the glossary (labkit.site.glossary_zh): the pages'
prose (Mermaid labels included, code and math left out), the Chinese cells of the lab notebooks,
every Chinese label (labkit/report/labels/) and the widgets' Chinese words."""

import re
from pathlib import Path

import jupytext
import pytest

import labkit.site
from labkit.labs.base import labs
from labkit.report.labels import LABELS
from labkit.site.glossary_zh import GLOSSARY, glossary_problems
from labkit.site.inventory import language_pages
from tests.conftest import DOCS, REPO_ROOT

FRONT_MATTER = re.compile(r"\A---\n.*?\n---\n", re.DOTALL)
FENCE = re.compile(r"^(\s*)(`{3,}|~{3,})(\w*)[^\n]*\n(.*?)^\1\2\s*$", re.MULTILINE | re.DOTALL)
NOT_PROSE = [
    re.compile(r"`[^`\n]*`"),                              # inline code
    re.compile(r"\$\$.*?\$\$|\$[^$\n]*\$|\\\(.*?\\\)", re.DOTALL),   # math
    re.compile(r"\]\([^)]*\)"),                            # a link's target
    re.compile(r"^\[[^\]]+\]:\s*\S+.*$", re.MULTILINE),    # reference definitions
    re.compile(r"\[\[[^\]]+\]\]"),                         # computed figures
    re.compile(r"\{[#:.][^}]*\}"),                         # attribute lists and anchors
    re.compile(r"<[^>]+>"),                                # HTML tags
    re.compile(r"https?://\S+"),
    re.compile(r"^\s*///.*$", re.MULTILINE),               # block headers
    re.compile(r"^ {4}[a-z_]+: .*$", re.MULTILINE),        # block options
]
WIDGETS = Path(labkit.site.__file__).parent / "assets"


def prose(markdown: str) -> str:
    """The prose of a Markdown page: code and math out, a Mermaid diagram's quoted labels in."""
    def fence(match):
        return " ".join(re.findall(r'"([^"\n]*)"', match.group(4))) if match.group(3) == "mermaid" else ""
    text = FENCE.sub(fence, FRONT_MATTER.sub("", markdown))
    for pattern in NOT_PROSE:
        text = pattern.sub(" ", text)
    return text


def chinese_texts():
    """(where, text) for every Chinese text of the course."""
    for rel, path in sorted(language_pages(DOCS, "zh").items()):
        yield f"docs/zh/{rel}", prose(path.read_text(encoding="utf-8"))
    for the_lab in labs().values():
        notebook = jupytext.read(REPO_ROOT / the_lab.notebook)
        text = "\n".join(c.source for c in notebook.cells if c.cell_type == "markdown" and c.metadata.get("lang") == "zh")
        yield the_lab.notebook, prose(text)
    for key, words in LABELS["zh"].items():
        yield f"label {key}", re.sub(r"\{\w*\}", " ", words)   # {threads}: a placeholder, not a word
    for script in ("access_explorer.js", "occupancy_calculator.js"):
        source = (WIDGETS / script).read_text(encoding="utf-8")
        for block in re.findall(r"^    zh: \{\n(.*?)^    \},", source, re.MULTILINE | re.DOTALL):
            strings = [a or b for a, b in re.findall(r'"([^"\n]*)"|`([^`\n]*)`', block)]
            yield f"labkit/site/assets/{script}", " ".join(strings)


TEXTS = list(chinese_texts())
#: Pages whose Chinese text their own helpers bring to the glossary (chapters 1-5: text13 and text45).
CHAPTERS = re.compile(r"^docs/zh/performance/0[1-5]-")


@pytest.mark.parametrize("where, text", [pytest.param(*t, id=t[0]) for t in TEXTS if not CHAPTERS.match(t[0])])
def test_chinese_text_holds_to_the_glossary(where, text):
    problems = glossary_problems(text)
    assert not problems, f"{where}:\n" + "\n".join(problems[:20])


@pytest.mark.parametrize("where, text", [pytest.param(*t, id=t[0]) for t in TEXTS if CHAPTERS.match(t[0])])
def test_chinese_chapters_hold_to_the_glossary(where, text):
    problems = glossary_problems(text)
    assert not problems, f"{where}: {len(problems)} variants:\n" + "\n".join(problems[:30])


def test_the_texts_are_all_there():
    kinds = {where.split(" ")[0].split("/")[0] for where, _ in TEXTS}
    assert {"docs", "labs", "label", "labkit"} <= kinds
    assert {where for where, _ in TEXTS if where.startswith("labkit/")} == {
        "labkit/site/assets/access_explorer.js", "labkit/site/assets/occupancy_calculator.js"}


def test_each_concept_has_one_term_and_the_check_finds_each_variant():
    assert len({t.concept for t in GLOSSARY}) == len(GLOSSARY)
    text = ("共享内存、扇区、bank conflict、线程块、网格、线程束、波前、通道、二级缓存、合并访问、时延、吞吐、频宽、执行绪、"
            "occupancy 和 Occupancy 与延迟")
    found = {problem.split("'")[1] for problem in glossary_problems(text)}
    assert found == {"共享内存", "扇区", "bank conflict", "线程块", "网格", "线程束", "波前", "通道", "二级缓存", "合并访问",
                     "时延", "吞吐", "频宽", "执行绪", "occupancy", "Occupancy"}
    allowed = ("占用率（occupancy）、Achieved Occupancy、ncu 的 Occupancy section、`cuda_occupancy.h`、threadIdx.x、"
               "L2 缓存、bank 冲突、shared memory、吞吐量")
    assert glossary_problems(prose(allowed)) == []
    # ncu's section named in a sentence, a gloss with a remark, English quotations (titles, tool
    # messages), and Chinese words that only look like a variant (小块数据, 饱和时延迟).
    named = ("Occupancy 一节指出了这一点；**占用率**（occupancy，Nsight Compute 里的叫法）；"
             "*Understanding Latency Hiding on GPUs*；“Coalesced Access to Global Memory”；"
             "“*utilized by each thread*”；*thread block cluster*；小块数据；饱和时延迟会上升")
    assert glossary_problems(prose(named)) == []
    # but a lone English word in italics or quotes, or a quotation in Chinese, is still prose
    still = "*occupancy* 很高；“thread”；“提高 occupancy 的办法”；Occupancy 与延迟；时延；块数"
    found = [problem.split("'")[1] for problem in glossary_problems(prose(still))]
    assert found == ["occupancy", "occupancy", "Occupancy", "块数", "时延", "thread"]
    assert "mermaid" not in prose('```mermaid\nA["共享内存"]\n```') and glossary_problems(prose('```mermaid\nA["共享内存"]\n```'))
