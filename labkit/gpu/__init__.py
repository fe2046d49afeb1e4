"""The GPU wing, and its front door: ``from labkit.gpu import cuda``.

``cuda`` (numba.cuda, imported once the backend is chosen), ``SIMULATED``, ``nan_device_array``,
``require_gpu`` and ``expected_warnings_hidden`` live in labkit/gpu/_numba.py and are imported on
first use (PEP 562), so that ``python -m labkit.gpu.setup`` (standard library only, run before the
GPU wheels exist) and labkit.gpu.backend import no numba. To patch one in a test, patch
``labkit.gpu._numba``.
"""

from __future__ import annotations

import importlib

PUBLIC = (
    "cuda",
    "SIMULATED",
    "nan_device_array",
    "require_gpu",
    "expected_warnings_hidden",
    "NumbaPerformanceWarning",
    "literal_unroll",
)


def __getattr__(name: str):
    if name in PUBLIC:
        return getattr(importlib.import_module("labkit.gpu._numba"), name)
    raise AttributeError(f"module 'labkit.gpu' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(PUBLIC))
