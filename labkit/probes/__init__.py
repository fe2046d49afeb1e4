"""GPU calibration probes: each holds one of labkit's models (the memory-access analyzer, the
occupancy calculator) to what a real GPU and its profiler report. The work is planned in pure,
CPU-tested functions; only the launch and the profiler touch the GPU.
"""

from __future__ import annotations

import json
from pathlib import Path

from labkit.results import Provenance


def write_calibration(path: Path, lab_id: str, prov: Provenance, results: dict) -> Path:
    """A probe's output: its provenance and its findings, as JSON (the raw data a lab later records)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    document = {"lab": lab_id, "provenance": prov.model_dump(mode="json"), "results": results}
    path.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    return path
