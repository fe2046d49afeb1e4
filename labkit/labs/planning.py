"""What every lab's plan shares: how much of a GPU's memory a lab may use, and how sizes shrink to fit.

A lab's plan (``labkit/labs/labNN/sizing.py``, :meth:`labkit.labs.base.Lab.sizes_for`) is a pure function
of the device's facts: on the course's GPU, the H200 (labkit.specs.profiles.COURSE_GPU), it is the
lab's ``gpu_sizes`` exactly, so that the recorded results stay comparable; on another GPU, sizes
shrink by halves until the lab's buffers fit in :func:`memory_budget_bytes`, grids follow its SM
count and its occupancy, and the slowest loops are shortened where FP64 runs at 1:64.
"""

from __future__ import annotations

from collections.abc import Callable

from labkit.gpu.device import DeviceFacts

#: The share of a GPU's memory a lab's buffers may hold at once: room to spare for the display, the
#: driver, CuPy's pool and the L2 flush buffer (a 6 GB laptop GPU: 1.5 GB; the H200: 37 GB).
MEMORY_SHARE = 0.25
#: The longest one timed FP64 call may take at the part's FP64 peak (a 1:64 part runs FP64 32 times
#: slower than a 1:2 one: lab 01's FMA chains are shortened there, not its grid).
FP64_CALL_SECONDS = 0.05


def memory_budget_bytes(facts: DeviceFacts) -> int:
    """The bytes a lab's buffers may hold at once on this device: MEMORY_SHARE of its memory, less
    the timer's L2 flush buffer (twice L2, labkit.gpu.timing)."""
    return int(facts.memory_bytes * MEMORY_SHARE) - 2 * facts.l2_bytes


def halve_until(value: int, fits: Callable[[int], bool], smallest: int) -> int:
    """``value`` halved (integer division) until ``fits(value)``, never below ``smallest``."""
    while not fits(value) and value // 2 >= smallest:
        value //= 2
    return value


def resident_threads_per_sm(facts: DeviceFacts) -> int:
    """Threads an SM holds at once (Guide, technical specifications): 2048, 1536 or 1024."""
    from labkit.models.occupancy import architecture

    return architecture(facts.compute_capability).max_threads_per_sm
