"""Facts the code review of 2026-12-02 found written in several modules, each now defined in one:
the warp's lanes and ncu's sector size (labkit.access), the raw page's duration metric
(labkit.profiling.diagnosis.DURATION_METRIC). A module that writes one again fails here. The copies
left are listed exactly (none today), so that removing one fails too until its line here goes."""

import ast
from pathlib import Path

import labkit

PACKAGE = Path(labkit.__file__).parent

#: fact -> (where it is defined, the copies left): a module-level NAME = literal for the constants,
#: the string itself for the metric.
CONSTANTS = {
    "WARP_LANES": ("labkit/access.py", set()),
    "SECTOR_BYTES": ("labkit/access.py", set()),
    "WARP": (None, set()),   # the warp under another name: import WARP_LANES
}
METRIC = "gpu__time_duration.sum"
METRIC_HOME = "labkit/profiling/diagnosis.py"
METRIC_COPIES_LEFT: set[str] = set()


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE.parent).as_posix(), ast.parse(path.read_text(encoding="utf-8"))


def test_each_constant_is_assigned_a_value_in_one_module():
    assigned: dict[str, set[str]] = {name: set() for name in CONSTANTS}
    for where, tree in _modules():
        for node in tree.body:
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                for target in node.targets:
                    if isinstance(target, ast.Name) and target.id in assigned:
                        assigned[target.id].add(where)
            if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Constant) \
                    and isinstance(node.target, ast.Name) and node.target.id in assigned:
                assigned[node.target.id].add(where)
    assert assigned == {name: ({home} - {None}) | left for name, (home, left) in CONSTANTS.items()}


def test_the_duration_metric_is_written_in_one_module():
    writing = {where for where, tree in _modules() for node in ast.walk(tree)
               if isinstance(node, ast.Constant) and node.value == METRIC}
    assert writing == {METRIC_HOME} | METRIC_COPIES_LEFT
