"""Each lab's measurement, run once per session in the simulator with the stand-in timer, shared by
test_measure_in_simulator.py and test_device_matrix.py.

Each lab runs on a different common part (:data:`SIMULATED_ON`, 2 SMs of it: tests/labs/stand_in.py),
so that the suite goes through several compute capabilities' code paths without running every lab
on every GPU; test_device_matrix.py runs the others (all of them with LABKIT_DEVICE_MATRIX=all).
"""

from __future__ import annotations

import warnings

import pytest

from labkit.labs.base import labs
from tests.labs.stand_in import simulated_facts, stand_in_bench

#: The part each lab's shared measurement runs on (a lab not named here: the course's H200).
SIMULATED_ON = {"lab-01": "t4", "lab-02": "rtx-3060-laptop", "lab-03": "h200", "lab-04": "b200", "lab-05": "rtx-5090",
               "lab-06": "v100"}


def simulated_on(lab_id: str) -> str:
    return SIMULATED_ON.get(lab_id, "h200")


def measure_in_simulator(lab_id: str, profile: str, work_dir):
    """(facts, results, progress steps) of the lab's measurement on the simulated part, at its simulator sizes."""
    lab = labs()[lab_id]
    facts = simulated_facts(profile)
    steps: list[str] = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the simulator's own notices about tiny grids and bogus timings
        results = lab.program().measure(stand_in_bench(work_dir, steps, facts), lab.simulator_sizes)
    return facts, results, steps


@pytest.fixture(scope="session", params=list(labs()))
def measured(request, tmp_path_factory):
    """(lab, facts, results, steps) of each lab, measured once on SIMULATED_ON's part."""
    lab_id = request.param
    facts, results, steps = measure_in_simulator(lab_id, simulated_on(lab_id), tmp_path_factory.mktemp(lab_id))
    return labs()[lab_id], facts, results, steps
