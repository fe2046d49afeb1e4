"""The lab interface every lab implements, and the registry that finds the labs.

A lab is one package ``labkit/labs/labNN/``. Its ``__init__`` defines ``LAB``, an instance of a
:class:`Lab` subclass: the lab's id, its folder under ``labs/``, its chapter, its sizes and its
results (typed records, defined once), and how its results become tables and figures. Importing
it runs no GPU code, so the site and the command line can use it anywhere. Its ``program``
module holds the kernels and the measurements (a :class:`Program`), imported only when asked for.

Adding a lab is adding that package (and its chapter pages and notebook): :func:`labs` discovers
it, and the tests check that the site, the notebooks and both navigations know it.
"""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import inspect
import pkgutil
import textwrap
import re
import sys
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

from pydantic import ValidationError, model_validator

from labkit.chapters import CHAPTERS, page
from labkit.errors import LabkitError
from labkit.records import Record, describe_validation_error

if TYPE_CHECKING:
    import xml.etree.ElementTree as etree

    from labkit.gpu.device import DeviceFacts
    from labkit.gpu.timing import Timing
    from labkit.project import Project
    from labkit.report.tables import Table

S = TypeVar("S", bound=Record)
R = TypeVar("R", bound=Record)

LAB_PACKAGE = re.compile(r"lab\d\d")


class Check(Record):
    """One comparison of a kernel's output with NumPy."""

    name: str
    passed: bool


class CheckedResults(Record):
    """What every lab's results hold first: its kernels' checks against NumPy, which must all have
    passed (a record of a wrong kernel's timing is refused, whatever else it holds)."""

    checks: list[Check]

    @model_validator(mode="after")
    def _checks_passed(self) -> CheckedResults:
        failed = [check.name for check in self.checks if not check.passed]
        if failed:
            raise ValueError(f"checks against NumPy failed: {', '.join(failed)}")
        return self


@dataclass(frozen=True)
class Bench:
    """What a measurement is given: the device's facts, the timer (one function, or several call
    for call: labkit.gpu.timing.time_interleaved), a folder for raw profiler outputs, a progress
    callback (one call per step), and whether kernels run in the simulator (then profilers are
    skipped and the timers are stand-ins that no record may come from)."""

    facts: DeviceFacts
    time_gpu: Callable[..., Timing]
    time_interleaved: Callable[..., tuple[Timing, ...]]
    work_dir: Path
    progress: Callable[[str], None]
    simulated: bool = False


@dataclass(frozen=True)
class Gain:
    """What a lever of chapter 5's checklist gave in a lab: time before / time after, and what was
    measured (a label key, ``gain.<lab>.<what>``)."""

    item: str        # a checklist item id (labkit.profiling.checklist.ITEM_IDS)
    ratio: float
    context: str


@dataclass(frozen=True)
class Need:
    """A tool a lab's step uses on a GPU, and what the lab does without it (``labkit doctor`` tells a
    reader which of their lab's steps will run): ``tool`` is "ncu" (Nsight Compute reading hardware
    counters), "nsys", "nvcc", "cuobjdump", "cupy" or "triton"."""

    tool: str
    step: str
    without: str


@dataclass(frozen=True)
class Case:
    """One profiled kernel a chapter shows as a case: its stored profile, the checklist item a reader
    should find first (the flaw planted in it; None for a control at its roof), and its time before
    and after the repair (None: no repair measured), with t_real / t_min where a ceiling was measured.

    A case may instead be one step of a sequence (chapter 6's matrix multiply): nothing was planted
    and nothing repaired; ``step`` is True and ``next_step`` the label key of the step after it
    (None for the last)."""

    profile: object                   # labkit.profiling.diagnosis.StoredProfile
    planted: str | None
    faulty_seconds: float
    repaired_seconds: float | None
    ratio_to_min: float | None = None
    step: bool = False
    next_step: str | None = None


class Program(ABC, Generic[S, R]):
    """A lab's kernels and measurements (importing it chooses the GPU or the simulator)."""

    @property
    def steps(self) -> int:
        """How many times ``measure`` calls ``bench.progress`` (the run's progress bar): counted in
        its source, never stated (:func:`progress_calls`)."""
        return progress_calls(type(self).measure)

    @abstractmethod
    def check(self, sizes: S) -> list[Check]:
        """Every kernel at ``sizes`` (small) against NumPy, on fresh inputs."""

    @abstractmethod
    def measure(self, bench: Bench, sizes: S) -> R:
        """The lab's measurements at ``sizes``; raw profiler outputs go to ``bench.work_dir``."""

    def simulator_tables(self, recorded: list[R]) -> list[Table]:
        """What a run without a GPU shows after the checks, beside the ``recorded`` results
        (e.g. predictions computed here); none by default."""
        return []


def progress_calls(measure: Callable) -> int:
    """How many ``bench.progress`` calls ``measure(self, bench, sizes)`` makes, read in its source:
    each call counts once, a call in a ``for`` over a literal tuple or list once per element, and
    both branches of an ``if`` must make as many. Any other loop, or an ``if`` whose branches differ,
    cannot be counted and is refused in one line naming the file and the line."""
    source = inspect.getsource(measure)
    tree = ast.parse(textwrap.dedent(source)).body[0]
    bench = tree.args.args[1].arg
    file, first = inspect.getsourcefile(measure), inspect.getsourcelines(measure)[1]

    def refuse(node: ast.AST, why: str):
        raise TypeError(f"{file}:{first + node.lineno - 1}: {why}: call {bench}.progress once per step, "
                        f"outside it (Program.steps is counted in measure's source)")

    def count(node: ast.AST) -> int:
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "progress"
                and isinstance(node.func.value, ast.Name) and node.func.value.id == bench):
            return 1 + sum(count(child) for child in ast.iter_child_nodes(node))
        inner = sum(count(child) for child in ast.iter_child_nodes(node))
        if not inner:
            return 0
        if isinstance(node, ast.For) and isinstance(node.iter, (ast.Tuple, ast.List)) and not node.orelse:
            return len(node.iter.elts) * sum(count(child) for child in node.body) + count(node.iter)
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While, ast.comprehension, ast.Lambda,
                             ast.FunctionDef, ast.AsyncFunctionDef)):
            refuse(node, f"{bench}.progress in a loop or a function whose count cannot be read")
        if isinstance(node, (ast.If, ast.IfExp)):
            body, orelse = ([node.body], [node.orelse]) if isinstance(node, ast.IfExp) else (node.body, node.orelse)
            taken, other = sum(count(child) for child in body), sum(count(child) for child in orelse)
            if taken != other:
                refuse(node, f"{bench}.progress called {taken} times on one branch, {other} on the other")
            return count(node.test) + taken
        return inner

    return sum(count(statement) for statement in tree.body)


class Lab(ABC, Generic[S, R]):
    """What a lab declares. Subclasses set the class attributes and implement the methods."""

    id: ClassVar[str]                 # "lab-01": derived from its package, labkit.labs.lab01
    folder: ClassVar[str]             # "01-roofline": labs/<folder>/ holds its notebook and results
    chapter: ClassVar[str]            # its chapter page, relative to docs/<lang>/: chapter NN's unless set
    results_type: ClassVar[type[Record]]
    gpu_sizes: ClassVar[Record]
    simulator_sizes: ClassVar[Record]
    #: Sizes fields that `labkit run` lets a user change (a run that changes one is an experiment).
    adjustable: ClassVar[tuple[str, ...]] = ()
    #: The tools its steps use on a GPU, and what it does without each (labkit doctor).
    needs: ClassVar[tuple[Need, ...]] = ()

    def __init_subclass__(cls, **kwargs):
        """A lab defined in ``labkit.labs.labNN`` is ``lab-NN``, and its chapter is chapter NN's page
        (labkit.chapters) unless it names another; a lab defined elsewhere (a test's) sets both."""
        super().__init_subclass__(**kwargs)
        package = re.fullmatch(r"labkit\.labs\.lab(\d\d)", cls.__module__)
        if package is None:
            return
        if "id" not in cls.__dict__:
            cls.id = f"lab-{package[1]}"
        if "chapter" not in cls.__dict__:
            number = int(package[1])
            if number not in CHAPTERS:
                raise TypeError(f"labkit/labs/lab{package[1]}: there is no chapter {number} in labkit/chapters.py: "
                                "add it there, or set the lab's chapter")
            cls.chapter = page(number)

    def _module(self, name: str):
        """The module ``name`` of the lab's own package (labkit.labs.labNN.<name>), imported now:
        a lab's program chooses the GPU or the simulator when it is imported, so nothing imports it
        before a run asks for it. None where the package has no such module."""
        package = type(self).__module__
        if not hasattr(sys.modules.get(package), "__path__") or importlib.util.find_spec(f"{package}.{name}") is None:
            return None   # a Lab defined in a plain module (a test's) has no parts beside it
        return importlib.import_module(f"{package}.{name}")

    def program(self) -> Program[S, R]:
        """The lab's program: the one Program subclass its package's ``program`` module defines."""
        module = self._module("program")
        found = [] if module is None else [
            c for c in vars(module).values()
            if isinstance(c, type) and issubclass(c, Program) and c.__module__ == module.__name__]
        if len(found) != 1:
            raise TypeError(f"{type(self).__module__}.program must define one Program subclass, not {len(found)}")
        return found[0]()

    @abstractmethod
    def tables(self, results: R) -> list[Table]:
        """The results as language-neutral tables (labkit.report.tables)."""

    def figures(self, results: R, lang: str) -> list[etree.Element]:
        """The results as figures in ``lang`` (inline SVG); none by default."""
        return []

    def gains(self, results: R) -> list[Gain]:
        """What the checklist's levers gave in this lab's results (chapter 5 renders them); none by default."""
        return []

    def cases(self, results: R) -> dict[str, Case]:
        """The kernels a chapter shows as cases, by key (``/// profile | lab-NN-key``); none by default."""
        return {}

    def sizes_for(self, facts: DeviceFacts) -> Record:
        """The lab's sizes on the device ``facts`` describes (a pure function of them): on the
        course's GPU, ``gpu_sizes`` exactly; on another, sizes that fit its memory, grids from its
        SM count and occupancy (labkit.labs.planning), by its package's ``sizing.sizes_for(facts,
        gpu_sizes)``. A lab without a sizing module keeps ``gpu_sizes``."""
        sizing = self._module("sizing")
        return self.gpu_sizes if sizing is None else sizing.sizes_for(facts, self.gpu_sizes)

    def footprint_bytes(self, sizes: Record) -> int | None:
        """The most device memory the lab's buffers hold at once at ``sizes`` (its plan's rule: its
        package's ``sizing.footprint_bytes``); None where the lab does not say."""
        sizing = self._module("sizing")
        return None if sizing is None else sizing.footprint_bytes(sizes)

    def device_notes(self, facts: DeviceFacts) -> list[str]:
        """What differs for this lab on the device ``facts`` describes, beyond its sizes (labkit
        doctor): e.g. FP64 at 1:64, fewer warps per SM. None by default."""
        return []

    @property
    def number(self) -> str:
        return self.id.removeprefix("lab-")

    @property
    def notebook(self) -> str:
        """The notebook's path in the project: ``labs/<folder>/labNN.py``."""
        return f"labs/{self.folder}/lab{self.number}.py"

    def lab_dir(self, project: Project) -> Path:
        return project.lab_dir(self.folder)

    def sizes_with(self, changes: dict, base: Record | None = None) -> Record:
        """``base`` (the GPU sizes by default) with ``changes``; a change to a field that is not
        adjustable, or to an impossible value, is refused in one line."""
        fixed = sorted(set(changes) - set(self.adjustable))
        if fixed:
            raise UnknownLabError(f"{self.id} has no adjustable {', '.join(fixed)}"
                                  + (f" (adjustable: {', '.join(self.adjustable)})" if self.adjustable else ""))
        base = base or self.gpu_sizes
        try:
            return type(base).model_validate({**base.model_dump(), **changes})
        except ValidationError as exc:
            raise UnknownLabError(f"{self.id}: sizes {describe_validation_error(exc)}") from None


class UnknownLabError(LabkitError, ValueError):
    """A lab id or option that does not exist."""


@functools.cache
def labs() -> dict[str, Lab]:
    """Every lab of labkit.labs, by id: each ``labkit/labs/labNN`` package's ``LAB``."""
    import labkit.labs as package

    found: dict[str, Lab] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if not LAB_PACKAGE.fullmatch(info.name):
            continue
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        lab = getattr(module, "LAB", None)
        if not isinstance(lab, Lab):
            raise TypeError(f"{module.__name__} must define LAB, an instance of labkit.labs.base.Lab")
        if lab.id != f"lab-{info.name.removeprefix('lab')}":
            raise TypeError(f"{module.__name__}.LAB has id {lab.id!r}: a package labNN holds lab-NN")
        found[lab.id] = lab
    return dict(sorted(found.items()))


def lab(lab_id: str) -> Lab:
    """The lab with this id; UnknownLabError lists the labs that exist."""
    known = labs()
    if lab_id not in known:
        raise UnknownLabError(f"unknown lab '{lab_id}': choose one of {', '.join(known)}")
    return known[lab_id]
