"""``numba.cuda``, imported only once the backend is chosen: ``from labkit.gpu import cuda``.

Numba reads NUMBA_ENABLE_CUDASIM when ``numba.cuda`` is first imported. Every labkit module that
runs kernels imports ``cuda`` from here (a test checks that none imports it from numba
directly), so importing any of them, in any order, picks the GPU when there is one and the
simulator otherwise.
"""

from __future__ import annotations

import contextlib
import warnings

import numpy as np

from labkit.gpu.backend import NO_GPU_NOTICE, NoGPUError, select_backend

SIMULATED = select_backend() == "simulator"

from numba import cuda  # noqa: E402  (after the choice, on purpose)
from numba.cuda.core.errors import NumbaPerformanceWarning  # noqa: E402,F401  (numba-cuda's own class)
from numba.cuda.misc.special import literal_unroll  # noqa: E402,F401  (numba-cuda's, which its typing knows)

if SIMULATED:
    from labkit.simulator.threads import install

    install()


def nan_device_array(shape, dtype=np.float32):
    """A device array of NaN, for a kernel's output in a check: an element the kernel failed to
    write cannot pass for a right one."""
    return cuda.to_device(np.full(shape, np.nan, dtype=dtype))


def require_gpu(why: str = NO_GPU_NOTICE):
    """``numba.cuda`` on a real GPU; NoGPUError(why) in the simulator."""
    if SIMULATED:
        raise NoGPUError(why)
    return cuda


@contextlib.contextmanager
def expected_warnings_hidden():
    """Run the course's code without numba-cuda's NumbaPerformanceWarning ("Grid size 2 will likely
    result in GPU under-utilization...", "Host array used in CUDA kernel will have its contents
    automatically copied..."): the checks run at toy size, and the small grids some labs and
    exercises launch are what their pages teach, so the warning would only repeat it, in colour
    codes, above the tables. Every other warning still shows."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NumbaPerformanceWarning)
        yield
