"""One content in two languages: section by section, the French and Chinese pages hold the same
code, admonitions, lists, tables, numbers, figures and links (labkit.site.drift).

The parametrized test puts back, one at a time, each divergence that issue 12 listed between the
two languages, in a copy of the pages, and expects the drift check to name it.
"""

import shutil
from dataclasses import dataclass

import pytest

from labkit.site.drift import (
    drift_problems,
    mermaid_structure,
    page_drift,
    page_sections,
    prose_numbers,
    strip_comments,
)
from tests.conftest import DOCS


def test_languages_say_the_same_thing():
    problems = drift_problems(DOCS)
    assert not problems, "the languages drifted apart:\n" + "\n".join(problems)


# ----- the pieces ------------------------------------------------------------------------------

@pytest.mark.parametrize("text, number", [
    ("1,25 fois", "1.25"),
    ("1.25 倍", "1.25"),
    ("2\u202f900 Go/s", "2900"),
    ("2,900 GB/s", "2900"),
    ("约 2.68 亿个元素", "268000000"),
    ("3 万", "30000"),
    ("只需要两分钟", "2"),
    ("慢了三倍", "3"),
    ("第4章", "4"),
])
def test_numbers_are_normalised_across_languages(text, number):
    assert prose_numbers(text) == {number}


@pytest.mark.parametrize("text", ["H100 SXM", "FP32 et L2", "sm_90", "un warp", "一个 kernel，一次启动"])
def test_names_and_articles_are_not_numbers(text):
    assert prose_numbers(text) == set()


def test_code_is_compared_without_its_comments():
    assert strip_comments("x.item()   # synchronise\n", "python") == strip_comments("x.item()  # 同步\n", "python")
    assert strip_comments("f(); // durée\n/* bloc */ g();", "cpp") == strip_comments("f(); // 耗时\ng();", "cpp")
    assert strip_comments("ncu -k k  # noyau\n", "bash") != strip_comments("ncu -k other  # noyau\n", "bash")
    assert strip_comments('echo "# not a comment"', "bash") == 'echo "# not a comment"'


def test_a_mermaid_diagram_is_its_nodes_and_edges():
    fr = 'flowchart TD\n  A["début"] -->|"oui"| B{"fin ?"}\n'
    zh = 'flowchart TD\n  A["开始"] -->|"是"| B{"结束？"}\n'
    assert mermaid_structure(fr) == mermaid_structure(zh) == "flowchart TD\nA --> B"
    assert mermaid_structure(fr) != mermaid_structure(zh.replace("| B{", "| C{"))


def test_sections_follow_anchors_and_blocks():
    text = ("---\ntranslation_of: \"x\"\n---\n# T\nIntro 1.\n## A {#a}\n- one\n- two\n\n!!! note \"N\"\n    x\n"
            "/// quiz | q1\nQ?\n\n- (a) x\n- (b) y\n\nWhy `z`.\n///\n## B {#b}\n| x | y |\n|---|---|\n| 1 | 2 |\n")
    sections = page_sections(text)
    assert list(sections) == ["top", "a", "quiz:q1", "b"]
    assert sections["a"].list_items == 2 and sections["a"].admonitions == ["note"]
    assert sections["quiz:q1"].list_items == 2 and sections["quiz:q1"].inline_code["z"] == 1
    assert sections["b"].tables == ["2 columns x 2 rows"] and sections["b"].numbers == {"1", "2"}


def test_a_problem_names_the_page_the_section_and_the_item():
    fr = "## A {#a}\nVoir [ici](#b), `ncu`, [[h100.ridge]] et 3 fois.\n"
    zh = "## A {#a}\n见这里，3 倍。\n"
    problems = page_drift("performance/x.md", fr, zh, "zh")
    assert "docs/zh/performance/x.md § a: inline code `ncu` is missing (in fr)" in problems
    assert "docs/zh/performance/x.md § a: figure [[h100.ridge]] is missing (in fr)" in problems
    assert "docs/zh/performance/x.md § a: link to #b is missing (in fr)" in problems
    assert len(problems) == 3


# ----- every divergence issue 12 listed, put back ------------------------------------------------

ROOFLINE, PROFILING, PART = "performance/01-roofline.md", "performance/04-profiling.md", "performance/index.md"


@dataclass(frozen=True)
class CutThrough:
    """Remove from the matched text through the first ``until`` after it: a whole block goes."""

    until: str

#: (what issue 12 listed, language, page, text in today's page, what it becomes, the section named)
DIVERGENCES = [
    # missing in Chinese
    ("CuPy median/min/max timing function", "zh", PROFILING,
     "```python\nimport statistics\n", CutThrough("```\n"), "measuring"),
    ("Memory Throughput caveat", "zh", PROFILING,
     '- “Memory Throughput” 是 `gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed`，'
     '即它*自己的*各个子指标（DRAM、L2、L1/TEX 以及它们之间的通路，`breakdown:` 会列出来）中最高的那一个，而不是这个 section 显示的各行中最高的那一个：在 lab 里，分块转置的 Memory Throughput 是 [[lab04.ncu.tiled.memory_pct]]%，而它的 L2 Cache Throughput 一行（`lts__throughput`）是 [[lab04.ncu.tiled.l2_pct]]%；\n', "", "speed-of-light"),
    ("CuPy -lineinfo tip", "zh", PROFILING,
     "，CuPy 的 `RawKernel` 则把 `-lineinfo` 选项传给编译器", "", "source-counters"),
    ("decimal-units note", "zh", ROOFLINE, '!!! note "十进制单位"\n', CutThrough("\n\n"), "intensity"),
    ("an add-only kernel reaches half of peak", "zh", ROOFLINE,
     "一个只做加法（`FADD`，每个 lane 每周期 1 FLOP）的 kernel，最多只能达到按 `FFMA` 计算的峰值的一半。", "",
     "t-min"),
    ("L2 caveat on GEMM tile loads", "zh", ROOFLINE,
     "相对 HBM 的强度其实更高（见[分层视角](#hierarchy)）。", "", "ex-gemm"),
    ("hierarchical-roofline source", "zh", ROOFLINE,
     "- C. Yang、T. Kurth、S. Williams，[*Hierarchical Roofline analysis for GPUs: Accelerating performance "
     "optimization for the NERSC-9 Perlmutter system*](https://doi.org/10.1002/cpe.5547)，*Concurrency and "
     "Computation: Practice and Experience*，2020。\n", "", "sources"),
    # missing in French
    ("memory-roof lever", "fr", PROFILING,
     "S'il est déjà au [toit de la DRAM](01-roofline.md#t-min),\nretoucher l'intérieur du noyau n'y changera rien : "
     "il faut déplacer moins d'octets.", "", "speed-of-light"),
    ("sector-count formula", "fr", PROFILING,
     "secteurs par requête : `l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum` ÷ "
     "`l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`", "secteurs par requête", "memory-workload"),
    ("lts__t_sector_hit_rate.pct", "fr", PROFILING,
     "| L2 Hit Rate, `lts__t_sector_hit_rate.pct` |", "| L2 Hit Rate |", "memory-workload"),
    ("set_float32_matmul_precision", "fr", PROFILING,
     '`torch.set_float32_matmul_precision("high")` (ou l\'ancien\n       '
     '`torch.backends.cuda.matmul.allow_tf32 = True`)', "`torch.backends.cuda.matmul.allow_tf32 = True`",
     "pytorch-profiler"),
    ("re-profile after each fix", "fr", PROFILING,
     " ; puis profiler à nouveau, en comparant au rapport précédent pris\ncomme [référence](#nsight-compute), "
     "et relire la liste, car les estimations changent après\nchaque correction.", ".", "rules"),
    ("the --trace options", "fr", PROFILING,
     "L'option `--trace` choisit ce qui est enregistré : `cuda` pour les appels à l'API CUDA et les\n"
     "noyaux, `nvtx` pour vos propres annotations ([plus bas](#nvtx)), `osrt` pour les appels au\n"
     "système d'exploitation (threads, verrous, attentes), `cudnn` et `cublas` pour les appels à ces\n"
     "bibliothèques. ", "", "nsight-systems"),
    ("precision-changes-intensity note", "fr", ROOFLINE,
     '!!! note "La précision change l\'intensité"\n', CutThrough("\n\n"), "intensity"),
    ("--set roofline", "fr", ROOFLINE,
     "que le jeu\n`--set roofline` réunit", "que le jeu réunit", "hierarchy"),
    # different
    ("the reduction paragraph", "zh", ROOFLINE,
     "它的强度比 SAXPY 略高，但这不重要：对 memory-bound 的 kernel，下限只取决于 $Q$。"
     "归约每个元素读 4 字节，SAXPY 要搬 12 字节：它的下限低 3 倍。",
     "归约的强度比 SAXPY 略高，但仍远低于 ridge point。", "ex-reduction"),
    ("the q04-l2-mirage explanation", "zh", PROFILING, "（[五条规则](#five-rules)中的第 5 条）", "", "quiz:q04-l2-mirage"),
    ("the q04-moved-bytes explanation", "zh", PROFILING,
     "这个倍数有助于判断：步长为 2 个元素只会让 sector 数翻倍（[[ch04.coalescing.stride2_factor]] 倍），"
     "起始地址不对齐每个 request 最多多出一个 sector（[[ch04.coalescing.misaligned_factor]] 倍）；"
     "[[ch04.traffic.excess_factor]] 倍的放大，需要更大的步长，或者数据被重复读取。",
     "三到四倍左右的放大，和步长为 2 或地址未对齐的访问相吻合。", "quiz:q04-moved-bytes"),
    ("the high/high row", "zh", PROFILING,
     "| 高 | 高 | 两个单元都接近上限 | 先弄清是哪两个（[Compute Workload Analysis](#compute-workload)、DRAM Throughput），"
     "再决定是否停手：被下标计算占满的管线不是一个有用的上限 |",
     "| 高 | 高 | 两边都很满 | 接近最优，可以停手 |", "speed-of-light"),
    ("the index table's columns", "fr", PART,
     "| $t_\\text{réel} / t_{\\min}$ | Verdict | Ensuite |\n|---|---|---|\n",
     "| $t_\\text{réel} / t_{\\min}$ | Verdict |\n|---|---|\n", "method"),
    ("quelques minutes vs 两分钟", "zh", PART, "它只要几分钟", "它只需要两分钟", "method"),
]


@pytest.mark.parametrize("what, lang, page, today, then, section", DIVERGENCES, ids=[d[0] for d in DIVERGENCES])
def test_each_listed_divergence_put_back_is_named(tmp_path, what, lang, page, today, then, section):
    docs = tmp_path / "docs"
    shutil.copytree(DOCS, docs)
    path = docs / lang / page
    text = path.read_text(encoding="utf-8")
    assert text.count(today) == 1, f"{what}: the test's text is no longer in docs/{lang}/{page}; update the test"
    if isinstance(then, CutThrough):
        start = text.index(today)
        end = text.index(then.until, start + len(today)) + len(then.until)
        text = text[:start] + text[end:]
    else:
        text = text.replace(today, then)
    path.write_text(text, encoding="utf-8")
    problems = drift_problems(docs)
    named = [p for p in problems if p.startswith(f"docs/zh/{page} § {section}:")]
    assert named, f"{what}: put back into docs/{lang}/{page}, it was not named; the check said {problems}"
