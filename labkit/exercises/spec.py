"""What an exercise declares, once: the learner's file and what it must define, the inputs and
NumPy's answer, how the learner's code is called, and the criteria it is held to.

The command line (``labkit check``), the chapter's ``/// exercise`` block and the tests all read
these definitions. Importing this module runs no GPU code: the site imports it anywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

#: Where a criterion is measured: from the trace of a run in Numba's CUDA simulator (so also
#: without a GPU), or on a GPU (the learner's time against ours, the compiled kernel's resources).
Where = Literal["simulator", "gpu"]

#: The metric every exercise is held to first: the output equals NumPy's, nothing was written
#: outside the outputs, no input was changed.
CORRECT = "correct"
#: The metric every exercise is held to next, at most 0: output elements host code wrote last (an
#: exercise is about its kernels: an answer computed with NumPy and copied back passes nothing).
HOST_WRITTEN = "host_written"
#: And then, at most 0: input elements no kernel read. An answer computed on the host and copied
#: to the device, then moved into the output by a kernel, has every output element written by a
#: kernel (HOST_WRITTEN 0) and no input read by one.
INPUTS_UNREAD = "inputs_unread"


@dataclass(frozen=True)
class Metric:
    """A figure a criterion can hold: ``compute(evidence)`` for a simulator metric (evidence is a
    labkit.exercises.watch.Evidence), None for one measured on a GPU; shown with ``decimals``."""

    id: str
    where: Where
    decimals: int
    compute: Callable[[object], float] | None = None


@dataclass(frozen=True)
class Criterion:
    """``metric`` (a key of labkit.exercises.metrics, or CORRECT) must be at most / at least
    ``target``; when it is not, the learner reads ``hint`` (a label key) and is sent to the
    chapter's section ``section`` (its ``{#anchor}``, the same in every language). A bound is a
    number, or a function of nothing that computes it when a check or a page first needs it (one
    derived from a lab's record: importing the exercises reads no record)."""

    metric: str
    where: Where
    section: str
    hint: str
    at_most: float | Callable[[], float] | None = None
    at_least: float | Callable[[], float] | None = None

    def __post_init__(self) -> None:
        if self.metric != CORRECT and (self.at_most is None) == (self.at_least is None):
            raise ValueError(f"criterion {self.metric}: give exactly one of at_most and at_least")

    @property
    def target(self) -> float | None:
        bound = self.at_most if self.at_most is not None else self.at_least
        return bound() if callable(bound) else bound

    def passes(self, value: float) -> bool:
        """value <= at_most, or value >= at_least."""
        return value <= self.target if self.at_most is not None else value >= self.target


@dataclass(frozen=True)
class Exercise:
    """One exercise of a chapter.

    - ``id``: ``NN-name`` (``make exercise-NN-name``); ``chapter``: its page under ``docs/<lang>/``.
    - ``learner_file``: the skeleton the learner edits, under ``labs/``; ``solution``: our answer,
      the module ``labkit.exercises.solutions.<solution>``, kept apart and shown on request.
    - ``entries``: what the learner's file must define, with its parameters in order.
    - ``inputs(elements, rng)``: the arrays and scalars of one run; ``outputs``: the arrays the
      code writes (poisoned before the run); ``expected(inputs)``: NumPy's outputs; ``scratch``:
      arrays the code may use as it likes (guarded, not compared). Every other array is an input
      the code must leave as it found it.
    - ``call(module, args)``: runs the learner's (or our) code on ``args`` (device arrays on a GPU);
      by default, an exercise of one entry calls it with the arguments its parameters name.
    - ``simulator_elements`` / ``gpu_elements``: the size of a check in the simulator (small: it
      runs on the CPU) and on a GPU (large enough to time).
    - ``flush_l2``: time with L2 flushed (what HBM is meant to serve).

    Every exercise is also held to :data:`HOST_WRITTEN` and :data:`INPUTS_UNREAD` (at most 0, sent
    to the section of its ``correct`` criterion): the criteria are added here, after ``correct``,
    not in each chapter.
    """

    id: str
    chapter: str
    learner_file: str
    solution: str
    entries: Mapping[str, tuple[str, ...]]
    inputs: Callable[[int, np.random.Generator], dict[str, object]]
    outputs: tuple[str, ...]
    expected: Callable[[dict[str, object]], dict[str, np.ndarray]]
    criteria: tuple[Criterion, ...]
    simulator_elements: int
    gpu_elements: int
    call: Callable[[object, dict[str, object]], None] | None = None
    scratch: tuple[str, ...] = ()
    #: The fewest DRAM bytes per element any right answer moves (chapter 1's floor); on a GPU the
    #: check shows the learner's bandwidth at these bytes, and the tests hold it under the peak.
    floor_bytes_per_element: float | None = None
    flush_l2: bool = True
    rtol: float = 1e-5
    atol: float = 1e-6
    #: Metrics shown beside the criteria (no target): what a learner should look at.
    shown: tuple[str, ...] = field(default=())
    #: The criteria the file fails as shipped (the tests hold it to this: a skeleton fails with the
    #: hints the page shows for these, never with a crash).
    skeleton_fails: tuple[str, ...] = field(default=())
    #: Metrics of this exercise only (labkit.exercises.metrics holds the shared ones).
    own_metrics: tuple[Metric, ...] = field(default=())
    #: Inputs no kernel needs to read, the same data reaching the code another way (04-chain's
    #: ``coefficients``, also given to the host as ``host_coefficients``): INPUTS_UNREAD skips them.
    unread_inputs_allowed: tuple[str, ...] = field(default=())

    def __post_init__(self) -> None:
        if self.call is None:
            if len(self.entries) != 1:
                raise ValueError(f"exercise {self.id}: {len(self.entries)} entries, so it must say how to call them "
                                 "(call=)")
            [(name, parameters)] = self.entries.items()
            object.__setattr__(self, "call", lambda module, args: getattr(module, name)(*(args[p] for p in parameters)))
        if any(c.metric == HOST_WRITTEN for c in self.criteria):
            return
        first = self.criteria[0]
        if first.metric != CORRECT:
            raise ValueError(f"exercise {self.id}: its first criterion must be '{CORRECT}'")
        on_device = (Criterion(HOST_WRITTEN, "simulator", section=first.section, hint="exercise.hint.host_written",
                               at_most=0),
                     Criterion(INPUTS_UNREAD, "simulator", section=first.section, hint="exercise.hint.inputs_unread",
                               at_most=0))
        object.__setattr__(self, "criteria", (first, *on_device, *self.criteria[1:]))

    def read_inputs(self, inputs: Mapping[str, object]) -> tuple[str, ...]:
        """The arrays of ``inputs`` (one run's) that every right answer's kernels read whole (INPUTS_UNREAD)."""
        return tuple(name for name, value in inputs.items()
                     if isinstance(value, np.ndarray) and name not in self.outputs and name not in self.scratch
                     and name not in self.unread_inputs_allowed)

    @property
    def number(self) -> str:
        return self.id.split("-", 1)[0]

    @property
    def command(self) -> str:
        return f"make exercise-{self.id}"

    def criterion(self, metric: str) -> Criterion:
        return next(c for c in self.criteria if c.metric == metric)
