"""Step 1 of a check, as the check's child process runs it in the simulator: the learner's code on
guarded inputs, traced, and what the child hands back to labkit's process (labkit.exercises.check
judges it). The GPU step's twin is labkit.exercises.on_gpu."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from labkit.exercises import handover
from labkit.exercises.learner import learner_code, load
from labkit.exercises.metrics import metric
from labkit.exercises.spec import CORRECT, Exercise
from labkit.exercises.watch import LaunchListener


def in_simulator(exercise: Exercise, path: Path, shown_as: str, seed: int,
                 listener: LaunchListener | None = None) -> dict:
    """Step 1's run, in the check's child process (which must be the simulator's): the learner's
    code on the inputs of ``seed``, traced. What it hands to labkit's process, which judges it
    (labkit.exercises.check.judged_in_simulator): each array's guarded buffer after the run
    (``buffers``, base64) and each simulator metric the exercise holds or shows, computed from the
    trace (``values``)."""
    from labkit.exercises.guarded import Guarded
    from labkit.exercises.watch import watched
    from labkit.gpu import cuda

    module = load(path, shown_as, exercise.entries)
    inputs = exercise.inputs(exercise.simulator_elements, np.random.default_rng(seed))
    run = Guarded(inputs, exercise.outputs, cuda.to_device, exercise.scratch)
    outputs = {name: run.args[name] for name in exercise.outputs}
    read = {name: run.args[name] for name in exercise.read_inputs(inputs)}
    with (watched(exercise.simulator_elements, module, outputs, listener, read) as evidence,
          learner_code(path, shown_as)):
        exercise.call(module, run.args)
    values = {name: float(metric(exercise, name).compute(evidence)) for name in simulator_metrics(exercise)}
    return {"buffers": handover.encoded(run.raw()), "values": values}


def simulator_metrics(exercise: Exercise) -> list[str]:
    """The simulator metrics a check computes: the criteria's, then those only shown."""
    held = [c.metric for c in exercise.criteria if c.metric != CORRECT and c.where == "simulator"]
    shown = [name for name in exercise.shown if metric(exercise, name).where == "simulator" and name not in held]
    return held + shown
