"""What each page of each language holds, read from the Markdown: the parity check's input.

French is the reference; every other language must have the same pages, and in each page
the same heading anchors, quizzes (with the same option letters), lab blocks and Mermaid
diagrams, in the same order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from pathlib import Path

from labkit.report.labels import LANGUAGES

REFERENCE_LANG = "fr"

HEADING_ANCHOR = re.compile(r"^#{2,3} .*\{[^}]*#([\w-]+)[^}]*\}\s*$", re.MULTILINE)
HEADING = re.compile(r"^#{2,3} .*$", re.MULTILINE)
FENCE = re.compile(r"^```.*?^```", re.MULTILINE | re.DOTALL)
BLOCK = re.compile(r"^/// *(quiz|lab|checklist|profile|diagnosis) *\| *([\w-]+)\s*$(.*?)^///\s*$",
                   re.MULTILINE | re.DOTALL)
OPTION = re.compile(r"^- \(([a-z])\) ", re.MULTILINE)
MERMAID = re.compile(r"^```mermaid\s*$", re.MULTILINE)


@dataclass(frozen=True)
class PageInventory:
    anchors: tuple[str, ...]
    quizzes: tuple[str, ...]          # "id" or "id:abcd" (with the option letters)
    labs: tuple[str, ...]
    records: tuple[str, ...]          # "kind:id" of the other blocks that render records (checklist, profile...)
    mermaid_diagrams: int


def page_inventory(text: str) -> PageInventory:
    quizzes, labs, records = [], [], []
    for kind, block_id, body in BLOCK.findall(text):
        if kind == "lab":
            labs.append(block_id)
        elif kind != "quiz":
            records.append(f"{kind}:{block_id}")
        else:
            letters = "".join(OPTION.findall(body))
            quizzes.append(f"{block_id}:{letters}" if letters else block_id)
    return PageInventory(
        anchors=tuple(HEADING_ANCHOR.findall(text)),
        quizzes=tuple(quizzes),
        labs=tuple(labs),
        records=tuple(records),
        mermaid_diagrams=len(MERMAID.findall(text)),
    )


def unanchored_headings(text: str) -> list[str]:
    """## and ### headings (outside code fences) without an explicit {#anchor}: parity needs one each."""
    prose = FENCE.sub("", text)
    return [h for h in HEADING.findall(prose) if not HEADING_ANCHOR.match(h)]


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
            ours = page_inventory(reference[page].read_text(encoding="utf-8"))
            theirs = page_inventory(other[page].read_text(encoding="utf-8"))
            for field in fields(PageInventory):
                a, b = getattr(ours, field.name), getattr(theirs, field.name)
                if a != b:
                    problems.append(
                        f"docs/{lang}/{page}: {field.name} differ from docs/{REFERENCE_LANG}/{page}: "
                        f"{REFERENCE_LANG} has {a}, {lang} has {b}"
                    )
    return problems
