"""Program.steps is counted in ``measure``'s source (labkit.labs.base.progress_calls), so no lab states it."""

import ast
from pathlib import Path

import pytest

import labkit
from labkit.labs.base import progress_calls


def plain(self, bench, sizes):
    bench.progress("one")
    if sizes:
        bench.progress("two")
    else:
        bench.progress("two, the other way")
    for step in ("a", "b", "c"):
        bench.progress(step)
    helper(sizes).progress("not the bench's")


def looped(self, bench, sizes):
    for step in sizes.steps:
        bench.progress(step)


def uneven(self, bench, sizes):
    if sizes:
        bench.progress("only here")


def helper(sizes):
    return sizes


def test_each_call_counts_once_and_a_literal_loop_per_element():
    assert progress_calls(plain) == 5


@pytest.mark.parametrize("measure, why", [(looped, "in a loop"), (uneven, "1 times on one branch, 0 on the other")])
def test_a_count_that_cannot_be_read_is_refused_with_the_line(measure, why):
    with pytest.raises(TypeError, match=rf"test_program_steps\.py:\d+: bench\.progress .*{why}"):
        progress_calls(measure)


def test_no_lab_states_its_steps():
    stated = [
        str(path.relative_to(Path(labkit.__file__).parent.parent))
        for path in sorted(Path(labkit.__file__).parent.glob("labs/lab*/program.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef)
        for statement in node.body
        if isinstance(statement, ast.Assign) and any(getattr(t, "id", None) == "steps" for t in statement.targets)
    ]
    assert stated == [], stated
