"""Every lab labkit finds is wired into the course: its folder and notebook, its chapter in both
languages with its lab block, its notebook in both navigations; and importing its program in any
order picks the simulator on a machine without a GPU."""

import ast
import os
import re
import subprocess
import sys

import pytest
import yaml

from labkit.labs.base import Lab, labs
from labkit.project import Project
from labkit.report.labels import LANGUAGES
from labkit.site import syntax
from tests.conftest import DOCS, REPO_ROOT

CONFIGS = {"fr": REPO_ROOT / "mkdocs.yml", "zh": REPO_ROOT / "docs/mkdocs.zh.yml"}
LABS = list(labs().values())


class _Loader(yaml.SafeLoader):
    """Reads mkdocs.yml, whose !!python/name tags only MkDocs resolves."""


_Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
_Loader.add_constructor("!ENV", lambda loader, node: None)


def nav_entries(config) -> list[str]:
    def walk(node):
        if isinstance(node, str):
            yield node
        elif isinstance(node, list):
            for item in node:
                yield from walk(item)
        elif isinstance(node, dict):
            for value in node.values():
                yield from walk(value)
    return list(walk(yaml.load(config.read_text(), Loader=_Loader)["nav"]))


def test_the_registry_finds_every_lab_package():
    packages = sorted(p.name for p in (REPO_ROOT / "labkit/labs").iterdir() if re.fullmatch(r"lab\d\d", p.name))
    assert [f"lab-{name[3:]}" for name in packages] == list(labs())
    assert all(isinstance(lab, Lab) for lab in LABS)


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_a_labs_id_and_chapter_come_from_its_package(lab):
    """lab-NN from labkit.labs.labNN, which no lab states; the chapter is chapter NN's page
    (labkit.chapters) unless the lab names another (the throwaway lab 99 does)."""
    import ast
    import inspect

    from labkit.chapters import CHAPTERS

    number = type(lab).__module__.rpartition(".lab")[2]
    stated = {target.id for node in ast.parse(inspect.getsource(type(lab))).body[0].body
              if isinstance(node, ast.Assign) for target in node.targets if isinstance(target, ast.Name)}
    assert lab.id == f"lab-{number}" and "id" not in stated, stated
    if "chapter" not in stated:
        assert lab.chapter == CHAPTERS[int(number)]


def test_a_lab_defined_outside_the_labs_package_states_its_id():
    class Elsewhere(Lab):
        folder = "00-nowhere"

    assert "id" not in Elsewhere.__dict__ and not hasattr(Elsewhere, "id")


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_each_lab_has_its_folder_notebook_and_chapter(lab):
    assert lab.lab_dir(Project(REPO_ROOT)).is_dir()
    assert (REPO_ROOT / lab.notebook).is_file(), lab.notebook
    for lang in LANGUAGES:
        chapter = DOCS / lang / lab.chapter
        assert chapter.is_file(), chapter
        blocks = syntax.blocks(syntax.read_page(chapter.read_text(encoding="utf-8")))
        assert ("lab", lab.id) in [(b.kind, b.id) for b in blocks], f"{chapter} has no lab block for {lab.id}"
        assert lab.notebook in nav_entries(CONFIGS[lang]), f"{CONFIGS[lang].name} does not list {lab.notebook}"


@pytest.mark.parametrize("lab", LABS, ids=lambda lab: lab.id)
def test_importing_a_program_first_still_picks_the_simulator(lab):
    """No import order can bypass the backend choice (labkit.gpu chooses before numba.cuda loads):
    with the lab's program imported first, a kernel launched through numba.cuda runs in the
    simulator (without a GPU, the CUDA backend could not launch it). That every lab's checks pass
    in the simulator is held by test_notebooks.py, which runs each notebook's checks."""
    program_module = f"labkit.labs.lab{lab.number}.program"
    code = (f"import {program_module}\n"
            "import numpy as np\n"
            "from numba import config, cuda\n"
            "from labkit.gpu.backend import select_backend\n"
            "@cuda.jit\n"
            "def mark(x):\n"
            "    x[cuda.grid(1)] = 1.0\n"
            "x = np.zeros(4, dtype=np.float32)\n"
            "mark[1, 4](x)\n"
            "print(select_backend(), bool(config.ENABLE_CUDASIM), bool((x == 1).all()))")
    env = {key: value for key, value in os.environ.items() if key != "NUMBA_ENABLE_CUDASIM"}
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, env=env,
                          timeout=600)
    if done.stdout.startswith("cuda "):
        pytest.skip("this machine has a GPU")
    assert done.stdout.split() == ["simulator", "True", "True"], done.stdout + done.stderr


def _imports_numba_cuda(node: ast.AST) -> bool:
    """``from numba import cuda``, ``import numba.cuda`` or ``from numba.cuda... import``; the
    simulator's own modules (which access tracing patches) are not the GPU backend."""
    if isinstance(node, ast.ImportFrom) and node.module:
        if node.module == "numba":
            return any(alias.name == "cuda" for alias in node.names)
        return node.module.startswith("numba.cuda") and not node.module.startswith("numba.cuda.simulator")
    if isinstance(node, ast.Import):
        return any(a.name.startswith("numba.cuda") and not a.name.startswith("numba.cuda.simulator")
                   for a in node.names)
    return False


def _module_level(tree: ast.Module):
    """Statements that run on import (not those inside functions, which run after a GPU check)."""
    pending = list(tree.body)
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            pending.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))


def test_only_labkit_gpu_imports_numba_cuda_on_import():
    offenders = []
    for path in (REPO_ROOT / "labkit").rglob("*.py"):
        if path.relative_to(REPO_ROOT).as_posix() == "labkit/gpu/_numba.py":
            continue
        for node in _module_level(ast.parse(path.read_text())):
            if _imports_numba_cuda(node):
                offenders.append(f"{path.relative_to(REPO_ROOT)}:{node.lineno}")
    assert not offenders, "import cuda from labkit.gpu instead: " + ", ".join(offenders)


def test_the_site_imports_no_lab():
    offenders = [str(p.relative_to(REPO_ROOT)) for p in (REPO_ROOT / "labkit/site").rglob("*.py")
                 if re.search(r"labkit\.labs\.lab\d", p.read_text())]
    assert not offenders
