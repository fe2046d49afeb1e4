"""Which backend the labs run on: a CUDA GPU, or the Numba CUDA simulator.

Numba reads ``NUMBA_ENABLE_CUDASIM`` once, when ``numba.cuda`` is first imported, so the
choice must be made before that import: every labkit module that needs ``numba.cuda``
calls :func:`select_backend` first and imports ``numba.cuda`` afterwards.

The GPU probe goes through the CUDA driver library with ctypes (``cuInit(0)`` then
``cuDeviceGetCount``), never through ``numba.cuda``. Code that runs kernels imports ``cuda``
from :mod:`labkit.gpu`, which selects first, so no import order can bypass the choice.
"""

from __future__ import annotations

import ctypes
import os
import sys

from labkit.errors import LabkitError
from labkit.report.labels import label

SIMULATOR_ENV = "NUMBA_ENABLE_CUDASIM"
#: Set by the site's build while it runs a lab notebook for its page (labkit/site/notebook_page.py):
#: LabSession touches no GPU, skips the simulator's checks (minutes) and shows the records.
NOTEBOOK_PREVIEW_ENV = "LABKIT_NOTEBOOK_PREVIEW"

#: In the terminal; a notebook says it in its own language (the same label).
NO_GPU_NOTICE = label("en", "notebook.no_gpu")

_DRIVER_LIBRARY = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"
_CUDA_SUCCESS = 0

_chosen: str | None = None


class NoGPUError(LabkitError, RuntimeError):
    """Raised where a CUDA GPU is needed and none is usable; the message is one line."""


def cuda_device_count() -> int:
    """The number of usable CUDA devices per the driver: 0 when the driver is missing or cuInit fails."""
    try:
        driver = ctypes.CDLL(_DRIVER_LIBRARY)
    except OSError:
        return 0
    if driver.cuInit(0) != _CUDA_SUCCESS:
        return 0
    count = ctypes.c_int(0)
    if driver.cuDeviceGetCount(ctypes.byref(count)) != _CUDA_SUCCESS:
        return 0
    return count.value


def _choose() -> str:
    if os.environ.get(SIMULATOR_ENV) == "1":
        return "simulator"
    config = sys.modules.get("numba.cuda.core.config")
    if config is not None:  # numba.cuda is already imported: its choice is final
        return "simulator" if config.ENABLE_CUDASIM else "cuda"
    return "cuda" if cuda_device_count() > 0 else "simulator"


def select_backend() -> str:
    """"cuda" when a GPU is usable, else "simulator" (and NUMBA_ENABLE_CUDASIM=1 is set).

    Rules, in order: NUMBA_ENABLE_CUDASIM=1 already set -> simulator; numba.cuda already
    imported -> whatever it chose; the driver reports at least one device -> cuda;
    otherwise simulator. Decided once per process, so later calls are free.
    """
    global _chosen
    if _chosen is None:
        _chosen = _choose()
        if _chosen == "simulator":
            os.environ[SIMULATOR_ENV] = "1"
            _numba_rereads_the_variable()
    return _chosen


def _numba_rereads_the_variable() -> None:
    """numba reads NUMBA_ENABLE_CUDASIM when ``numba`` itself is imported (numba.core.config,
    which numba-cuda's config is): a module that imported ``numba`` before this choice (``from
    numba import float32`` above ``from labkit.gpu import cuda``) would otherwise leave numba.cuda,
    imported after it, on the real driver. Re-read it while numba.cuda is not imported yet."""
    config = sys.modules.get("numba.core.config")
    if config is not None and "numba.cuda" not in sys.modules:
        config.reload_config()


def is_simulator() -> bool:
    return select_backend() == "simulator"
