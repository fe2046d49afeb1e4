"""The lab notebooks: thin jupytext scripts with no outputs, that run in the simulator."""

import os

import jupytext
import nbclient
import pytest

from labkit.site.plugin import NOTEBOOKS
from tests.conftest import REPO_ROOT


@pytest.mark.parametrize("notebook", NOTEBOOKS)
def test_notebook_is_a_percent_script_without_outputs(notebook):
    path = REPO_ROOT / notebook
    assert path.suffix == ".py"
    nb = jupytext.read(path)
    assert nb.metadata["jupytext"]["formats"] == "py:percent"
    assert all(not cell.get("outputs") for cell in nb.cells if cell.cell_type == "code")
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
    assert text.count("ok  ") >= 7, text  # both labs check at least seven kernels or phases
