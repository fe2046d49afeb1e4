"""Imports run downward. WINGS names every labkit module's wing, bottom to top (core; GPU access;
pure models; records; tools; the lab contract; labs and exercises; the course's numbers and
quizzes; commands; the site; the CLI), and no module imports a wing above its own. RULES add
finer rules inside that order: each names a part of labkit and what it must never import. Lazily
or not: an import inside a function counts. No module reaches itself through imports either."""

import ast
import re
from pathlib import Path

import pytest

import labkit

PACKAGE = Path(labkit.__file__).parent

#: Any one lab's package (labkit.labs.lab05...), not the labs' shared helpers (labkit.labs.notebook, runner).
LAB_PACKAGE = re.compile(r"labkit\.labs\.lab\d+(\..*)?")

#: (who, what it must not import: a package and what is under it, or a pattern, why)
RULES = [
    ("labkit.kernels", ("labkit.labs", "labkit.exercises", "labkit.site", "labkit.cli", "labkit.report",
                        "labkit.records.writing"),
     "a kernel module is below every lab: a constant both need lives in the kernel's package"),
    ("labkit.site", ("labkit.records.writing", LAB_PACKAGE, "labkit.cli", "labkit.exercises.check"),
     "the site renders records through the read side (labkit.records.files) and finds labs through labkit.labs.base"),
    ("labkit.report", (LAB_PACKAGE, "labkit.site", "labkit.cli", "labkit.records.writing"),
     "reports format what they are given; they name no lab"),
    ("labkit.labs", ("labkit.site", "labkit.cli"), "a lab knows nothing of the site or the command line"),
    ("labkit.exercises", ("labkit.site", "labkit.cli"), "an exercise knows nothing of the site or the CLI"),
    ("labkit.profiling", ("labkit.labs", "labkit.site", "labkit.cli", "labkit.records.writing"),
     "profiling reads tools' outputs; the labs call it, not the other way round"),
    ("labkit.records.files", ("labkit.records.writing", "labkit.labs", "labkit.site", "labkit.kernels"),
     "the read side of records stands alone"),
    ("labkit.specs.architectures", ("labkit", "numba", "cupy", "numpy", "pydantic"),
     "the per-compute-capability table is data: every module may read it, it reads nothing"),
    ("labkit.specs.datasheets", ("labkit.gpu.device", "labkit.gpu", "labkit.gpu.backend", "labkit.models.occupancy", "labkit.labs",
                           "numba", "cupy"),
     "datasheets are data below the device and the occupancy calculator, which read the course's GPU from them"),
]


def module_name(path: Path, root: Path = PACKAGE) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, root: Path = PACKAGE) -> set[str]:
    """Every module a file imports, at any depth of its code, relative imports made absolute."""
    name = module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def modules():
    return sorted(PACKAGE.rglob("*.py"))


def within(name: str, rule) -> bool:
    if isinstance(rule, re.Pattern):
        return rule.fullmatch(name) is not None
    return name == rule or name.startswith(rule + ".")


@pytest.mark.parametrize("who, forbidden, why", RULES, ids=[rule[0] for rule in RULES])
def test_imports_run_downward(who, forbidden, why):
    broken = [
        f"{module_name(path)} imports {name}"
        for path in modules() if module_name(path) == who or module_name(path).startswith(who + ".")
        for name in sorted(imports_of(path)) if any(within(name, f) for f in forbidden)
    ]
    assert not broken, f"{why}:\n" + "\n".join(broken)


#: Issue 34: every labkit module's wing, bottom to top; a module imports only its own wing's modules and
#: the wings below (a ``from labkit import x`` naming the module x). The longest prefix names the wing.
WINGS = [
    ("core: errors, the project's folders, the interface words, the per-compute-capability table (data every wing may say)",
     ("labkit", "labkit.errors", "labkit.project", "labkit.report.labels", "labkit.specs")),
    ("GPU access: the backend's choice, the driver, the simulator's threads, the device's facts",
     ("labkit.gpu", "labkit.simulator")),
    ("pure models: arithmetic on launches, accesses, latencies and data sheets",
     ("labkit.chapters", "labkit.lifetime", "labkit.models", "labkit.specs.datasheets",
      "labkit.specs.profiles")),
    ("records: typed records, their read and write sides", ("labkit.records",)),
    ("tools: reports, profilers, the timer, the access tracer, kernels",
     ("labkit.gpu.timing", "labkit.kernels", "labkit.profiling", "labkit.report", "labkit.simulator.trace")),
    ("the lab contract and the records as a lab's pages read them",
     ("labkit.labs.base", "labkit.labs.recorded")),
    ("labs, exercises and probes", ("labkit.calibration", "labkit.exercises", "labkit.labs")),
    ("the course's prose numbers and quizzes", ("labkit.course",)),
    ("commands", ("labkit.commands",)),
    ("the site", ("labkit.site",)),
    ("the command line", ("labkit.cli",)),
]
#: (importer, imported) edges that run upward on purpose.
UPWARD_BY_DESIGN = {
    ("labkit.labs.base", "labkit.labs"): "the registry walks the labs' package to find each LAB (labkit.labs.base.labs)",
}


def wing_of(name: str) -> int | None:
    """The index in WINGS of the wing ``name`` belongs to (its longest prefix), None if none does."""
    found = [(len(prefix), index) for index, (_, prefixes) in enumerate(WINGS) for prefix in prefixes
             if name == prefix or (prefix != "labkit" and name.startswith(prefix + "."))]
    return max(found)[1] if found else None


def test_every_module_has_a_wing():
    assert not [name for name in sorted(_import_graph()) if wing_of(name) is None]


def test_no_module_imports_a_wing_above_its_own():
    """Issue 34's bar: no upward import, lazy ones included (an import inside a function counts)."""
    upward = [
        f"{name} ({WINGS[wing_of(name)][0].partition(':')[0]}) imports {target} "
        f"({WINGS[wing_of(target)][0].partition(':')[0]})"
        for name, targets in sorted(_import_graph().items()) for target in sorted(targets)
        if wing_of(target) > wing_of(name) and (name, target) not in UPWARD_BY_DESIGN
    ]
    assert not upward, "move what both need down to the lower wing:\n" + "\n".join(upward)


def test_the_wing_test_sees_an_upward_import(tmp_path, monkeypatch):
    """The check above on a pure model that imports the site inside a function."""
    package = tmp_path / "labkit"
    (package / "site").mkdir(parents=True)
    for name in ("__init__.py", "site/__init__.py", "site/blocks.py"):
        (package / name).write_text("")
    (package / "models").mkdir()
    (package / "models" / "roofline.py").write_text("def f():\n    from labkit.site import blocks\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", package)
    with pytest.raises(AssertionError, match=r"labkit.models.roofline \(pure models\) imports labkit.site.blocks \(the site\)"):
        test_no_module_imports_a_wing_above_its_own()


def test_the_walk_sees_lazy_and_relative_imports(tmp_path):
    """The rule's reader finds an import inside a function and resolves ``from ..x import y``."""
    path = PACKAGE / "kernels" / "mysteries.py"
    assert "labkit.kernels.mysteries_launch" in imports_of(path)
    fake = tmp_path / "labkit" / "kernels" / "k.py"
    fake.parent.mkdir(parents=True)
    fake.write_text("def f():\n    from ..labs.lab05 import results\n")
    assert "labkit.labs.lab05.results" in imports_of(fake, root=tmp_path / "labkit")


def _import_graph() -> dict[str, set[str]]:
    """Each labkit module -> the labkit modules it imports (at any depth of its code: an import
    inside a function counts), a ``from package import name`` naming the module ``name`` if it is one."""
    modules = {module_name(path, PACKAGE): path for path in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for imported in imports_of(path, PACKAGE):
            while imported and imported not in modules:
                imported = imported.rpartition(".")[0]
            if imported.startswith("labkit") and imported != name:
                targets.add(imported)
        graph[name] = targets
    return graph


def test_no_import_cycle():
    """Issue 34: no module reaches itself through imports (Tarjan's strongly connected components)."""
    graph = _import_graph()
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    assert not cycles, cycles


def test_the_cycle_test_sees_a_cycle(tmp_path, monkeypatch):
    """The check above on a package of two modules that import each other, one inside a function."""
    package = tmp_path / "labkit"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from labkit import b\n")
    (package / "b.py").write_text("def f():\n    from labkit.a import thing\n")
    monkeypatch.setattr(__import__(__name__, fromlist=["PACKAGE"]), "PACKAGE", package)
    with pytest.raises(AssertionError, match="labkit.a"):
        test_no_import_cycle()
