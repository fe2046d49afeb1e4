"""Facts the code review of 2026-12-02 found written in several modules, each now defined in one:
the warp's lanes and ncu's sector size (labkit.models.access), the raw page's duration metric
(labkit.profiling.diagnosis.DURATION_METRIC), what is known of each compute capability
(labkit.specs.architectures) and the course's GPU (labkit.specs.datasheets.COURSE_GPU). A module that writes one
again fails here. The copies left are listed exactly, so that removing one fails too until its line
here goes."""

import ast
from pathlib import Path

import labkit

PACKAGE = Path(labkit.__file__).parent

#: fact -> (where it is defined, the copies left): a module-level NAME = literal for the constants,
#: the string itself for the metric.
CONSTANTS = {
    "WARP_LANES": ("labkit/models/access.py", set()),
    "SECTOR_BYTES": ("labkit/models/access.py", set()),
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


#: Issue 34: what is known of each compute capability is one table, labkit/specs/architectures.py. A
#: compute capability written as a literal pair (7.0 to 12.9) may appear only where it is a fact of
#: its own: a part's datasheet, the oldest GPU a CUDA release's compilers target. The copies left
#: are listed, so that a table keyed by compute capability written again elsewhere fails here.
COMPUTE_CAPABILITY_LITERALS = {
    "labkit/specs/architectures.py": "the table",
    "labkit/specs/datasheets.py": "each part's compute capability, beside its other figures",
    "labkit/gpu/setup.py": "the oldest compute capability each CUDA release's compilers target",
    "labkit/labs/lab03/__init__.py": "not compute capabilities: lab 03's wave grids (waves, blocks over)",
}
#: The per-architecture tables the code review of 2026-12-02 found, now columns of that table or
#: derived from it (labkit.models.occupancy.ARCHITECTURES and CALCULATOR_GPUS are derived views).
RETIRED_TABLES = ("FP32_LANES_PER_SM", "FP64_LANES_PER_SM", "DENSE_FLOPS_PER_CLOCK_PER_SM", "FAMILY_LIMITS",
                  "AMPERE", "HOPPER", "PROFILE_NAMES", "RECORDED_GPU")


def _is_compute_capability(node) -> bool:
    return (isinstance(node, ast.Tuple) and len(node.elts) == 2
            and all(isinstance(e, ast.Constant) and type(e.value) is int for e in node.elts)
            and 7 <= node.elts[0].value <= 12 and 0 <= node.elts[1].value <= 9)


def test_compute_capabilities_are_written_in_the_table_and_where_they_are_a_part_s_own_fact():
    writing = {where for where, tree in _modules() for node in ast.walk(tree) if _is_compute_capability(node)}
    assert writing == set(COMPUTE_CAPABILITY_LITERALS)


def test_no_module_defines_a_retired_per_architecture_table_again():
    defined = sorted(f"{where}: {target.id}" for where, tree in _modules() for node in tree.body
                     if isinstance(node, (ast.Assign, ast.AnnAssign))
                     for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
                     if isinstance(target, ast.Name) and target.id in RETIRED_TABLES)
    assert not defined


def test_the_course_gpu_is_one_part():
    """labkit.specs.datasheets.COURSE_GPU is the one definition: its profile, its records' name and the
    occupancy calculator's default architecture all follow from it."""
    from labkit.course import figures
    from labkit.models import occupancy
    from labkit.specs import datasheets, profiles as device_profiles

    course = datasheets.COURSE_GPU
    assert device_profiles.COURSE_GPU.name == course.driver_name == "NVIDIA H200"
    assert device_profiles.COURSE_GPU.sm_count == course.sm_count
    assert occupancy.SM90.compute_capability == course.compute_capability == (9, 0)
    assert figures.recorded_results.__defaults__ == (course.driver_name,)
