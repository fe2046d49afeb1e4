"""The usual names of what each chapter teaches, for the site's search: a reader who types one
of them finds the chapter that teaches the notion first.

They go into each page's search entry as tags (labkit's plugin sets ``page.meta["tags"]``; the
tags plugin is not used, so they are never displayed on the page), a field Material's search
weighs far above the text (boost 10^6 against 1): "occupation", the word a French reader may
type, finds chapter 3 though the course says "occupancy"; "占用率" puts chapter 3 before the
notebooks and chapters that only mention it. One word per tag: the search index keeps a tag
whole, it does not split it.
"""

from __future__ import annotations


from labkit.chapters import page
SEARCH_TERMS: dict[str, dict[str, tuple[str, ...]]] = {
    page(1): {
        "fr": ("roofline", "intensité", "arithmétique", "borne"),
        "zh": ("roofline", "算术强度", "屋顶", "屋顶线"),
    },
    page(2): {
        "fr": ("coalescence", "coalescing", "banc", "bancs", "wavefront", "secteur", "secteurs"),
        "zh": ("合并访存", "bank", "冲突", "wavefront", "sector", "共享内存"),
    },
    page(3): {
        "fr": ("occupancy", "occupation", "latence", "little", "registres"),
        "zh": ("占用率", "occupancy", "延迟", "little"),
    },
    page(4): {
        "fr": ("profilage", "profileur", "nsight", "ncu", "nsys"),
        "zh": ("性能剖析", "剖析", "nsight", "ncu", "nsys"),
    },
    page(5): {
        "fr": ("checklist", "diagnose"),
        "zh": ("优化清单", "清单", "diagnose"),
    },
    page(6): {
        "fr": ("tuile", "tuiles", "tiling", "gemm", "wgmma"),
        "zh": ("共享内存", "张量核心", "分块", "gemm", "wgmma"),
    },
}


def search_terms(page: str, lang: str) -> list[str]:
    """The tags of a page (its path under docs/<lang>/) in a language; none for most pages."""
    return list(SEARCH_TERMS.get(page, {}).get(lang, ()))
