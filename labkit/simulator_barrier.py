"""``cuda.syncthreads()`` in Numba's CUDA simulator, as a barrier its threads wait on.

The simulator runs each CUDA thread of a block as a Python thread. numba-cuda's BlockManager
(``numba.cuda.simulator.kernel``) starts them, then polls every live thread in a loop until each
one has reached ``syncthreads`` or ended, and only then releases them. The poller holds the GIL
for whole switch intervals while the threads it waits for are ready to run, so a kernel with
barriers runs several times slower than the same work without them, and its time varies by a
factor of four from one run to the next (a 32 x 32 shared-memory tile: 4 to 16 s a block).

Here the threads release one another instead: a thread reaching the barrier is counted, and the
last of the block's live threads to arrive (or to end, while the others wait) releases the
waiting ones, each through a lock of its own, one after the other in the order they arrived;
the block's launch waits until every thread has ended. The rules are the simulator's: threads
that have ended no longer take part in a barrier; the first thread to raise stops the block (the
others are released with the abort flag set, and raise at their barrier) and its exception, which
names the thread and block, is the launch's.
``syncthreads_count``, ``_and``, ``_or`` and a grid group's ``sync`` call ``syncthreads`` and
keep working unchanged.

:func:`install` replaces the three methods for the numba-cuda version it was written against
(NUMBA_CUDA_VERSION) and leaves any other version's simulator as it is.
"""

from __future__ import annotations

import threading
from importlib.metadata import version

import numpy as np

#: The numba-cuda release whose BlockThread and BlockManager these methods replace.
NUMBA_CUDA_VERSION = "0.30.4"


class _Barrier:
    """The block's threads still running (``alive``), the gates of those waiting at the barrier,
    the first thread that raised, and the lock the launch waits on until the block is done."""

    def __init__(self, threads: int) -> None:
        self.lock = threading.Lock()
        self.alive = threads
        self.waiting: list[threading.Lock] = []
        self.failed = None
        self.done = threading.Lock()
        self.done.acquire()

    def release_waiting(self) -> None:
        """Release the threads waiting at the barrier (called with ``lock`` held): the first one's
        gate is opened, and each thread, once woken, opens the next one's (:func:`_syncthreads`).
        Opening the thousand gates of a large block at once would make a thousand threads ready to
        run for one GIL; on a busy machine that took several times longer than the chain."""
        waiting, self.waiting = self.waiting, []
        if waiting:
            waiting[0].release()


def _syncthreads(thread) -> None:
    """BlockThread.syncthreads: wait until every live thread of the block has arrived."""
    if thread.abort:
        raise RuntimeError("abort flag set on syncthreads call")
    barrier = thread._manager._barrier
    with barrier.lock:
        waiting = barrier.waiting
        last = len(waiting) + 1 == barrier.alive
        if last:
            barrier.release_waiting()
        else:
            place = len(waiting)
            waiting.append(thread._gate)
    if not last:
        thread._gate.acquire()
        if place + 1 < len(waiting):  # the list is complete once the gates open: pass the release on
            waiting[place + 1].release()
    if thread.abort:
        raise RuntimeError("abort flag set on syncthreads clear")


def _thread_run(stock_run):
    def run(thread) -> None:
        """BlockThread.run: the stock run (which keeps the thread's exception), then leave the block:
        the first exception ends the launch; otherwise the last thread to end does, and a thread
        ending while all the others wait at the barrier releases them."""
        thread._gate = threading.Lock()
        thread._gate.acquire()
        stock_run(thread)
        barrier = thread._manager._barrier
        with barrier.lock:
            barrier.alive -= 1
            if thread.exception is not None and barrier.failed is None:
                barrier.failed = thread
                barrier.done.release()
            elif barrier.alive == 0:
                if barrier.failed is None:
                    barrier.done.release()
            elif barrier.waiting and len(barrier.waiting) == barrier.alive:
                barrier.release_waiting()
    return run


def _block_run(block_thread):
    def run(manager, grid_point, *args) -> None:
        """BlockManager.run: start the block's threads, wait until they have all ended or one has
        raised; in that case stop the others and raise its exception."""
        manager._barrier = barrier = _Barrier(int(np.prod(manager._block_dim)))

        def target():
            manager._f(*args)

        threads = []
        for block_point in np.ndindex(*manager._block_dim):
            thread = block_thread(target, manager, grid_point, block_point, manager._debug)
            thread.start()
            threads.append(thread)
        barrier.done.acquire()
        failed = barrier.failed
        if failed is not None:
            with barrier.lock:
                for thread in threads:
                    thread.abort = True
                barrier.release_waiting()
            raise failed.exception[0].with_traceback(failed.exception[1])
    return run


def install() -> bool:
    """Replace the simulator's barrier and block loop; False (nothing replaced) on another numba-cuda."""
    if version("numba-cuda") != NUMBA_CUDA_VERSION:
        return False
    from numba.cuda.simulator import kernel

    if getattr(kernel.BlockManager, "_labkit_barrier", False):
        return True
    kernel.BlockThread.syncthreads = _syncthreads
    kernel.BlockThread.run = _thread_run(kernel.BlockThread.run)
    kernel.BlockManager.run = _block_run(kernel.BlockThread)
    kernel.BlockManager._labkit_barrier = True
    return True
