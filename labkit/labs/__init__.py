"""One package per lab: ``labkit.labs.labNN`` defines it (ids, sizes, results schema, tables; no
GPU code, so the site can import it) and ``labkit.labs.labNN.program`` runs it (kernels, timing,
profilers; importing it chooses the GPU or the simulator).
"""

from __future__ import annotations

import importlib

#: lab id -> its package under labkit.labs.
LABS = {"lab-01": "labkit.labs.lab01", "lab-04": "labkit.labs.lab04"}


def load_lab(lab_id: str):
    """The lab's definition; ValueError lists the labs that exist."""
    if lab_id not in LABS:
        raise ValueError(f"unknown lab '{lab_id}': choose one of {', '.join(sorted(LABS))}")
    return importlib.import_module(LABS[lab_id])


def load_program(lab_id: str):
    """The lab's program (kernels and measurements)."""
    load_lab(lab_id)
    return importlib.import_module(LABS[lab_id] + ".program")
