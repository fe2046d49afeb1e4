"""The MkDocs plugin ``labkit``: one per language build.

- registers the quiz, lab, case, checklist and exercise Markdown blocks for the page's language;
- replaces ``[[figure.name]]`` in a page with the value computed in labkit.figures;
- adds the site's own assets, the lab notebooks (rendered by mkdocs-jupyter, which comes after this
  plugin) and the KaTeX/Mermaid files taken from node_modules (npm, at set-up);
- points the language switcher of every page at the same page in the other language;
- on a translated page, checks ``translation_of`` against its French source (labkit.site.translations):
  a page that does not say what it translates fails the build, a stale one gets a banner;
- refuses, in one line naming the page and line, the authoring mistakes Markdown would otherwise
  print as literal text (labkit.site.authoring), and front matter that is not YAML.

Every mistake is one line naming the page (and its line or block) and the fix, no traceback. An
author learns every mistake of every page in one build: each is logged as an error when its page
is read or its block rendered, the build goes on, and it fails at the end (:meth:`on_post_build`)
if there was any. The course's folder is the one holding the MkDocs configuration
(labkit.project), never labkit's own location.
"""

from __future__ import annotations

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

from labkit import notebook_service, occupancy
from labkit.errors import LabkitError
from labkit.figures import render_figure
from labkit.lab import labs
from labkit.project import Project, find_project
from labkit.report.labels import LANGUAGES, label
from labkit.figures import FIGURES
from labkit.site.authoring import FIGURE_PATTERN, authoring_problems
from labkit.site.inventory import REFERENCE_LANG
from labkit.site.case_block import DiagnosisExtension, ProfileExtension
from labkit.site.checklist_block import ChecklistExtension
from labkit.site.exercise_block import ExerciseExtension
from labkit.site.lab_block import LabExtension
from labkit.site.quiz_block import QuizExtension
from labkit.site.translations import digest

OWN_ASSETS = Path(__file__).parent / "assets"
#: Templates that take precedence over Material's: a 404 page in both languages.
OVERRIDES = Path(__file__).parent / "overrides"

#: Vendor files copied into every build: (path under node_modules, path in the site).
VENDOR_FILES = {
    "katex/dist/katex.min.js": "assets/vendor/katex/katex.min.js",
    "katex/dist/katex.min.css": "assets/vendor/katex/katex.min.css",
    "katex/dist/contrib/auto-render.min.js": "assets/vendor/katex/auto-render.min.js",
    "mermaid/dist/mermaid.min.js": "assets/vendor/mermaid/mermaid.min.js",
}
KATEX_FONTS = "katex/dist/fonts"

EXTRA_CSS = ["assets/vendor/katex/katex.min.css", "assets/labkit/course.css"]
EXTRA_JAVASCRIPT = [
    "assets/vendor/katex/katex.min.js",
    "assets/vendor/katex/auto-render.min.js",
    "assets/vendor/mermaid/mermaid.min.js",
    "assets/labkit/math.js",
    "assets/labkit/quiz.js",
    "assets/labkit/access_explorer.js",
    "assets/labkit/occupancy_data.js",
    "assets/labkit/occupancy_calculator.js",
]

HREFLANG_LINK = re.compile(r'(<(a|link)\b[^>]*?\bhref=")[^"]*("[^>]*?\bhreflang="([a-z]+)")')

log = logging.getLogger("mkdocs.plugins.labkit")


class LabkitConfig(Config):
    lang = config_options.Choice(tuple(LANGUAGES))


def relative_href(from_path: str, to_path: str) -> str:
    """The href that leads from the site page at from_path to to_path (both site-root relative)."""
    from_dir = from_path if from_path.endswith("/") or not from_path else posixpath.dirname(from_path) + "/"
    href = posixpath.relpath("/" + to_path, "/" + from_dir)
    if not to_path or to_path.endswith("/"):
        href = "./" if href == "." else href + "/"
    return href


def ipynb_path(notebook: str) -> str:
    """Where a lab's downloadable notebook is in the site: ``labs/01-roofline/lab01.ipynb`` (the
    same path as in the project, where labkit.notebook_service writes it when configured)."""
    return notebook_service.ipynb_path(notebook)


def occupancy_data_script() -> str:
    """``assets/labkit/occupancy_data.js``: labkit.occupancy's table as the page's data, read by
    occupancy_calculator.js (one table for the course's calculator and the page's)."""
    return f"window.labkitOccupancyData = {json.dumps(occupancy.page_data())};\n"




def notebooks() -> list[str]:
    """Every lab's notebook (a jupytext percent script), relative to the project: each appears at
    the same path in both languages' sites."""
    return [lab.notebook for lab in labs().values()]


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
        options = {"lang": lang, "project": str(self.project.root), "context": self.context}
        config.markdown_extensions.append(QuizExtension(**options))
        config.markdown_extensions.append(LabExtension(**options))
        for extension in (ChecklistExtension, ProfileExtension, DiagnosisExtension, ExerciseExtension):
            config.markdown_extensions.append(extension(**options))
        config.extra["alternate"] = [
            {"name": spec["name"], "lang": code, "link": "./"} for code, spec in LANGUAGES.items()
        ]
        config.theme.dirs.insert(0, str(OVERRIDES))
        config.extra_css.extend(EXTRA_CSS)
        config.extra_javascript.extend(EXTRA_JAVASCRIPT)
        return config

    def on_files(self, files: Files, config) -> Files:
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
        for notebook in notebooks():
            files.append(File(notebook, str(self.project.root), config.site_dir, config.use_directory_urls))
            files.append(File.generated(config, ipynb_path(notebook), content=notebook_service.service_notebook(
                self.project.root, notebook, notebook_service.repository_url(self.project.root))))
        for font in sorted((node_modules / KATEX_FONTS).iterdir()):
            files.append(
                File.generated(config, f"assets/vendor/katex/fonts/{font.name}", abs_src_path=str(font))
            )
        return files

    def on_pre_build(self, config) -> None:
        self.context["problems"] = []

    def problem(self, message: str) -> None:
        """One authoring problem: said now, and failing the build at its end."""
        log.error(message)
        self.context["problems"].append(message)

    def on_page_markdown(self, markdown: str, page, config, files) -> str:
        lang = self.config.lang
        where = f"docs/{lang}/{page.file.src_uri}"
        self.context["page"] = where
        source_text = Path(page.file.abs_src_path).read_text(encoding="utf-8") if page.file.abs_src_path else ""
        front_lines = source_text[:len(source_text) - len(markdown)].count("\n") if source_text.endswith(markdown) else 0
        front_matter = front_matter_problem(source_text)
        if front_matter:
            self.problem(f"{where}, {front_matter}")
        for problem in authoring_problems(markdown, first_line=front_lines + 1):
            self.problem(f"{where}, {problem}")
        try:
            if lang != REFERENCE_LANG and not front_matter:
                markdown = self._translation_banner(markdown, page, config) + markdown
            return FIGURE_PATTERN.sub(lambda match: render_figure(match.group(1), lang)
                                      if match.group(1) in FIGURES else match.group(0), markdown)
        except LabkitError as exc:
            self.problem(f"{where}: {exc}")
            return markdown

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
        if str(recorded) == digest(source.read_text(encoding="utf-8")):
            return ""
        text = label(self.config.lang, "translation.stale")
        return f'!!! warning "{label(self.config.lang, "translation.stale_title")}"\n    {text}\n\n'

    def on_post_build(self, config) -> None:
        problems = self.context["problems"]
        if problems:
            raise Abort(f"Aborted with {len(problems)} authoring problem(s) in the {self.config.lang} pages, "
                        "each named above.")

    def on_post_page(self, output: str, page, config) -> str:
        """Language links: the switcher leads to this page's twin (relative, so that a copy of the
        site works anywhere); the head's alternates name each language's root, absolute when the
        site has a site_url (Material reads each root's sitemap.xml through them).

        The switcher's links get target="_self": Material's own handler, which guesses the twin
        from sitemaps, leaves such links alone.
        """
        here = LANGUAGES[self.config.lang]["root"] + page.url

        def rewrite(match: re.Match) -> str:
            root = LANGUAGES[match.group(4)]["root"]
            if match.group(2) == "a":
                return match.group(1) + relative_href(here, root + page.url) + match.group(3) + ' target="_self"'
            href = self.base_url + root if self.base_url else relative_href(here, root)
            return match.group(1) + href + match.group(3)

        return colab_link_on_notebook_page(HREFLANG_LINK.sub(rewrite, output), page, self.project, self.config.lang)


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
    if page.file.src_uri not in notebooks():
        return output
    url = notebook_service.colab_url(notebook_service.repository_url(project.root), page.file.src_uri)
    marker = '<article class="md-content__inner md-typeset">'
    if url is None or marker not in output:
        return output
    link = (f'<p class="lab-colab"><a href="{url}" rel="noopener">{label(lang, "lab.open_in_colab")}</a> '
            f'({label(lang, "lab.colab_without_gpu")})</p>')
    return output.replace(marker, marker + link, 1)
