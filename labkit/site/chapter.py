"""One chapter, both languages, checked in seconds: ``labkit chapter 03`` (``make check-chapter CH=03``).

What ``make test`` holds a chapter to, for that chapter alone and without building the rest of the site:

- its French and Chinese sources: the authoring mistakes (blocks and their options, figure names:
  labkit.site.authoring), parity (anchors, quizzes, blocks, diagrams: labkit.site.inventory), drift
  section by section (labkit.site.drift), Chinese typography (labkit.site.chinese_typography);
- its quizzes: each has its answer key in labkit.course.quizzes, no id is used twice in the course, and no
  quiz gives its key away by the lengths of its options (labkit.site.quiz_balance; the share of keys
  that are the longest option is a property of the whole course, which ``make test`` holds);
- each language's navigation lists the page;
- the strict MkDocs build of these two pages alone, in each language's configuration: the other
  pages are excluded (links to them are not followed; links and anchors within the chapter are),
  search and the notebooks' rendering are left out, the labkit plugin renders the blocks from the
  records, computes the figures and checks the translation's freshness;
- the two rendered pages: no ``[[figure]]`` left, and each quiz carrying its own key.

Every problem is one line naming the file; none stops the others from being looked for.
"""

from __future__ import annotations

import logging
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Iterator

from labkit.course.quizzes import ANSWER_KEY, Choice
from labkit.errors import LabkitError
from labkit.project import Project
from labkit.report.labels import LANGUAGES
from labkit.site import syntax
from labkit.site.authoring import authoring_problems
from labkit.site.build import CONFIGS
from labkit.site.chinese_typography import typography_problems
from labkit.site.drift import page_drift
from labkit.site.inventory import REFERENCE_LANG, language_pages, page_parity, unanchored_headings
from labkit.site.quiz_balance import MAX_LENGTH_RATIO, choice_quizzes

#: A chapter named by its number: docs/<lang>/performance/<NN>-<name>.md.
CHAPTER_FOLDER = "performance"


class ChapterError(LabkitError):
    """No such chapter, or one that exists in one language only."""


@dataclass(frozen=True)
class Chapter:
    page: str                  # relative to each language's docs folder: performance/03-occupancy.md
    sources: dict[str, Path]   # language -> its Markdown file


def find_chapter(project: Project, name: str) -> Chapter:
    """The chapter ``name`` (``3``, ``03`` or a page path such as ``performance/index.md``), in every language."""
    pages = {lang: language_pages(project.docs_dir, lang) for lang in LANGUAGES}
    reference = pages[REFERENCE_LANG]
    if name.isdigit():
        found = [page for page in reference if re.fullmatch(rf"{CHAPTER_FOLDER}/0*{int(name)}-[^/]+\.md", page)]
    else:
        found = [page for page in reference if page == name.removeprefix(f"docs/{REFERENCE_LANG}/")]
    if len(found) != 1:
        chapters = sorted(page.split("/")[-1].split("-")[0] for page in reference
                          if re.fullmatch(rf"{CHAPTER_FOLDER}/\d+-[^/]+\.md", page))
        raise ChapterError(f"no chapter {name!r} in docs/{REFERENCE_LANG}/: give a number ({', '.join(chapters)}) "
                           f"or a page path such as {CHAPTER_FOLDER}/index.md")
    page = found[0]
    missing = [lang for lang in LANGUAGES if page not in pages[lang]]
    if missing:
        raise ChapterError(f"docs/{missing[0]}/{page} is missing (docs/{REFERENCE_LANG}/{page} exists): "
                           "a chapter lands in both languages together")
    return Chapter(page, {lang: pages[lang][page] for lang in LANGUAGES})


def source_problems(project: Project, chapter: Chapter) -> list[str]:
    """Authoring, parity, drift, typography and quiz problems of the chapter's sources."""
    texts = {lang: path.read_text(encoding="utf-8") for lang, path in chapter.sources.items()}
    problems = []
    for lang, text in texts.items():
        where = f"docs/{lang}/{chapter.page}"
        first_line = syntax.front_matter_lines(text) + 1
        body = text.split("\n", first_line - 1)[-1] if first_line > 1 else text
        problems += [f"{where}, {problem}" for problem in authoring_problems(body, first_line)]
        problems += [f"{where}: heading without an explicit {{#anchor}}: {h}" for h in unanchored_headings(text)]
        problems += quiz_problems(project, text, where)
    if "zh" in texts:
        problems += typography_problems(texts["zh"], f"docs/zh/{chapter.page}")
    for lang, text in texts.items():
        if lang != REFERENCE_LANG:
            problems += page_parity(chapter.page, texts[REFERENCE_LANG], text, lang)
            problems += page_drift(chapter.page, texts[REFERENCE_LANG], text, lang)
    return problems


def quiz_problems(project: Project, text: str, where: str) -> list[str]:
    """The page's quizzes: a key each, an id the course uses once, option lengths within bounds."""
    lang = where.split("/")[1]
    ids = [block.id for block in syntax.blocks(syntax.read_page(text)) if block.kind == "quiz"]
    elsewhere = [block.id for page, path in language_pages(project.docs_dir, lang).items()
                 if f"docs/{lang}/{page}" != where
                 for block in syntax.blocks(syntax.read_page(path.read_text(encoding="utf-8"))) if block.kind == "quiz"]
    problems = [f"{where}: quiz {quiz_id} has no answer key: add it to labkit/course/quizzes.py"
                for quiz_id in ids if quiz_id not in ANSWER_KEY]
    problems += [f"{where}: quiz id {quiz_id} is used twice in docs/{lang}: give each quiz its own id"
                 for quiz_id in sorted(set(ids)) if ids.count(quiz_id) > 1 or quiz_id in elsewhere]
    problems += [f"{where}: quiz {quiz.quiz_id}: its longest option is {quiz.length_ratio:.1f} times its shortest "
                 f"(at most {MAX_LENGTH_RATIO:g})" for quiz in choice_quizzes(text) if quiz.length_ratio > MAX_LENGTH_RATIO]
    return problems


class _Collect(logging.Handler):
    """MkDocs' warnings and errors, one line each."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(" ".join(record.getMessage().split()))


@contextmanager
def _in_folder(folder: Path) -> Iterator[None]:
    """The build runs from the project's folder (pymdownx.snippets reads paths relative to it)."""
    before = Path.cwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def nav_pages(nav) -> set[str]:
    """Every page a MkDocs ``nav:`` lists, at any depth (titled or not)."""
    found: set[str] = set()
    for item in nav or []:
        values = item.values() if isinstance(item, dict) else [item]
        for value in values:
            if isinstance(value, str):
                found.add(value)
            else:
                found |= nav_pages(value)
    return found


def nav_problems(project: Project, chapter: Chapter) -> list[str]:
    """The chapter's page missing from a language's navigation (the strict build of the whole site refuses it)."""
    from mkdocs.config import load_config

    problems = []
    for lang in LANGUAGES:
        with _in_folder(project.root):
            nav = load_config(str(project.root / CONFIGS[lang])).nav
        if chapter.page not in nav_pages(nav):
            problems.append(f"docs/{lang}/{chapter.page}: not in the nav: of {CONFIGS[lang]}: list it there "
                            "(every page must be)")
    return problems


def build_pages(project: Project, lang: str, pages: list[str], site_dir: Path) -> list[str]:
    """The strict build of ``pages`` alone (paths under docs/<lang>/) with the language's
    configuration, into site_dir (the language's root under it): MkDocs' warnings and errors, one
    line each; none when it built. In this process: the other pages excluded, the site's own
    plugin only (no search index), the notebooks plain files rather than pages (none is run)."""
    os.environ.setdefault("NO_MKDOCS_2_WARNING", "1")
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    collect, logger = _Collect(), logging.getLogger("mkdocs")
    logger.addHandler(collect)
    try:
        with _in_folder(project.root):
            config = load_config(str(project.root / CONFIGS[lang]), strict=True,
                                 site_dir=str((site_dir / LANGUAGES[lang]["root"]).resolve()), nav=list(pages),
                                 exclude_docs="*.md\n" + "".join(f"!/{page}\n" for page in pages),
                                 plugins={"labkit": {"lang": lang, "notebooks": False}})
            build(config)
    except MkDocsException as exc:
        if not collect.lines or not str(exc).startswith("Aborted with"):
            collect.lines.append(" ".join(str(exc).split()))
    finally:
        logger.removeHandler(collect)
    return collect.lines


def build_problems(project: Project, chapter: Chapter, site_dir: Path) -> list[str]:
    """The strict build of the chapter's page in each language into site_dir, then its rendered page."""
    problems = []
    for lang in LANGUAGES:
        where = f"docs/{lang}/{chapter.page}"
        lines = build_pages(project, lang, [chapter.page], site_dir)
        problems += [f"{where} (build, {CONFIGS[lang]}): {line}" for line in lines]
        html = site_dir / LANGUAGES[lang]["root"] / _page_url(chapter.page)
        if not lines and html.is_file():
            problems += rendered_problems(html.read_text(encoding="utf-8"), f"{where} (rendered)")
    return problems


def _page_url(page: str) -> str:
    """Where MkDocs writes a page with directory URLs: a/b.md -> a/b/index.html, a/index.md -> a/index.html."""
    stem = page.removesuffix(".md")
    return f"{stem.removesuffix('index')}index.html" if stem.endswith("index") else f"{stem}/index.html"


class _Quizzes(HTMLParser):
    """The data-quiz-id and data-answer of each rendered quiz."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if "data-quiz-id" in values:
            self.found.append((values["data-quiz-id"] or "", values.get("data-answer")))


def rendered_problems(html: str, where: str) -> list[str]:
    """A rendered page: no figure placeholder left, each quiz carrying its key."""
    problems = [f"{where}: {match.group(0)} was not replaced" for match in syntax.FIGURE.finditer(html)]
    parser = _Quizzes()
    parser.feed(html)
    for quiz_id, answer in parser.found:
        key = ANSWER_KEY.get(quiz_id)
        if key is None:
            continue
        expected = key.answer if isinstance(key, Choice) else repr(key.expected)
        if answer != expected:
            problems.append(f"{where}: quiz {quiz_id} renders the answer {answer!r}, its key is {expected!r}")
    return problems


def check_chapter(project: Project, name: str, site_dir: Path) -> tuple[Chapter, list[str]]:
    """Every problem of the chapter ``name`` in every language (see the module docstring)."""
    chapter = find_chapter(project, name)
    return chapter, (source_problems(project, chapter) + nav_problems(project, chapter)
                     + build_problems(project, chapter, site_dir))
