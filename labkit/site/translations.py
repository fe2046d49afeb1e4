"""Translation freshness: each page of another language records which version of its French
source it translates, as ``translation_of: <digest>`` in its front matter.

The digest is the first 12 hex digits of the SHA-256 of the French page's text, quoted so that
YAML reads it as a string. When the
French page changes, the digests differ: the translated page gets a banner saying so, and
``labkit translations`` lists it. Once the translation is brought up to date,
``labkit translations --mark-fresh docs/zh/PAGE.md`` records the new digest.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from labkit.errors import LabkitError
from labkit.project import Project
from labkit.report.labels import LANGUAGES
from labkit.site.inventory import REFERENCE_LANG, language_pages

FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.DOTALL)
MARKER = re.compile(r"^translation_of:\s*\"?([0-9a-f]+)\"?\s*$", re.MULTILINE)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def recorded_digest(text: str) -> str | None:
    """The ``translation_of`` digest in the page's front matter, or None."""
    front = FRONT_MATTER.match(text)
    if not front:
        return None
    marker = MARKER.search(front.group(1))
    return marker.group(1) if marker else None


def with_digest(text: str, new_digest: str) -> str:
    """The page with ``translation_of: new_digest`` in its front matter (added or replaced)."""
    front = FRONT_MATTER.match(text)
    if not front:
        return f'---\ntranslation_of: "{new_digest}"\n---\n{text}'
    body = front.group(1)
    line = f'translation_of: "{new_digest}"'
    body = MARKER.sub(line, body) if MARKER.search(body) else f"{body}\n{line}"
    return f"---\n{body}\n---\n{text[front.end():]}"


@dataclass(frozen=True)
class TranslationStatus:
    page: Path          # the translated page
    source: Path        # its French source
    state: str          # "fresh", "stale" or "unmarked"


def statuses(docs_dir: Path) -> list[TranslationStatus]:
    """Every translated page that has a French source, with its state."""
    reference = language_pages(docs_dir, REFERENCE_LANG)
    out = []
    for lang in LANGUAGES:
        if lang == REFERENCE_LANG:
            continue
        for rel, page in language_pages(docs_dir, lang).items():
            if rel not in reference:
                continue
            recorded = recorded_digest(page.read_text(encoding="utf-8"))
            current = digest(reference[rel].read_text(encoding="utf-8"))
            state = "unmarked" if recorded is None else ("fresh" if recorded == current else "stale")
            out.append(TranslationStatus(page, reference[rel], state))
    return out


class TranslationError(LabkitError):
    """A page that --mark-fresh cannot mark."""


def mark_fresh(project: Project, page: str | Path) -> str:
    """Record in ``page`` (a translated page, docs/<lang>/...) the digest of its French source as
    it is now; returns the digest. Anything else is refused, and nothing is written."""
    docs = project.docs_dir.resolve()
    path = Path(page) if Path(page).is_absolute() else Path.cwd() / page
    try:
        rel = path.resolve().relative_to(docs)
    except ValueError:
        raise TranslationError(f"{page}: not a page of {project.relative(docs)}/: --mark-fresh takes a translated "
                               f"page, e.g. docs/zh/index.md") from None
    lang = rel.parts[0]
    if lang == REFERENCE_LANG or lang not in LANGUAGES or len(rel.parts) < 2 or rel.suffix != ".md":
        raise TranslationError(f"{page}: not a translated page: --mark-fresh takes a page of "
                               f"{', '.join(f'docs/{code}/' for code in LANGUAGES if code != REFERENCE_LANG)} "
                               f"(docs/{REFERENCE_LANG}/ holds the sources)")
    if not path.is_file():
        raise TranslationError(f"{page}: no such page")
    source = docs / REFERENCE_LANG / Path(*rel.parts[1:])
    if not source.is_file():
        raise TranslationError(f"{page}: its source docs/{REFERENCE_LANG}/{Path(*rel.parts[1:]).as_posix()} does "
                               "not exist")
    new_digest = digest(source.read_text(encoding="utf-8"))
    path.write_text(with_digest(path.read_text(encoding="utf-8"), new_digest), encoding="utf-8")
    return new_digest
