"""The MkDocs plugin ``labkit``: one per language build.

- registers the quiz, lab, case, checklist and exercise Markdown blocks for the page's language;
- replaces ``[[figure.name]]`` in a page with the value computed in labkit.course.figures;
- adds the site's own assets, the lab notebooks (a page and an .ipynb in the site's language,
  labkit.site.notebook_page) and the KaTeX/Mermaid files taken from node_modules (npm, at set-up);
- points the language switcher of every page at the same page in the other language;
- on a translated page, checks ``translation_of`` against its French source (labkit.site.translations):
  a page that does not say what it translates fails the build, a stale one gets a banner;
- refuses, in one line naming the page and line, the authoring mistakes Markdown would otherwise
  print as literal text (labkit.site.authoring), front matter that is not YAML, an empty page, a
  block that disagrees with its twin in the other language (labkit.site.twins) and a figure whose
  computation fails.

Every mistake is one line naming the page (and its line or block) and the fix, no traceback. An
author learns every mistake of every page in one build: each is logged as an error when its page
is read or its block rendered, the build goes on, and it fails at the end (:meth:`on_post_build`)
if there was any. The course's folder is the one holding the MkDocs configuration
(labkit.project), never labkit's own location.
"""

from __future__ import annotations

import copy
import json
import logging
import posixpath
import re
from pathlib import Path

import yaml
from mkdocs.config import config_options
from mkdocs.config.base import Config
from mkdocs.exceptions import Abort, PluginError
from mkdocs.plugins import BasePlugin
from mkdocs.structure.files import File, Files
from mkdocs.utils.meta import YAML_RE

from labkit.commands import notebooks as notebook_service
from labkit.course.figures import FIGURES
from labkit.course.figures import render_figure
from labkit.errors import LabkitError
from labkit.labs.base import labs
from labkit.models import occupancy
from labkit.project import Project, find_project
from labkit.report.labels import LANGUAGES, label
from labkit.site import syntax
from labkit.site.authoring import FIGURE_PATTERN, authoring_problems
from labkit.site.case_block import DiagnosisExtension, ProfileExtension
from labkit.site.checklist_block import ChecklistExtension
from labkit.site.exercise_block import ExerciseExtension
from labkit.site.inventory import REFERENCE_LANG
from labkit.site.lab_block import LabExtension
from labkit.site.notebook_page import (NotebookError, ipynb_name, language_notebook, page_markdown,
                                       run_for_the_site)
from labkit.site.quiz_block import QuizExtension
from labkit.site.search_math import rewrite_search_index
from labkit.site.search_terms import search_terms
from labkit.site.translations import digest
from labkit.site.twins import twin_problems
from labkit.site.typography import typeset

OWN_ASSETS = Path(__file__).parent / "assets"
#: Templates that take precedence over Material's: a 404 page in both languages.
OVERRIDES = Path(__file__).parent / "overrides"

#: Vendor files copied into every build: (path under node_modules, path in the site).
VENDOR_FILES = {
    "katex/dist/katex.min.js": "assets/vendor/katex/katex.min.js",
    "katex/dist/katex.min.css": "assets/vendor/katex/katex.min.css",
    "katex/dist/contrib/auto-render.min.js": "assets/vendor/katex/auto-render.min.js",
    "mermaid/dist/mermaid.min.js": "assets/vendor/mermaid/mermaid.min.js",
    "iframe-worker/shim/index.js": "assets/vendor/iframe-worker/shim.js",
}
#: Opened from the disk (file://), browsers refuse to start the search's web worker: this shim
#: (Material's own, from npm) runs it in a hidden iframe instead. Only the archive loads it.
WORKER_SHIM = "assets/vendor/iframe-worker/shim.js"
KATEX_FONTS = "katex/dist/fonts"

EXTRA_CSS = ["assets/vendor/katex/katex.min.css", "assets/labkit/course.css"]
EXTRA_JAVASCRIPT = [
    "assets/vendor/katex/katex.min.js",
    "assets/vendor/katex/auto-render.min.js",
    "assets/vendor/mermaid/mermaid.min.js",
    "assets/labkit/course.js",
    "assets/labkit/math.js",
    "assets/labkit/typed_numbers.js",   # before the quizzes and widgets, which read numbers with it
    "assets/labkit/quiz.js",
    "assets/labkit/access_explorer.js",
    "assets/labkit/occupancy_data.js",
    "assets/labkit/occupancy_calculator.js",
]

HREFLANG_LINK = re.compile(r'(<(a|link)\b[^>]*?\bhref=")[^"]*("[^>]*?\bhreflang="([a-z]+)")')
#: The head's language alternates: for search engines, which need absolute addresses. Without a
#: site_url they are left out (Material would fetch each one's sitemap.xml, which a page opened
#: from the disk may not read: one console error each).
HEAD_ALTERNATE = re.compile(r'\s*<link\b[^>]*\brel="alternate"[^>]*\bhreflang="[a-z]+"[^>]*>')

log = logging.getLogger("mkdocs.plugins.labkit")


class LabkitConfig(Config):
    lang = config_options.Choice(tuple(LANGUAGES))
    #: The lab notebooks' pages and downloads (run at build time); the one-chapter check
    #: (labkit.site.chapter) builds without them, each notebook a plain file that links reach.
    notebooks = config_options.Type(bool, default=True)


def relative_href(from_path: str, to_path: str) -> str:
    """The href that leads from the site page at from_path to to_path (both site-root relative)."""
    from_dir = from_path if from_path.endswith("/") or not from_path else posixpath.dirname(from_path) + "/"
    href = posixpath.relpath("/" + to_path, "/" + from_dir)
    if not to_path or to_path.endswith("/"):
        href = "./" if href == "." else href + "/"
    return href


def ipynb_path(notebook: str) -> str:
    """Where a lab's downloadable notebook is in the site: ``labs/01-roofline/lab01.ipynb`` (the
    same path as in the project, where labkit.commands.notebooks writes it when configured)."""
    return notebook_service.ipynb_path(notebook)


def occupancy_data_script() -> str:
    """``assets/labkit/occupancy_data.js``: labkit.models.occupancy's table as the page's data, read by
    occupancy_calculator.js (one table for the course's calculator and the page's)."""
    return f"window.labkitOccupancyData = {json.dumps(occupancy.page_data())};\n"


def notebooks() -> list[tuple[str, str]]:
    """Every lab's notebook (a jupytext percent script) relative to the project, with its lab's id:
    each appears at the same path in both languages' sites."""
    return [(lab.notebook, lab.id) for lab in labs().values()]


def notebook_paths() -> list[str]:
    """Every lab's notebook, relative to the project (notebooks() without the lab ids)."""
    return [notebook for notebook, _ in notebooks()]


class NotebookPage(File):
    """A notebook's page: Markdown made by labkit.site.notebook_page, at the notebook's own path
    (the navigation names the .py) and URL (labs/01-roofline/lab01/)."""

    def is_documentation_page(self) -> bool:
        return True


class LabkitPlugin(BasePlugin[LabkitConfig]):
    def on_config(self, config):
        lang = self.config.lang
        try:
            self.project: Project = find_project(Path(config.config_file_path).parent)
        except LabkitError as exc:
            raise PluginError(str(exc)) from None
        # One site_url (SITE_URL, mkdocs.yml) for the whole course: each language lives under its root.
        root = LANGUAGES[lang]["root"]
        if config.site_url and root and not config.site_url.rstrip("/").endswith(root.rstrip("/")):
            config.site_url = config.site_url.rstrip("/") + "/" + root
        self.base_url = (config.site_url or "").removesuffix(root) if root else config.site_url
        #: The page being rendered, for the blocks' messages; the build's problems, which the blocks add to.
        self.context: dict = {"problems": []}
        self.quiz_places: dict[str, str] = {}
        options = {"lang": lang, "project": str(self.project.root), "context": self.context}
        config.markdown_extensions.append(QuizExtension(**options))
        config.markdown_extensions.append(LabExtension(**options))
        for extension in (ChecklistExtension, ProfileExtension, DiagnosisExtension, ExerciseExtension):
            config.markdown_extensions.append(extension(**options))
        config.extra["alternate"] = [
            {"name": spec["name"], "lang": code, "link": "./"} for code, spec in LANGUAGES.items()
        ]
        config.theme.dirs.insert(0, str(OVERRIDES))
        if not config.use_directory_urls:   # `make dist`: pages opened from the disk
            config.extra["polyfills"] = [*config.extra.get("polyfills", []), WORKER_SHIM]
        config.extra_css.extend(EXTRA_CSS)
        config.extra_javascript.extend(EXTRA_JAVASCRIPT)
        return config

    def on_files(self, files: Files, config) -> Files:
        for page in files.documentation_pages():
            if page.abs_src_path and (found := syntax.not_utf8(Path(page.abs_src_path).read_bytes())):
                raise PluginError(f"docs/{self.config.lang}/{page.src_uri}, {found}")
        for source in sorted(OWN_ASSETS.iterdir()):
            files.append(File.generated(config, f"assets/labkit/{source.name}", abs_src_path=str(source)))
        files.append(File.generated(config, "assets/labkit/occupancy_data.js", content=occupancy_data_script()))
        node_modules = self.project.node_modules
        missing = [name for name in [*VENDOR_FILES, KATEX_FONTS] if not (node_modules / name).exists()]
        if missing:
            raise PluginError(
                f"front-end assets missing from node_modules ({', '.join(missing)}): run `make build`, "
                "which installs them with `npm ci`"
            )
        for package_path, site_path in VENDOR_FILES.items():
            files.append(File.generated(config, site_path, abs_src_path=str(node_modules / package_path)))
        #: Each notebook page's notebook, run when MkDocs reads the page (on_page_read_source): after the
        #: chapters, so that a broken record is named by the chapter's lab block first.
        self.notebook_pages: dict[str, tuple] = {}
        repo_url = notebook_service.repository_url(self.project.root)
        for notebook, lab_id in notebooks():
            in_language = language_notebook(self.project.root / notebook, self.config.lang)
            if self.config.notebooks:
                self.notebook_pages[notebook] = (in_language, lab_id)
                files.append(NotebookPage.generated(config, notebook, content=""))
            else:   # the one-chapter check: links to the notebook resolve, nothing runs
                files.append(File.generated(config, notebook, abs_src_path=str(self.project.root / notebook)))
            files.append(File.generated(config, ipynb_path(notebook),
                                        content=notebook_service.service_ipynb(copy.deepcopy(in_language), notebook,
                                                                               repo_url)))
        for font in sorted((node_modules / KATEX_FONTS).iterdir()):
            files.append(
                File.generated(config, f"assets/vendor/katex/fonts/{font.name}", abs_src_path=str(font))
            )
        return files

    def on_pre_build(self, config) -> None:
        self.context["problems"] = []
        #: Each quiz id the build has met: where (page, line). A quiz's key is looked up by its id,
        #: so a second quiz of the same id would be graded with the first one's key.
        self.quiz_places: dict[str, str] = {}

    def problem(self, message: str) -> None:
        """One authoring problem: said now, and failing the build at its end."""
        log.error(message)
        self.context["problems"].append(message)

    def on_page_read_source(self, page, config) -> str | None:
        """A notebook's page: its language's cells and what they print (labkit.site.notebook_page)."""
        if page.file.src_uri not in self.notebook_pages:
            return None
        notebook, lab_id = self.notebook_pages[page.file.src_uri]
        try:
            printed = run_for_the_site(notebook, f"{page.file.src_uri} ({self.config.lang} page)")
        except NotebookError as exc:   # named with the other problems; the build fails at its end
            self.problem(str(exc))
            printed = ["" for cell in notebook.cells if cell.cell_type == "code"]
        return page_markdown(notebook, printed, self.config.lang, ipynb_name(page.file.src_uri), lab_id)

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        lang = self.config.lang
        where = f"docs/{lang}/{page.file.src_uri}"
        self.context["page"] = where
        source_text = Path(page.file.abs_src_path).read_text(encoding="utf-8") if page.file.abs_src_path else ""
        front_lines = source_text[:len(source_text) - len(markdown)].count("\n") if source_text.endswith(markdown) else 0
        front_matter = front_matter_problem(source_text)
        if front_matter:
            self.problem(f"{where}, {front_matter}")
        if not markdown.strip():
            self.problem(f"{where}: the page is empty: write it, or take it out of the nav: of both languages' "
                         "configurations (and the links to it)")
        for problem in authoring_problems(markdown, first_line=front_lines + 1):
            self.problem(f"{where}, {problem}")
        twins = {f"docs/{other}/{page.file.src_uri}": Path(config.docs_dir).parent / other / page.file.src_uri
                 for other in LANGUAGES if other != lang}
        for problem in twin_problems(markdown, front_lines + 1, where, {name: path for name, path in twins.items()
                                                                         if path.is_file()}):
            self.problem(problem)
        self._quiz_ids_once(markdown, where, front_lines + 1)
        try:
            if lang != REFERENCE_LANG and not front_matter:
                markdown = self._translation_banner(markdown, page, config) + markdown
            if terms := search_terms(page.file.src_uri, lang):
                page.meta["tags"] = terms
            return FIGURE_PATTERN.sub(lambda match: render_figure(match.group(1), lang)
                                      if match.group(1) in FIGURES else match.group(0), markdown)
        except LabkitError as exc:
            self.problem(f"{where}: {exc}")
            return markdown

    def _quiz_ids_once(self, markdown: str, where: str, first_line: int) -> None:
        """A quiz id used a second time in the language's pages is a problem naming both places."""
        for block in syntax.blocks(syntax.read(markdown, first_line)):
            if block.kind != "quiz":
                continue
            here = f"{where}, line {block.line}"
            first = self.quiz_places.setdefault(block.id, here)
            if first != here:
                self.problem(f"{here}: quiz id {block.id} is already used at {first}: each quiz needs its own id "
                             "(its answer key is found by it): rename one, here and in the other language, and in "
                             "labkit/course/quizzes.py")

    def _translation_banner(self, markdown: str, page, config) -> str:
        """'' when the page has no French source (a lab notebook) or translates it as it is now; a
        warning banner when the source changed since; a problem when the page does not say."""
        source = Path(config.docs_dir).parent / REFERENCE_LANG / page.file.src_uri
        if not source.exists():
            return ""
        recorded = page.meta.get("translation_of")
        uri = f"docs/{self.config.lang}/{page.file.src_uri}"
        if recorded is None:
            self.problem(f"{uri}: no 'translation_of' in its front matter: once it matches "
                         f"docs/{REFERENCE_LANG}/{page.file.src_uri}, run `labkit translations --mark-fresh {uri}`")
            return ""
        data = source.read_bytes()
        if found := syntax.not_utf8(data):   # the French page's build says so too; this one must not raise
            raise PluginError(f"docs/{REFERENCE_LANG}/{page.file.src_uri}, {found} (the page {uri} translates)")
        if str(recorded) == digest(data.decode("utf-8")):
            return ""
        text = label(self.config.lang, "translation.stale")
        return f'!!! warning "{label(self.config.lang, "translation.stale_title")}"\n    {text}\n\n'

    def on_post_page(self, output: str, page, config) -> str:
        """Language links: the switcher leads to this page's twin (relative, so that a copy of the
        site works anywhere); the head's alternates name each language's root, absolutely, when the
        site has a site_url, and are left out when it has none (HEAD_ALTERNATE). Then the page's
        typography (labkit.site.typography).

        The switcher's links get target="_self": Material's own handler, which guesses the twin
        from sitemaps, leaves such links alone.
        """
        here = LANGUAGES[self.config.lang]["root"] + page.url

        def rewrite(match: re.Match) -> str:
            root = LANGUAGES[match.group(4)]["root"]
            if match.group(2) == "a":
                return match.group(1) + relative_href(here, root + page.url) + match.group(3) + ' target="_self"'
            return match.group(1) + self.base_url + root + match.group(3)

        if not self.base_url:
            output = HEAD_ALTERNATE.sub("", output)
        output = colab_link_on_notebook_page(HREFLANG_LINK.sub(rewrite, output), page, self.project,
                                             self.config.lang)
        return typeset(output, self.config.lang)

    def on_post_build(self, config) -> None:
        """The build fails if any page had an authoring problem (each was said as it was found).
        Then the search index's formulas become plain text (labkit.site.search_math: Material
        runs first, its search plugin is listed before this one). Then, for the archive: pages opened from the disk cannot fetch the search index, so Material
        reads it from search/search_index.js (``var __index = ...``), written here."""
        problems = self.context["problems"]
        if problems:
            raise Abort(f"Aborted with {len(problems)} authoring problem(s) in the {self.config.lang} pages, "
                        "each named above.")
        index = Path(config.site_dir, "search", "search_index.json")
        if index.exists():
            rewrite_search_index(index)
        if config.use_directory_urls:
            return
        if index.exists():
            index.with_suffix(".js").write_text("var __index = " + index.read_text(encoding="utf-8"), encoding="utf-8")

    def on_post_template(self, output: str, template_name: str, config) -> str:
        """The 404 page is served at any depth of the site: its language links are absolute (the
        site's address, or the server's root when none is set), each to its language's home."""
        if template_name != "404.html":
            return output
        base = self.base_url or "/"

        def rewrite(match: re.Match) -> str:
            target = base + LANGUAGES[match.group(4)]["root"]
            return match.group(1) + target + match.group(3) + (' target="_self"' if match.group(2) == "a" else "")

        return typeset(HREFLANG_LINK.sub(rewrite, output), self.config.lang)


def front_matter_problem(source: str) -> str | None:
    """'line N: ...' when the page opens with front matter (MkDocs' rule: between two '---' lines)
    that is not a YAML mapping; MkDocs would then read it as no front matter at all, silently."""
    match = YAML_RE.match(source)
    if match is None:
        return None
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 2 if mark is not None else 2    # the text starts on the line after '---'
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return (f"line {line}: its front matter (between the '---' lines) is not valid YAML ({problem}): fix it, "
                "e.g. quote a value that holds ': ' or starts with a special character")
    if not isinstance(data, dict):
        return "line 2: its front matter (between the '---' lines) is not 'key: value' lines: write it as YAML keys"
    return None



def colab_link_on_notebook_page(output: str, page, project: Project, lang: str) -> str:
    """A lab notebook's page opens with its "Open in Colab" link, when the repository is configured."""
    if page.file.src_uri not in notebook_paths():
        return output
    url = notebook_service.colab_url(notebook_service.repository_url(project.root), page.file.src_uri)
    marker = '<article class="md-content__inner md-typeset">'
    if url is None or marker not in output:
        return output
    link = (f'<p class="lab-colab"><a href="{url}" rel="noopener">{label(lang, "lab.open_in_colab")}</a> '
            f'({label(lang, "lab.colab_without_gpu")})</p>')
    return output.replace(marker, marker + link, 1)
