"""The lab notebooks: thin jupytext scripts in both languages that run in the simulator."""

import os
import re

import jupytext
import nbclient
import pytest

from labkit.labs.base import labs
from tests.conftest import REPO_ROOT

NOTEBOOKS = [lab.notebook for lab in labs().values()]


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_is_a_thin_walk_through_its_lab(notebook):
    path = REPO_ROOT / notebook
    nb = jupytext.read(path)
    assert nb.metadata["jupytext"]["formats"] == "py:percent"
    lab_id = "lab-" + path.stem.removeprefix("lab")
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert re.search(rf'LabSession\("{lab_id}"', code)
    assert not list(path.parent.glob("*.ipynb")), f"commit the .py only, not an .ipynb, in {path.parent}"


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_runs_in_the_simulator(notebook, monkeypatch):
    monkeypatch.setenv("NUMBA_ENABLE_CUDASIM", "1")
    nb = jupytext.read(REPO_ROOT / notebook)
    client = nbclient.NotebookClient(nb, kernel_name="python3", timeout=900,
                                     resources={"metadata": {"path": str(REPO_ROOT)}})
    client.execute(env={**os.environ, "NUMBA_ENABLE_CUDASIM": "1", "PYTHONPATH": str(REPO_ROOT)})
    text = "\n".join(out.get("text", "") for cell in nb.cells for out in cell.get("outputs", []))
    assert "FAIL" not in text
    assert "ok  " in text, text  # it ran the lab's checks, and none failed: each lab's checks pass in the simulator


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_says_everything_in_each_language(notebook):
    """Every Markdown cell belongs to one language (``# %% [markdown] lang="fr"``) and has its twin
    in the other, in the same order; a code cell with a language has its twin too (the site
    shows each language's cells on its own page, labkit.site.notebook_page)."""
    nb = jupytext.read(REPO_ROOT / notebook)
    untagged = [c.source[:40] for c in nb.cells if c.cell_type == "markdown" and "lang" not in c.metadata]
    assert not untagged, f"{notebook}: Markdown cells without lang=\"fr\" or lang=\"zh\": {untagged}"
    kinds = {lang: [c.cell_type for c in nb.cells if c.metadata.get("lang") == lang] for lang in ("fr", "zh")}
    assert kinds["fr"] == kinds["zh"] and kinds["fr"], f"{notebook}: the languages' cells do not pair up"
    cjk = re.compile("[\u4e00-\u9fff]")
    assert not [c.source[:40] for c in nb.cells if c.metadata.get("lang") == "fr" and cjk.search(c.source)]
    headings = {lang: [c.source.count("#") for c in nb.cells if c.metadata.get("lang") == lang] for lang in ("fr", "zh")}
    assert headings["fr"] == headings["zh"], f"{notebook}: headings differ between the languages"
