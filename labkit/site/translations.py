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

from labkit.site.inventory import REFERENCE_LANG, language_pages
from labkit.site.labels import LANGUAGES

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


def mark_fresh(page: Path, docs_dir: Path) -> str:
    """Record in ``page`` the digest of its French source as it is now; returns the digest."""
    rel = page.resolve().relative_to(docs_dir.resolve())
    source = docs_dir / REFERENCE_LANG / Path(*rel.parts[1:])
    new_digest = digest(source.read_text(encoding="utf-8"))
    page.write_text(with_digest(page.read_text(encoding="utf-8"), new_digest), encoding="utf-8")
    return new_digest
