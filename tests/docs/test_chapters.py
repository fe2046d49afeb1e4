"""One chapter catalogue (labkit.chapters, issue 34): the navigation of both sites lists exactly its
pages, in its order, each page exists in both languages, and no other labkit module spells a
chapter's path."""

import re

from labkit.chapters import CHAPTERS
from tests.conftest import REPO_ROOT

CHAPTER_PATH = re.compile(r"""["']performance/\d\d-[a-z-]+\.md["']""")


def _nav_pages(config: str) -> list[str]:
    """The chapter pages (performance/NN-*.md) a site's nav lists as its entries, in its order."""
    text = (REPO_ROOT / config).read_text(encoding="utf-8")
    return re.findall(r"^\s*-\s*(?:[^:\n]+:\s*)?(performance/\d\d-[a-z-]+\.md)\s*$", text, re.M)


def test_both_navigations_list_the_catalogue_in_order():
    for config in ("mkdocs.yml", "docs/mkdocs.zh.yml"):
        assert _nav_pages(config) == list(CHAPTERS.values()), config


def test_every_chapter_page_exists_in_both_languages():
    for page in CHAPTERS.values():
        for lang in ("fr", "zh"):
            assert (REPO_ROOT / "docs" / lang / page).is_file(), (lang, page)


def test_no_other_module_spells_a_chapter_path():
    spelled = [str(path.relative_to(REPO_ROOT)) for path in (REPO_ROOT / "labkit").rglob("*.py")
               if path.name != "chapters.py" and CHAPTER_PATH.search(path.read_text(encoding="utf-8"))]
    assert not spelled, spelled
