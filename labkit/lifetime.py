"""Processes that must not outlive the one that started them, whatever ends it.

A signal can end labkit's process without any of its code running (SIGKILL; SIGTERM or SIGHUP
without a handler), so cleaning up "on exit" is not enough. Two tools:

- :func:`die_with_parent`: the calling process ends when its parent dies. For pool workers: they
  start nothing of their own. On Linux the kernel sends it SIGKILL (``prctl(PR_SET_PDEATHSIG)``);
  elsewhere (macOS) a daemon thread of the process sees its parent change (``getppid``) within
  PARENT_POLL_SECONDS and ends it.
- :func:`become_subreaper` and :func:`kill_descendants`: a process that adopts every orphan of its
  subtree (Linux's ``prctl(PR_SET_CHILD_SUBREAPER)``: a grandchild whose parent died, even one
  started in a new session, becomes its child instead of init's) can find the whole subtree in the
  process table and kill all of it. labkit check's keeper (labkit.exercises.isolated) does this.

Where there is no subreaper (macOS: :func:`subreaper_supported` is False) an orphan leaves the
subtree, so the keeper falls back on a :class:`GroupWatch`: it looks at the subtree every
WATCH_EVERY_SECONDS, remembers each process and process group it saw, and at the end kills those
groups and processes, then the subtree. What it cannot guarantee: a process started in a new
session (its own group) whose parent ends before the watch's next look is never seen and may
outlive its keeper; labkit check says so in one line on such systems.

The process table is ``/proc`` on Linux, ``ps -A -o pid= -o ppid= -o pgid=`` elsewhere.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_GET_CHILD_SUBREAPER = 37
#: Rounds of "find the subtree, kill it, reap it" before giving up on a process that keeps forking.
KILL_ROUNDS = 200
#: How often a pool worker without PR_SET_PDEATHSIG looks whether its parent is still there.
PARENT_POLL_SECONDS = 0.2
#: How often a keeper without a subreaper looks at its subtree (GroupWatch).
WATCH_EVERY_SECONDS = 0.1
#: The longest a look at the process table through ``ps`` may take.
PS_SECONDS = 10.0


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


def _prctl(option: int, value) -> bool:
    try:
        return _LIBC is not None and _LIBC.prctl(option, value, 0, 0, 0) == 0
    except AttributeError:
        return False


def die_with_parent() -> None:
    """This process ends when its parent (the thread that forked it) ends; also at once if the
    parent is already gone. SIGKILL from the kernel on Linux, a watching thread elsewhere."""
    parent = os.getppid()
    if not _prctl(PR_SET_PDEATHSIG, signal.SIGKILL):
        threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True, name="labkit-parent-watch").start()
    if os.getppid() != parent:
        os._exit(1)


def _exit_when_orphaned(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_SECONDS)
    os._exit(1)


def subreaper_supported() -> bool:
    """Whether this system lets a process adopt its subtree's orphans (Linux 3.4 and later); asked
    without becoming one (PR_GET_CHILD_SUBREAPER)."""
    if _LIBC is None:
        return False
    state = ctypes.c_int(0)
    try:
        return _LIBC.prctl(PR_GET_CHILD_SUBREAPER, ctypes.byref(state), 0, 0, 0) == 0
    except AttributeError:
        return False


def become_subreaper() -> bool:
    """Orphans of this process's subtree are re-parented to it (Linux); whether that holds."""
    return _prctl(PR_SET_CHILD_SUBREAPER, 1)


def process_table() -> dict[int, tuple[int, int, bool]]:
    """Every process: pid -> (parent pid, process group, whether it is a zombie); from /proc where
    there is one, else ps."""
    if os.path.isdir("/proc/self"):
        return _proc_table()
    return _ps_table()


def _proc_table() -> dict[int, tuple[int, int, bool]]:
    table = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return table
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rsplit(b")", 1)[1].split()   # after the name, which may hold spaces
            table[int(entry)] = (int(fields[1]), int(fields[2]), fields[0] == b"Z")
        except (OSError, IndexError, ValueError):
            continue
    return table


def _ps_table() -> dict[int, tuple[int, int, bool]]:
    try:
        listed = subprocess.run(["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "pgid=", "-o", "stat="],
                                capture_output=True, text=True, timeout=PS_SECONDS, check=False).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    table = {}
    for line in listed.splitlines():
        fields = line.split()
        if len(fields) == 4 and all(field.isdigit() for field in fields[:3]):
            table[int(fields[0])] = (int(fields[1]), int(fields[2]), fields[3].startswith("Z"))
    return table


def descendants(root: int, table: dict[int, tuple[int, int, bool]] | None = None) -> list[int]:
    """Every process whose chain of parents reaches ``root`` (zombies included)."""
    children: dict[int, list[int]] = {}
    for pid, (parent, _, _) in (process_table() if table is None else table).items():
        children.setdefault(parent, []).append(pid)
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
            _kill(pid)
        time.sleep(0.005)
        reaped.update(reap_children())
    return reaped


class GroupWatch:
    """A keeper's subtree without a subreaper: every process of it seen, and every process group,
    so that an orphan (re-parented to init) can still be killed by its group or its pid.

    :meth:`look` records the subtree (call it every WATCH_EVERY_SECONDS); :meth:`kill` kills every
    group recorded (but the keeper's own), then every process recorded that is still in one of
    those groups or still a descendant. A pid is killed only while the process table still shows
    it in a group this watch recorded, so a pid reused by an unrelated process is spared.
    """

    def __init__(self, root: int, child: int):
        self.root = root
        self.own_group = os.getpgid(root)
        self.groups: set[int] = {child}     # the child leads a session, so a group, of its own
        self.pids: set[int] = {child}

    def look(self) -> None:
        table = process_table()
        for pid in descendants(self.root, table):
            self.pids.add(pid)
            self.groups.add(table[pid][1])
        self.groups -= {self.own_group, 0, 1}

    def kill(self) -> dict[int, int]:
        """Kill all of it; the exit codes of the keeper's children reaped meanwhile."""
        reaped: dict[int, int] = {}
        for _ in range(KILL_ROUNDS):
            self.look()
            table = {pid: entry for pid, entry in process_table().items() if not entry[2]}   # zombies aside
            alive = {pid for pid in self.pids if pid in table and table[pid][1] in self.groups}
            alive |= {pid for pid, entry in table.items() if entry[1] in self.groups}
            alive |= set(descendants(self.root, table))
            if not alive:
                reaped.update(reap_children())
                return reaped
            for group in self.groups:
                try:
                    os.killpg(group, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
            for pid in alive:
                _kill(pid)
            time.sleep(0.005)
            reaped.update(reap_children())
        return reaped


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def process_pool(workers: int):
    """A ProcessPoolExecutor whose workers die with this process, whatever ends it (they sat
    blocked for good after a SIGTERM, SIGKILL or SIGHUP of ``labkit run lab-02``)."""
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent)
