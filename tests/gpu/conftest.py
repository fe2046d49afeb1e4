"""GPU tests: skipped in one line without a CUDA GPU; each prints and records what it measured.

Set LABKIT_GPU_RECORD_DIR to a folder to get each test's figures there as <name>.json.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from labkit.gpu.backend import select_backend


@pytest.fixture(autouse=True)
def _needs_a_cuda_gpu(request):
    if request.node.get_closest_marker("gpu") and select_backend() != "cuda":
        pytest.skip("no CUDA GPU")


@pytest.fixture
def record(capsys):
    """record(name, figures): print the figures, and write them as JSON where asked."""

    def write(name: str, figures: dict) -> None:
        with capsys.disabled():
            print(f"\n[{name}] {json.dumps(figures)}")
        folder = os.environ.get("LABKIT_GPU_RECORD_DIR")
        if folder:
            Path(folder).mkdir(parents=True, exist_ok=True)
            (Path(folder) / f"{name}.json").write_text(json.dumps(figures, indent=2) + "\n")

    return write
