"""Processes that must not outlive the one that started them, whatever ends it.

A signal can end labkit's process without any of its code running (SIGKILL; SIGTERM or SIGHUP
without a handler), so cleaning up "on exit" is not enough. Two tools, both Linux's:

- :func:`die_with_parent`: the calling process is sent SIGKILL when its parent dies
  (``prctl(PR_SET_PDEATHSIG)``). For pool workers: they start nothing of their own.
- :func:`become_subreaper` and :func:`kill_descendants`: a process that adopts every orphan of its
  subtree (``prctl(PR_SET_CHILD_SUBREAPER)``: a grandchild whose parent died, even one started in a
  new session, becomes its child instead of init's) can find the whole subtree in ``/proc`` and
  kill all of it. labkit check's keeper (labkit.exercises.isolated) does this.

Elsewhere (macOS) both are no-ops and :func:`kill_descendants` finds nothing: the caller falls
back on killing a process group.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
#: Rounds of "find the subtree, kill it, reap it" before giving up on a process that keeps forking.
KILL_ROUNDS = 200


def _libc():
    """The C library, loaded at import: after a fork of a threaded process, loading it could wait on
    a lock another thread held."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


_LIBC = _libc()


def _prctl(option: int, value: int) -> bool:
    try:
        return _LIBC is not None and _LIBC.prctl(option, value, 0, 0, 0) == 0
    except AttributeError:
        return False


def die_with_parent() -> None:
    """This process gets SIGKILL when its parent (the thread that forked it) ends; also at once if
    the parent is already gone."""
    parent = os.getppid()
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def become_subreaper() -> bool:
    """Orphans of this process's subtree are re-parented to it (Linux); whether that holds."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def descendants(root: int) -> list[int]:
    """Every live process whose chain of parents reaches ``root`` (zombies included), from /proc."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return []
    children: dict[int, list[int]] = {}
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue
        children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [root]
    while todo:
        for pid in children.get(todo.pop(), ()):
            found.append(pid)
            todo.append(pid)
    return found


def reap_children() -> dict[int, int]:
    """Reap every child that has ended, without waiting: pid -> exit code (minus the signal)."""
    reaped = {}
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped[pid] = os.waitstatus_to_exitcode(status)


def kill_descendants() -> dict[int, int]:
    """SIGKILL this process's whole subtree until none of it is left (it must be a subreaper for
    the orphans to stay in it), reaping them; the exit codes of the children reaped."""
    reaped: dict[int, int] = {}
    me = os.getpid()
    for _ in range(KILL_ROUNDS):
        found = descendants(me)
        reaped.update(reap_children())
        if not found:
            return reaped
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.005)
        reaped.update(reap_children())
    return reaped


def process_pool(workers: int):
    """A ProcessPoolExecutor whose workers die with this process, whatever ends it (they sat
    blocked for good after a SIGTERM, SIGKILL or SIGHUP of ``labkit run lab-02``)."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent)
