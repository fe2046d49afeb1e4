"""The lab notebooks: thin jupytext scripts that run in the simulator."""

import os

import jupytext
import nbclient
import pytest

from labkit.lab import labs
from tests.conftest import REPO_ROOT

NOTEBOOKS = [lab.notebook for lab in labs().values()]


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_is_a_thin_walk_through_its_lab(notebook):
    path = REPO_ROOT / notebook
    nb = jupytext.read(path)
    assert nb.metadata["jupytext"]["formats"] == "py:percent"
    lab_id = "lab-" + path.stem.removeprefix("lab")
    code = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
    assert f'LabSession("{lab_id}")' in code
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
    assert "ok  " in text, text  # it ran the lab's checks (each lab's checks all pass: test_registry)
