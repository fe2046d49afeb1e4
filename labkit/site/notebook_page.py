"""A lab's notebook as a page of the site and as a download, in one language.

A notebook (``labs/NN-*/labNN.py``, jupytext percent format) holds both languages: a cell whose
jupytext header says ``lang="fr"`` (or ``"zh"``) belongs to that language, a cell without ``lang``
to both. Each language's site gets:

- the page (at the notebook's place in the navigation): a line to download the notebook and run
  it, then its Markdown cells, its code, and under each code cell what it prints. That output is
  produced at build time by running the cells here in LabSession's preview mode
  (labkit.gpu.backend.NOTEBOOK_PREVIEW_ENV): no GPU is touched, the simulator's checks are not run
  (the cell says so), the records of the lab are shown, in the page's language; the page says so;
- the download, ``labNN.ipynb`` beside the page: the same language's cells, without outputs.
"""

from __future__ import annotations

import io
import os
import posixpath
import traceback
from contextlib import redirect_stdout
from pathlib import Path

import jupytext
import nbformat

from labkit.gpu.backend import NOTEBOOK_PREVIEW_ENV
from labkit.report.labels import label

LANG_KEY = "lang"


class NotebookError(Exception):
    """A notebook cell that failed while the site ran it: the message names the notebook and cell."""


def language_notebook(source: Path, lang: str) -> nbformat.NotebookNode:
    """The notebook's cells of ``lang`` and of both languages, without the ``lang`` marks."""
    notebook = jupytext.read(source)
    notebook.cells = [cell for cell in notebook.cells if cell.metadata.get(LANG_KEY, lang) == lang]
    for cell in notebook.cells:
        cell.metadata.pop(LANG_KEY, None)
    return notebook


def run_for_the_site(notebook: nbformat.NotebookNode, where: str) -> list[str]:
    """What each code cell prints, in order, run in one namespace in LabSession's preview mode."""
    namespace: dict = {"__name__": "__main__"}
    printed = []
    previous = os.environ.get(NOTEBOOK_PREVIEW_ENV)
    os.environ[NOTEBOOK_PREVIEW_ENV] = "1"
    try:
        for index, cell in enumerate(c for c in notebook.cells if c.cell_type == "code"):
            out = io.StringIO()
            name = f"{where}, code cell {index + 1}"
            try:
                with redirect_stdout(out):
                    exec(compile(cell.source, name, "exec"), namespace)  # noqa: S102
            except Exception as exc:   # the learner's own code can raise anything: name it
                # the cell's own line that raised (the innermost frames are labkit's, not the cell's)
                line = [frame.lineno for frame in traceback.extract_tb(exc.__traceback__) if frame.filename == name]
                at = f", its line {line[-1]}" if line else ""
                raise NotebookError(f"{where}: code cell {index + 1} failed while the site ran it{at} "
                                    f"({type(exc).__name__}: {exc})") from None
            printed.append(out.getvalue())
    finally:
        if previous is None:
            os.environ.pop(NOTEBOOK_PREVIEW_ENV, None)
        else:
            os.environ[NOTEBOOK_PREVIEW_ENV] = previous
    return printed


def _fence(text: str, language: str) -> str:
    """A fenced block that no backtick run inside ``text`` can close."""
    longest = max((len(run) for run in text.split("\n") if set(run) == {"`"}), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


def page_markdown(notebook: nbformat.NotebookNode, printed: list[str], lang: str, ipynb_name: str,
                  lab_id: str) -> str:
    """The page: its title (the first Markdown cell), how to get and run it, then every cell."""
    cells = list(notebook.cells)
    head = ["---", "search:", "  boost: 0.5", "---", ""]   # the chapter that teaches a notion ranks first
    body = []
    if cells and cells[0].cell_type == "markdown" and cells[0].source.lstrip().startswith("# "):
        title, _, rest = cells[0].source.lstrip().partition("\n")
        body += [title, ""]
        cells[0] = nbformat.v4.new_markdown_cell(rest)
    body += [f'<p class="notebook-get" markdown>[{label(lang, "notebook.download")}]({ipynb_name}){{ download }} '
             f'({ipynb_name}) · {label(lang, "notebook.run")} `make {lab_id}`.</p>', "",
             f'<p class="notebook-outputs-note">{label(lang, "notebook.outputs")}</p>', ""]
    outputs = iter(printed)
    for cell in cells:
        if cell.cell_type == "markdown":
            body += [cell.source, ""]
        elif cell.cell_type == "code":
            body += [_fence(cell.source, "python"), ""]
            shown = next(outputs)
            if shown.strip():
                body += [f'<p class="notebook-output-label">{label(lang, "notebook.output")}</p>', "",
                         _fence(shown, "text"), ""]
    return "\n".join(head + body) + "\n"


def ipynb_name(notebook_path: str) -> str:
    return posixpath.basename(notebook_path).removesuffix(".py") + ".ipynb"
