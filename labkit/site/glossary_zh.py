"""The Chinese glossary: one term per concept, in prose, tables, labels and hints.

Each entry names the concept (its English name), the one term the Chinese pages use, and the
variants they must not use (regular expressions over prose: code, math, links' targets and
identifiers are not prose). tests/docs/test_glossary_zh.py holds every Chinese page, the Chinese
cells of the lab notebooks, every Chinese label (labkit/report/labels/) and the widgets' Chinese
words to it.

Nsight Compute's own names stay as ncu spells them: its sections (Occupancy, Memory Workload
Analysis...) and metrics (Achieved Occupancy, sm__warps_active...). So "Occupancy" with a capital,
as a section's or a metric's name, is allowed; "occupancy" as a word of a Chinese sentence is not
(占用率), nor "Occupancy" followed by Chinese words ("Occupancy 与延迟"), but the section named in a
Chinese sentence is ("Occupancy 一节"). A gloss of the English word beside the Chinese term
(占用率（occupancy）, 占用率（occupancy，Nsight Compute 里的叫法）) is allowed, and so are the course's
English names of a kernel's limit (memory-bound, compute-bound, latency-bound).

An English quotation is not Chinese prose: a title, a tool's message or an English name quoted in
“…” or in italics (*Understanding Latency Hiding on GPUs*, “Coalesced Access to Global Memory”,
*thread block cluster*) keeps its words. A quotation is exempt when it holds no Chinese character
and at least two words, so that a lone English word set in italics (*occupancy*) is still checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Not part of a longer Latin word or identifier (cuda_occupancy.h, threadIdx).
_WORD_START = r"(?<![A-Za-z_./-])"
_WORD_END = r"(?![A-Za-z_.(])"


@dataclass(frozen=True)
class Term:
    concept: str                  # the English name of the concept
    term: str                     # the one Chinese term
    forbidden: tuple[str, ...]    # regular expressions of the variants prose must not use

    def problems(self, text: str) -> list[str]:
        """Each forbidden variant found in ``text``, with a little context."""
        found = []
        for pattern in self.forbidden:
            for match in re.finditer(pattern, text):
                start = max(0, match.start() - 12)
                found.append(f"'{match.group(0)}' for {self.concept} (write {self.term}): "
                             f"…{text[start:match.end() + 12]}…")
        return found


GLOSSARY: tuple[Term, ...] = (
    Term("occupancy", "占用率", (
        _WORD_START + r"occupancy" + _WORD_END,                    # the English word in a sentence
        _WORD_START + r"Occupancy(?=\s*[\u4e00-\u9fff])(?!\s*一节)",  # not ncu's name: Occupancy 与延迟
        r"占有率", r"占用度",
    )),
    Term("shared memory", "shared memory", (r"共享内存", r"共享存储器", r"共享记忆体")),
    Term("sector", "sector", (r"扇区",)),
    Term("bank conflict", "bank 冲突", (r"(?i)bank[ -]?conflicts?", r"bank冲突", r"存储体冲突", r"存储库冲突")),
    Term("block", "block", (r"线程块", r"块数(?!据)", r"每个块")),       # 小块数据: a chunk of data
    Term("grid", "grid", (r"网格",)),
    Term("warp", "warp", (r"线程束", r"卷绕")),
    Term("wavefront", "wavefront", (r"波前", r"波阵面")),
    Term("lane", "lane", (r"通道", r"车道")),
    Term("L1 / L2", "L1、L2", (r"一级缓存", r"二级缓存")),
    Term("coalescing", "合并访存", (r"合并访问", r"访存合并", r"访问合并", r"内存合并", r"聚合访问",
                                 _WORD_START + r"(?i:coalesc(?:ing|ed|e))" + _WORD_END)),
    Term("register", "寄存器", (r"暂存器",)),
    Term("latency", "延迟", (r"时延(?!迟)", r"延时",                  # 饱和时延迟: 时 + 延迟
                           _WORD_START + r"(?i:latency)(?!-bound)" + _WORD_END)),
    Term("throughput", "吞吐量", (r"吞吐(?!量)", r"通量")),
    Term("bandwidth", "带宽", (r"频宽",)),
    Term("thread", "线程", (r"执行绪", _WORD_START + r"threads?" + _WORD_END)),
    Term("lever (levier)", "手段", (r"对策",)),
    Term("stall reason", "stall 原因", (r"停顿", r"停滞原因", r"阻塞原因")),
    Term("slice along K (tranche)", "段", (r"分片", r"切片")),
    Term("tile", "tile", (r"瓦片", r"瓷砖")),
)

#: Glosses of an English word beside its Chinese term: 占用率（occupancy）, **占用率**（occupancy，…）.
GLOSS = re.compile(r"(?:\*{0,2}occupancy\*{0,2}（占用率）|占用率\*{0,2}（\*{0,2}occupancy\*{0,2}(?=[）,，]))")

#: A quotation in “…” or in single-asterisk italics (the text between the marks is group 1 or 2).
QUOTATION = re.compile(r"“([^“”\n]*)”|(?<!\*)\*(?![*\s])([^*\n]+?)(?<![*\s])\*(?!\*)")
CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _english_quotation(match: re.Match) -> str:
    """A quotation without Chinese and of two words or more becomes a space; others stay."""
    quoted = match.group(1) if match.group(1) is not None else match.group(2)
    return " " if not CHINESE.search(quoted) and len(quoted.split()) >= 2 else match.group(0)


def glossary_problems(text: str) -> list[str]:
    """Every variant the glossary forbids in a piece of Chinese prose."""
    text = QUOTATION.sub(_english_quotation, GLOSS.sub("占用率", text))
    return [problem for term in GLOSSARY for problem in term.problems(text)]
