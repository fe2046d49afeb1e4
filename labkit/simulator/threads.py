"""The CUDA threads of a block in Numba's CUDA simulator, as greenlets instead of Python threads.

numba-cuda's simulator (``numba.cuda.simulator.kernel``) starts one Python thread per CUDA thread
of a block, then polls them in a loop until each has reached ``syncthreads`` or ended. Starting
and joining a thread costs about 80 µs on a 2-core machine, several times what a simple kernel's
body costs, and the poller holds the GIL while the threads it waits for are ready to run (a
32 x 32 shared-memory tile: 4 to 16 s a block).

Here each CUDA thread is a greenlet (a coroutine with its own stack, switched to in under a
microsecond: 0.37 µs here), run by the block's launch, in the OS thread that launched the kernel:

- the launch runs each live thread, in the order the simulator started them, until it reaches
  ``syncthreads`` or ends; once every live thread has done so, the barrier is passed and the
  launch runs them again, until all have ended. Threads that have ended take no part in later
  barriers, as in the simulator;
- the first thread to raise ends the launch with its exception, prefixed ``tid=[x, y, z]
  ctaid=[x, y, z]: `` as the simulator prefixes it; the other threads are not run again;
- a barrier that not every thread of the block reaches (some wait at ``syncthreads``, others
  end without it, or wait at another ``syncthreads`` of the kernel) ends the launch with a
  :class:`DivergentBarrier`, raised in a waiting thread at its ``syncthreads`` line: CUDA allows
  ``__syncthreads()`` in conditional code "only if the conditional evaluates identically across
  the entire thread block, otherwise the code execution is likely to hang or produce unintended
  side effects" (CUDA C++ Programming Guide, Synchronization Functions); the simulator itself
  passed the barrier with the threads that reached it;
- ``cuda.threadIdx``, ``cuda.blockIdx``, ``cuda.laneid``, ``syncthreads`` and its ``_count``,
  ``_and`` and ``_or`` forms (and a grid group's ``sync``) ask :func:`current_thread`, which is the
  greenlet running, instead of ``threading.current_thread()``.

A thread runs until it waits, so two threads of a block never interleave between barriers: the
simulator's Python threads nearly never did either (the GIL hands over every 5 ms), and a kernel
that reads what another thread writes without a barrier between them is still caught, since that
thread has not run yet, or has already finished. A thread that spins until another thread of its
block writes a flag never ends here (on a GPU such a wait may hang as well); an exercise's check
stops it at its time limit and says so.

:func:`install` replaces the block's launch for the numba-cuda version it was written against
(NUMBA_CUDA_VERSION) and leaves any other version's simulator as it is.
"""

from __future__ import annotations

import functools
import sys
import threading
from importlib.metadata import version
from pathlib import Path

import greenlet
import numpy as np

#: The numba-cuda release whose BlockManager.run and kernel API's thread lookup are replaced.
NUMBA_CUDA_VERSION = "0.30.4"


class SimulatedThread(greenlet.greenlet):
    """One CUDA thread of a block: the attributes of the simulator's BlockThread (``threadIdx``,
    ``blockIdx``, ``thread_id``, ``syncthreads`` and its forms) on a greenlet."""

    def __init__(self, manager, block_index: tuple[int, ...], thread_index: tuple[int, ...]) -> None:
        super().__init__()
        from numba.cuda.simulator.kernelapi import Dim3

        self._manager = manager
        self.blockIdx = Dim3(*block_index)
        self.threadIdx = Dim3(*thread_index)
        block = manager._block_dim
        self.thread_id = self.threadIdx.x + block[0] * (self.threadIdx.y + block[1] * self.threadIdx.z)

    def run(self, *args) -> None:
        if self._manager._debug:
            np.seterr(divide="raise")   # as the simulator's debug threads do (this greenlet's own context)
        self._manager._f(*args)

    def syncthreads(self) -> None:
        """Wait at the block's barrier: back to the launch, which runs this thread again once every
        live thread of the block has reached the barrier (the same one: :attr:`waits_at`)."""
        self.waits_at = _kernel_line(sys._getframe(1))
        self.parent.switch()

    def __str__(self) -> str:
        return f"Thread <<<{self.blockIdx}, {self.threadIdx}>>>"


class DivergentBarrier(RuntimeError):
    """A ``syncthreads`` that only part of a block reached (see the module's docstring)."""


def _kernel_line(frame) -> tuple[str, int]:
    """The first frame outside the simulator and this module: the kernel's line that waits."""
    simulator = _simulator_folder()
    while frame is not None and (frame.f_code.co_filename.startswith(simulator)
                                 or frame.f_code.co_filename == __file__):
        frame = frame.f_back
    return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else ("", 0)


@functools.cache
def _simulator_folder() -> str:
    from numba.cuda.simulator import kernel

    return str(Path(kernel.__file__).parent)


def current_thread():
    """The simulated CUDA thread running now, else the Python thread (host code)."""
    running = greenlet.getcurrent()
    return running if isinstance(running, SimulatedThread) else threading.current_thread()


class _ThreadingForKernels:
    """What the simulator's kernel API sees as ``threading``: the module, except that
    ``current_thread()`` is the simulated CUDA thread running."""

    current_thread = staticmethod(current_thread)

    def __getattr__(self, name: str):
        return getattr(threading, name)


def _run_block(manager, grid_point, *args) -> None:
    """BlockManager.run: every thread of the block up to the next barrier, again and again, until
    all have ended; the first exception ends the block, prefixed with its thread and block; so
    does a barrier only part of the block reached (:func:`divergence`)."""
    threads = [SimulatedThread(manager, grid_point, point) for point in np.ndindex(*manager._block_dim)]
    started = False
    while threads:
        for thread in threads:
            _resumed(thread, lambda: thread.switch(*(() if started else args)))
        started = True
        waiting = [thread for thread in threads if not thread.dead]
        found = divergence(waiting, len(threads) - len(waiting), manager._block_dim)
        if found:
            _resumed(waiting[0], lambda: waiting[0].throw(DivergentBarrier(found)))
        threads = waiting


def divergence(waiting: list[SimulatedThread], ended: int, block: tuple[int, ...]) -> str | None:
    """What is wrong with this barrier, or None: threads that ended without it (``ended`` since the
    last barrier) while others wait, or waits at different lines."""
    if not waiting:
        return None
    lines = sorted({thread.waits_at[1] for thread in waiting})
    size = int(np.prod(block))
    fix = ("every thread of a block must reach the same syncthreads() (on a GPU a barrier only part of the block "
           "reaches is undefined: likely a hang): take it out of the if, and guard the memory accesses instead")
    if ended:
        return (f"syncthreads() reached by {len(waiting):,} of the block's {size:,} threads, the other {ended:,} "
                f"ended without reaching it: {fix}")
    if len(lines) > 1:
        return (f"the block's threads wait at different syncthreads() (lines {', '.join(map(str, lines))}): {fix}")
    return None


def _resumed(thread: SimulatedThread, resume) -> None:
    """Run ``resume`` (which switches to ``thread``); an exception in it, prefixed with the thread and block."""
    try:
        resume()
    except Exception as error:
        tid, ctaid = f"tid={list(thread.threadIdx)}", f"ctaid={list(thread.blockIdx)}"
        message = f"{tid} {ctaid}: {error}" if str(error) else f"{tid} {ctaid}"
        raise type(error)(message).with_traceback(sys.exc_info()[2]) from None


def install() -> bool:
    """Run the simulator's blocks as greenlets; False (nothing replaced) on another numba-cuda."""
    if version("numba-cuda") != NUMBA_CUDA_VERSION:
        return False
    from numba.cuda.simulator import kernel, kernelapi

    if getattr(kernel.BlockManager, "_labkit_greenlets", False):
        return True
    for method in ("syncthreads_count", "syncthreads_and", "syncthreads_or"):
        setattr(SimulatedThread, method, getattr(kernel.BlockThread, method))
    kernelapi.threading = _ThreadingForKernels()
    kernel.BlockManager.run = _run_block
    kernel.BlockManager._labkit_greenlets = True
    return True
