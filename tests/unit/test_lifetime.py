"""Processes that die with the one that started them (labkit.lifetime)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl and /proc are Linux's")

#: A process with a pool of two workers (labkit.lifetime.process_pool, lab 02's), which prints their pids and waits.
POOL = """
import os, sys, time
from labkit.lifetime import process_pool
pool = process_pool(2)
futures = [pool.submit(time.sleep, 0.2) for _ in range(4)]
[f.result() for f in futures]
print(" ".join(str(p) for p in pool._processes), flush=True)
time.sleep(300)
"""


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


#: The same without PR_SET_PDEATHSIG (macOS has none): the workers' watching thread ends them.
WITHOUT_PDEATHSIG = "import labkit.lifetime\nlabkit.lifetime._prctl = lambda *args: False\n"


@pytest.mark.parametrize("fallback", [False, True], ids=["prctl", "parent watch"])
@pytest.mark.parametrize("signal_number", [signal.SIGKILL, signal.SIGTERM])
def test_pool_workers_die_with_the_process(signal_number, fallback):
    """``labkit run lab-02`` killed by SIGTERM, SIGKILL or SIGHUP left its two workers blocked for good."""
    script = (WITHOUT_PDEATHSIG if fallback else "") + POOL
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        workers = [int(pid) for pid in process.stdout.readline().split()]
        assert len(workers) == 2 and all(_alive(pid) for pid in workers)
        os.kill(process.pid, signal_number)
        process.wait()
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not any(_alive(pid) for pid in workers)
    finally:
        process.kill()
        process.wait()


def test_descendants_and_their_kill(tmp_path):
    """A subreaper finds a double-forked grandchild in its subtree and kills all of it."""
    script = """
import os, time
from labkit.lifetime import become_subreaper, descendants, kill_descendants
assert become_subreaper()
if os.fork() == 0:
    if os.fork() == 0:
        os.setsid()
        time.sleep(300)
    os._exit(0)
os.wait()
time.sleep(0.3)
found = descendants(os.getpid())
kill_descendants()
print(len(found), len(descendants(os.getpid())))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["1", "0"], done.stderr


def test_the_process_table_through_ps_is_proc_s():
    """The table macOS reads through ps, read here both ways: this process and its parent alike."""
    from labkit.lifetime import _proc_table, _ps_table

    through_ps, from_proc = _ps_table(), _proc_table()
    me = os.getpid()
    assert through_ps[me] == from_proc[me] == (os.getppid(), os.getpgid(0), False)


def test_a_group_watch_kills_an_orphan_it_saw_by_its_group(tmp_path):
    """Without a subreaper, a grandchild orphaned in a new session leaves the subtree; the watch saw
    its group before, and kills it."""
    script = """
import os, sys, time
from labkit.lifetime import GroupWatch, descendants
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        time.sleep(300)
    time.sleep(0.5)
    os._exit(0)
watch = GroupWatch(os.getpid(), os.getpid())
time.sleep(0.2)
watch.look()
grandchild = max(descendants(os.getpid()))
os.wait()
time.sleep(0.2)
assert grandchild not in descendants(os.getpid())     # orphaned: no longer in the subtree
watch.kill()
time.sleep(0.1)
state = open(f"/proc/{grandchild}/stat").read().rsplit(")", 1)[1].split()[0] if os.path.exists(f"/proc/{grandchild}") else "gone"
print(state in ("gone", "Z"))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["True"], done.stderr
