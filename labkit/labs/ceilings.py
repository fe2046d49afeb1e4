"""The course's copy ceiling: one kernel, one size, one method, for every lab that compares with it.

Chapter 1 places a kernel against a *measured* ceiling; a ceiling measured differently from lab
to lab is not one: lab 05 timed lab 01's copy on 128 MiB arrays and read 3 875 GB/s, then its own
control (a streaming kernel) ran at 4 144, while lab 01 measured the copy at 4 242 in the same hour
(issue 19). Each lab now calls :func:`measure`, which is always:

- the kernel: lab 01's ``copy_wide`` (labkit.kernels.roofline_kernels), float32, four loads in
  flight per thread before any store, blocks of :data:`COPY_THREADS`;
- the size: :data:`COPY_ARRAY_BYTES` per array (read, and as many written), large enough that the
  launch and the ramp at both ends cost nothing measurable. On the H200 (2026-12-01,
  labkit/calibration/sweep_probe.py, medians of 20, L2 flushed) ``copy_wide`` moved 4 270 GB/s at 2 GiB
  per array, 4 135 at 256 MiB, 3 886 to 3 997 at 128 MiB and 3 670 at 64 MiB, ``cupy.copyto``
  the same within 1 % at every size: the copy of a small array is not a ceiling;
- the method: labkit's timer (labkit.gpu.timing.time_gpu) with L2 flushed before each call,
  :data:`WARMUP` calls, then the median of :data:`REPEATS`, its min and max beside it.

Bytes counted: read + written, as every course figure of bandwidth. In the simulator the same
steps run on :data:`SIMULATOR_ARRAY_BYTES` with the lab's stand-in timer (no figure is kept).
"""

from __future__ import annotations

import numpy as np

from labkit.gpu.timing import Timing
from labkit.labs.base import Bench
from labkit.records import PositiveInt, Record

#: Bytes of each of the two arrays (read, written) on a GPU, and in the simulator.
COPY_ARRAY_BYTES = 2 << 30
SIMULATOR_ARRAY_BYTES = 8192
COPY_THREADS = 256
WARMUP = 5
REPEATS = 20


class CopyCeiling(Record):
    """The course's copy ceiling as one run measured it (module docstring)."""

    copy_bytes: PositiveInt        # read + written per call
    timing: Timing

    @property
    def gbps(self) -> float:
        """The ceiling: bytes read + written over the median time, in GB/s."""
        return self.timing.gbps(self.copy_bytes)

    @property
    def fastest_gbps(self) -> float:
        """Over the fastest call: the ceiling plus the timer's spread. A kernel above it moved its
        bytes faster than the copy ever did in the same run."""
        return self.copy_bytes / self.timing.min_seconds / 1e9


def array_bytes(bench: Bench) -> int:
    return SIMULATOR_ARRAY_BYTES if bench.simulated else COPY_ARRAY_BYTES


def measure(bench: Bench, bytes_per_array: int | None = None) -> CopyCeiling:
    """The copy ceiling on this device (module docstring); ``bytes_per_array`` only where a lab's
    adjustable size asks for another (lab 01's ``copy_bytes``), else :func:`array_bytes`."""
    from labkit.gpu import cuda
    from labkit.kernels.roofline_kernels import copy_blocks, copy_wide

    elements = (bytes_per_array or array_bytes(bench)) // 4
    source = cuda.to_device(np.ones(elements, np.float32)) if bench.simulated else _filled(elements)
    target = cuda.device_array(elements, np.float32)
    launch = copy_wide[copy_blocks(elements, COPY_THREADS), COPY_THREADS]
    timing = bench.time_gpu(lambda: launch(source, target), warmup=WARMUP, repeats=REPEATS, flush_l2=True)
    return CopyCeiling(copy_bytes=2 * 4 * elements, timing=timing)


def _filled(elements: int):
    """A float32 device array filled on the device (no 2 GiB host array to copy over); the copy's
    time does not depend on the values."""
    from numba.cuda.cudadrv.driver import device_memset

    from labkit.gpu import cuda

    array = cuda.device_array(elements, np.float32)
    device_memset(array, 0x3F, 4 * elements)     # every byte 0x3F: each float 0x3F3F3F3F, about 0.75
    return array
