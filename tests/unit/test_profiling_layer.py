"""labkit.profiling reads and diagnoses reports; labkit.report renders them. The dependency goes one
way (report -> profiling): the `labkit diagnose` command, which needs both, lives beside the CLI
(labkit/commands/diagnose.py), so neither package imports the other back (issue 19)."""

import ast

from tests.conftest import REPO_ROOT


def imported_modules(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_no_profiling_module_imports_the_report_package():
    offenders = {path.name: name for path in sorted((REPO_ROOT / "labkit/profiling").glob("*.py"))
                 for name in imported_modules(path) if name == "labkit.report" or name.startswith("labkit.report.")}
    assert not offenders, offenders
