"""Finding the CUDA toolkit's command-line tools (ncu, nsys, cuobjdump, nvdisasm)."""

from __future__ import annotations

import shutil
import subprocess
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


def run_tool(command: list[str], timeout_seconds: float, error: type[Exception],
             env: dict[str, str] | None = None, stdout=None) -> subprocess.CompletedProcess:
    """Run a CUDA tool (in ``env``, default: this process's environment), its output captured (or
    its standard output written to the open file ``stdout``); ``error`` (one line) if it cannot
    start or does not finish within ``timeout_seconds``. The caller reads the output for the tool's
    own errors."""
    what = " ".join([Path(command[0]).name, *command[1:2]])
    try:
        if stdout is not None:
            return subprocess.run(command, stdout=stdout, stderr=subprocess.PIPE, text=True,
                                  timeout=timeout_seconds, env=env)
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout_seconds, env=env)
    except subprocess.TimeoutExpired:
        raise error(f"{what} did not finish within {timeout_seconds:g} s") from None
    except OSError as exc:
        raise error(f"{what} could not start: {exc.strerror}") from None
