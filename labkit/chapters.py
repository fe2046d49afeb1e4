"""The course's chapters, by number: each one's page, relative to ``docs/<lang>/`` (the same path
in both languages). One place: the labs, the exercises, the checklist's references, the checklist
block and the site's search terms name a chapter by its number; the site's navigation lists these
pages (tests/docs/test_chapters.py holds the two together)."""

from __future__ import annotations

CHAPTERS: dict[int, str] = {
    1: "performance/01-roofline.md",
    2: "performance/02-coalescing.md",
    3: "performance/03-occupancy.md",
    4: "performance/04-profiling.md",
    5: "performance/05-checklist.md",
    6: "performance/06-matmul.md",
}


def page(number: int) -> str:
    """Chapter ``number``'s page, relative to docs/<lang>/."""
    return CHAPTERS[number]
