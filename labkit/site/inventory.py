"""What each page of each language holds, read from the Markdown: the parity check's input.

French is the reference; every other language must have the same pages, and in each page
the same heading anchors, quizzes (with the same option letters), lab blocks, other blocks
(exercises, checklists, profiles, diagnoses) and Mermaid diagrams, in the same order. The page
is read by labkit.site.syntax: a block or heading quoted in a code fence is not one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path

from labkit.report.labels import LANGUAGES
from labkit.site import syntax

REFERENCE_LANG = "fr"

#: A quiz option line: ``- (a) ...``.
OPTION = re.compile(r"^- \(([a-z])\) ", re.MULTILINE)
#: The heading levels that cut a page into sections (parity and drift need an anchor on each).
SECTION_LEVELS = (2, 3)


@dataclass(frozen=True)
class PageInventory:
    anchors: tuple[str, ...]
    quizzes: tuple[str, ...]          # "id" or "id:abcd" (with the option letters)
    labs: tuple[str, ...]
    records: tuple[str, ...]          # "kind:id" of the other blocks (exercise, checklist, profile...)
    mermaid_diagrams: int


def page_inventory(text: str) -> PageInventory:
    elements = syntax.read_page(text)
    quizzes, labs, records = [], [], []
    for block in syntax.blocks(elements):
        if block.kind == "lab":
            labs.append(block.id)
        elif block.kind != "quiz":
            records.append(f"{block.kind}:{block.id}")
        else:
            letters = "".join(OPTION.findall(block.prose))
            quizzes.append(f"{block.id}:{letters}" if letters else block.id)
    return PageInventory(
        anchors=tuple(h.anchor for h in syntax.headings(elements) if h.level in SECTION_LEVELS and h.anchor),
        quizzes=tuple(quizzes),
        labs=tuple(labs),
        records=tuple(records),
        mermaid_diagrams=sum(1 for e in elements if isinstance(e, syntax.Fence) and e.language == "mermaid"),
    )


def unanchored_headings(text: str) -> list[str]:
    """## and ### headings (outside code fences) without an explicit {#anchor}: parity needs one each."""
    return [h.text for h in syntax.headings(syntax.read_page(text)) if h.level in SECTION_LEVELS and not h.anchor]


def language_pages(docs_dir: Path, lang: str) -> dict[str, Path]:
    """Relative path -> file, for every Markdown page of one language."""
    root = docs_dir / lang
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*.md"))}


def parity_problems(docs_dir: Path) -> list[str]:
    """Each difference between the reference language and another, as a sentence naming the file."""
    problems = []
    for lang in LANGUAGES:
        for page, path in language_pages(docs_dir, lang).items():
            for heading in unanchored_headings(path.read_text(encoding="utf-8")):
                problems.append(f"docs/{lang}/{page}: heading without an explicit {{#anchor}}: {heading}")
    reference = language_pages(docs_dir, REFERENCE_LANG)
    for lang in LANGUAGES:
        if lang == REFERENCE_LANG:
            continue
        other = language_pages(docs_dir, lang)
        for missing in sorted(reference.keys() - other.keys()):
            problems.append(f"docs/{lang}/{missing} is missing (docs/{REFERENCE_LANG}/{missing} exists)")
        for extra in sorted(other.keys() - reference.keys()):
            problems.append(f"docs/{lang}/{extra} has no docs/{REFERENCE_LANG}/{extra} counterpart")
        for page in sorted(reference.keys() & other.keys()):
            problems += page_parity(page, reference[page].read_text(encoding="utf-8"),
                                    other[page].read_text(encoding="utf-8"), lang)
    return problems


def page_parity(page: str, reference_text: str, other_text: str, lang: str) -> list[str]:
    """Each item of the inventory in which a page and its translation differ."""
    ours, theirs = page_inventory(reference_text), page_inventory(other_text)
    return [
        f"docs/{lang}/{page}: {field.name} differ from docs/{REFERENCE_LANG}/{page}: "
        f"{REFERENCE_LANG} has {getattr(ours, field.name)}, {lang} has {getattr(theirs, field.name)}"
        for field in fields(PageInventory) if getattr(ours, field.name) != getattr(theirs, field.name)
    ]
