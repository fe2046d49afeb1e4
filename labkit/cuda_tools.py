"""Finding the CUDA toolkit's command-line tools (ncu, nsys, cuobjdump, nvdisasm)."""

from __future__ import annotations

import shutil
from pathlib import Path

#: Where the CUDA toolkit installs its tools when they are not on PATH.
CUDA_BIN = Path("/usr/local/cuda/bin")


def find_tool(name: str, cuda_bin: Path | None = None) -> str | None:
    """The tool's path: on PATH, else in the CUDA toolkit's bin folder (CUDA_BIN), else None."""
    found = shutil.which(name)
    if found:
        return found
    candidate = (CUDA_BIN if cuda_bin is None else cuda_bin) / name
    return str(candidate) if candidate.is_file() else None
