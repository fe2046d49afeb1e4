"""The labs' notebooks in a notebook service (Colab: its free T4 is the GPU most readers have).

When the course's public repository is configured (``LABKIT_REPO_URL``, else ``Repository`` under
``[project.urls]`` in the project's pyproject.toml; a GitHub address), each lab's notebook gets:

- a first code cell that, where labkit is not installed (a fresh notebook service), clones the
  course, installs it with its locked versions and the GPU packages that match the driver
  (labkit.gpu.setup: none without a GPU, so the notebook then runs in Numba's CUDA simulator), and
  works from the lab's folder; where labkit is installed (your checkout), it does nothing;
- an .ipynb beside it, ``labs/NN-*/labNN.ipynb``, that holds that cell (``labkit notebooks`` writes
  them; the tests hold them equal to the percent scripts), since Colab opens notebooks from GitHub;
- an "Open in Colab" link in the lab's chapter block and on its notebook page.

Unconfigured (the default), there is no cell, no .ipynb and no link. The link is a plain link: the
site asks nothing of Colab (or of any other host) when a page is viewed.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from urllib.parse import urlsplit

import jupytext

REPO_URL_ENV = "LABKIT_REPO_URL"
#: The branch the notebooks are opened from.
BRANCH = "main"
COLAB = "https://colab.research.google.com/github"
#: The GPU packages' extra for a notebook service's driver, chosen by labkit.gpu.setup.
INSTALL_CELL = '''\
# Notebook service (Colab...): fetch and install the course, then work from this lab's folder. On
# your own checkout, where labkit is installed, this cell does nothing. Without a GPU, the labs run
# their kernels in Numba's CUDA simulator and show the results recorded on the course's H200.
import importlib.util, os, subprocess, sys
if importlib.util.find_spec("labkit") is None:
    subprocess.run(["git", "clone", "--quiet", "--depth", "1", {repo!r}, "gpu-course"], check=True)
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "-c", "gpu-course/constraints.txt",
                    "-e", "gpu-course"], check=True)
    subprocess.run([sys.executable, "-m", "labkit.gpu.setup"], cwd="gpu-course", check=True)
    sys.path.insert(0, os.path.abspath("gpu-course"))
    os.chdir(os.path.join("gpu-course", {folder!r}))
'''


def repository_url(project_root: Path) -> str | None:
    """The course's public repository: LABKIT_REPO_URL, else pyproject.toml's [project.urls]
    Repository; None when neither says."""
    named = os.environ.get(REPO_URL_ENV, "").strip()
    if named:
        return named
    pyproject = Path(project_root) / "pyproject.toml"
    if not pyproject.is_file():
        return None
    table = re.search(r"^\[project\.urls\]\s*$(.*?)(?=^\[|\Z)", pyproject.read_text(encoding="utf-8"), re.M | re.S)
    found = re.search(r'^\s*Repository\s*=\s*"([^"]+)"', table.group(1), re.M) if table else None
    return found.group(1) if found else None


def github_repository(repo_url: str) -> str | None:
    """'owner/name' of a GitHub address (https://github.com/owner/name[.git]), None for another host."""
    parts = urlsplit(repo_url)
    path = parts.path.strip("/").removesuffix(".git").split("/")
    if parts.netloc.lower() not in ("github.com", "www.github.com") or len(path) != 2 or not all(path):
        return None
    return "/".join(path)


def ipynb_path(notebook: str) -> str:
    """``labs/01-roofline/lab01.py`` -> ``labs/01-roofline/lab01.ipynb``."""
    return Path(notebook).with_suffix(".ipynb").as_posix()


def colab_url(repo_url: str | None, notebook: str) -> str | None:
    """Colab's address of a lab's notebook (its .ipynb on GitHub), None without a GitHub repository."""
    repository = github_repository(repo_url) if repo_url else None
    return f"{COLAB}/{repository}/blob/{BRANCH}/{ipynb_path(notebook)}" if repository else None


def install_cell(repo_url: str, notebook: str) -> str:
    return INSTALL_CELL.format(repo=repo_url, folder=Path(notebook).parent.as_posix())


def service_notebook(project_root: Path, notebook: str, repo_url: str | None) -> str:
    """The lab's notebook as .ipynb text (no outputs): the percent script, with the install cell first
    when a repository is configured."""
    return service_ipynb(jupytext.read(Path(project_root) / notebook), notebook, repo_url)


def service_ipynb(document, notebook: str, repo_url: str | None) -> str:
    """``document`` (a notebook read by jupytext, both languages or one) as .ipynb text, with the
    install cell of ``notebook`` first when a repository is configured, and stable cell ids."""
    if repo_url:
        cell = jupytext.reads(f"# %%\n{install_cell(repo_url, notebook)}", fmt="py:percent").cells[0]
        document.cells.insert(0, cell)
    text = jupytext.writes(document, fmt="ipynb")
    notebook_json = json.loads(text)
    for index, cell in enumerate(notebook_json["cells"]):   # stable ids (nbformat draws random ones)
        cell["id"] = f"cell-{index}"
    return json.dumps(notebook_json, indent=1, ensure_ascii=False) + "\n"


def stale_notebooks(project_root: Path, notebooks: list[str]) -> list[str]:
    """The .ipynb files that differ from what their percent script gives (missing ones included),
    when a repository is configured; none otherwise."""
    repo_url = repository_url(project_root)
    if not repo_url:
        return []
    root = Path(project_root)
    return [ipynb_path(n) for n in notebooks
            if not (root / ipynb_path(n)).is_file()
            or (root / ipynb_path(n)).read_text(encoding="utf-8") != service_notebook(root, n, repo_url)]


def write_notebooks(project_root: Path, notebooks: list[str]) -> list[str]:
    """Write every lab's .ipynb (``labkit notebooks``); returns their paths, none when no repository
    is configured."""
    repo_url = repository_url(project_root)
    if not repo_url:
        return []
    written = []
    for notebook in notebooks:
        path = Path(project_root) / ipynb_path(notebook)
        path.write_text(service_notebook(project_root, notebook, repo_url), encoding="utf-8")
        written.append(ipynb_path(notebook))
    return written
