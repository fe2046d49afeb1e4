"""Adding a lab works as the README's "How a lab is put together" says: a throwaway lab 99
(``tests/labs/throwaway_lab/``, the files that section lists) laid over a copy of the project, its
notebook and chapter added to both navigations, its Chinese page marked as translated. Then the
course's own tests take it in (registry, simulator run of its measurement, notebook, both
languages' parity), ``labkit run`` checks its kernel in the simulator, and ``labkit chapter 99``
renders its lab block in both languages. Without its lab block in one language, the registry test names the page.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from labkit.gpu.backend import select_backend
from tests.conftest import REPO_ROOT

THROWAWAY = Path(__file__).parent / "throwaway_lab"
CHAPTER = "performance/99-throwaway.md"
NOTEBOOK = "labs/99-throwaway/lab99.py"
#: What a contributor would add to each language's navigation: (config, chapter line, notebook line).
NAV_ADDITIONS = {
    "mkdocs.yml": ("      - performance/05-checklist.md\n", '      - "Lab 05 · Checklist": labs/05-checklist/lab05.py\n'),
    "docs/mkdocs.zh.yml": ("      - performance/05-checklist.md\n", '      - "Lab 05 · 优化清单": labs/05-checklist/lab05.py\n'),
}
PROJECT_FILES = ("labkit", "labs", "docs", "tests", "mkdocs.yml", "pyproject.toml")

pytestmark = pytest.mark.skipif(select_backend() != "simulator", reason="walks through in the Numba CUDA simulator")


def add_to_nav(config: Path, after_chapter: str, after_notebook: str) -> None:
    text = config.read_text(encoding="utf-8")
    assert after_chapter in text and after_notebook in text, f"{config.name}'s navigation changed: update NAV_ADDITIONS"
    text = text.replace(after_chapter, after_chapter + f"      - {CHAPTER}\n")
    text = text.replace(after_notebook, after_notebook + f'      - "Lab 99": {NOTEBOOK}\n')
    config.write_text(text, encoding="utf-8")


def run(project: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(project), "NUMBA_ENABLE_CUDASIM": "1"}
    env.pop("LABKIT_PROJECT", None)
    env.pop("PYTEST_XDIST_WORKER", None)
    return subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    """A copy of the project with lab 99 added as the README says."""
    root = tmp_path_factory.mktemp("project")
    for name in PROJECT_FILES:
        source = REPO_ROOT / name
        if source.is_dir():
            shutil.copytree(source, root / name, ignore=shutil.ignore_patterns("__pycache__", "throwaway_lab"))
        else:
            shutil.copy(source, root / name)
    (root / "node_modules").symlink_to(REPO_ROOT / "node_modules")
    shutil.copytree(THROWAWAY, root, dirs_exist_ok=True, ignore=shutil.ignore_patterns("README.md", "__pycache__"))
    for config, additions in NAV_ADDITIONS.items():
        add_to_nav(root / config, *additions)
    marked = run(root, "-m", "labkit.cli", "translations", "--mark-fresh", f"docs/zh/{CHAPTER}")
    assert marked.returncode == 0, marked.stdout + marked.stderr
    return root


def test_the_course_tests_take_the_new_lab_in(project):
    """The tests that read every lab, notebook and page, run on the copy (verbose: each test named
    with its outcome). test_drift.py's put-back tests are left out: each puts back a divergence
    issue 12 listed in one of the course's own chapters, which lab 99 does not touch."""
    done = run(project, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-p", "no:xdist",
               "tests/labs/test_registry.py", "tests/labs/test_measure_in_simulator.py",
               "tests/labs/test_notebooks.py", "tests/docs/test_parity.py", "tests/docs/test_drift.py",
               "tests/unit/test_translations.py",
               "-k", "(lab-99 or lab99 or registry_finds or parity or drift or translation) "
                     "and not divergence_put_back")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    measured = [line for line in done.stdout.splitlines()
                if line.startswith("tests/labs/test_measure_in_simulator.py::")]
    assert any("[lab-99]" in line and "PASSED" in line for line in measured), (
        "lab 99's measurement was not among the tests run", measured)


def test_labkit_runs_the_new_lab_in_the_simulator(project):
    done = run(project, "-m", "labkit.cli", "run", "lab-99", "--record")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok   scale" in done.stdout
    assert "No results recorded yet for lab-99: run `make lab-99` on a GPU." in done.stdout + done.stderr


def test_the_site_renders_the_new_lab_block_in_both_languages(project):
    """`labkit chapter 99` (what an author runs): the chapter in both navigations, its sources, and the
    strict build of its two pages with the course's configuration and plugin."""
    site = project / "site"
    done = run(project, "-m", "labkit.cli", "chapter", "99", "--site", str(site))
    assert done.returncode == 0, done.stdout + done.stderr
    for page, words in ((site / "performance/99-throwaway/index.html", "Un noyau, chronométré."),
                        (site / "zh/performance/99-throwaway/index.html", "一个 kernel 的计时。")):
        html = page.read_text(encoding="utf-8")
        assert words in html and "lab99.ipynb" in html, page


def test_a_missing_lab_block_is_named(project, tmp_path):
    chapter = project / "docs/zh" / CHAPTER
    original = chapter.read_text(encoding="utf-8")
    chapter.write_text(original.replace("/// lab | lab-99", "/// note"), encoding="utf-8")
    try:
        done = run(project, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
                   "tests/labs/test_registry.py", "-k", "folder_notebook_and_chapter and lab-99")
    finally:
        chapter.write_text(original, encoding="utf-8")
    assert done.returncode == 1
    assert f"docs/zh/{CHAPTER} has no lab block for lab-99" in done.stdout
