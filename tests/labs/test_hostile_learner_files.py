"""A learner's file that does something no exercise expects: the check answers, in one line, and
leaves the course as it was (the review's table B3, reviews/2026-12-01-code-and-reliability.md).

The learner's code runs in a child process in a temporary working directory under a wall-clock
limit (labkit.exercises.isolated): a hang is stopped and explained, an exit cannot pass for a
success, a relative path cannot reach the course's files, and an answer computed on the host
fails. Each case is 01-fuse's skeleton with one change; the hangs run under a short limit.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from labkit.cli import main
from labkit.exercises import exercises
from labkit.exercises.check import check
from labkit.exercises.isolated import Progress
from labkit.exercises.render import progress_text
from labkit.gpu.backend import select_backend
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.skipif(select_backend() != "simulator", reason="checks in the Numba CUDA simulator")

ITEM = exercises()["01-fuse"]
SKELETON = (REPO_ROOT / ITEM.learner_file).read_text(encoding="utf-8")
RUN_BODY = """    blocks = (x.size + THREADS - 1) // THREADS
    saxpy[blocks, THREADS](a, x, y, tmp)
    relu[blocks, THREADS](tmp, out)
"""
#: The limit the hangs run under: long enough for a loaded machine to reach the hanging kernel (the
#: child is a fork of this process: numba is loaded, the file's module and the inputs take well
#: under a second) and to hear several progress reports, PROGRESS_SECONDS apart.
SHORT_LIMIT_SECONDS = 2.5
PROGRESS_SECONDS = 0.5


def with_run(body: str) -> str:
    """The skeleton with run()'s body replaced."""
    assert RUN_BODY in SKELETON
    return SKELETON.replace(RUN_BODY, body)


def with_kernel(kernel: str, launch: str) -> str:
    """The skeleton with one more kernel, launched by run() instead of the skeleton's two."""
    return with_run(f"    {launch}\n").replace("def run(", f"{kernel}\n\n\ndef run(")


FUSED = """@cuda.jit
def fused(a, x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = max(a * x[i] + y[i], 0.0)"""

#: name: (the file's bytes or text, the one line the check must give: a regex)
MISTAKES = {
    "syntax error": (SKELETON.replace("def run(a, x, y, out, tmp):", "def run(a, x, y, out, tmp)"),
                     r"^f\.py:\d+: (expected ':'|invalid syntax)$"),
    "binary": (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe", r"^f\.py: cannot be read \(UnicodeDecodeError\): "
               r"put the skeleton back with `git checkout -- f\.py`$"),
    "prose": ("Ici j'écrirai mon noyau fusionné, promis.\n", r"^f\.py:1: unterminated string literal"),
    "NUL byte": (SKELETON.replace("THREADS = 256", "THREADS = 256\0"),
                 r"^f\.py:15: a NUL byte \(\\0\), which Python source cannot hold: delete it"),
    "write out of bounds": (SKELETON.replace("out[i] = max(tmp[i], 0.0)", "out[i + 1] = max(tmp[i], 0.0)"),
                            r"^f\.py:\d+: IndexError \(thread \([\d, ]+\) of block \([\d, ]+\)\): index 2048 is out of "
                            r"bounds.*\[out\[i \+ 1\] = max\(tmp\[i\], 0\.0\)\]$"),
    "72 TiB allocation": (with_run("    cuda.device_array(10 ** 13, dtype='float64')\n"),
                          r"^f\.py:\d+: MemoryError: .*\[cuda\.device_array\(10 \*\* 13, dtype='float64'\)\]$"),
    "kernel raises": (SKELETON.replace("out[i] = max(tmp[i], 0.0)", "raise ValueError('boom')"),
                      r"^f\.py:\d+: ValueError \(thread \([\d, ]+\) of block \([\d, ]+\)\): boom"),
    "endless recursion on the host": (with_run("    run(a, x, y, out, tmp)\n"),
                                      r"^f\.py:\d+: RecursionError: maximum recursion depth exceeded"),
    "exit() at the end of the file": (SKELETON + "\nexit()\n",
                                      r"^f\.py:\d+: SystemExit: ending the process ends the check before it has "
                                      r"judged your code: remove this line .*\[exit\(\)\]$"),
    "raise SystemExit(0) in run()": (with_run("    raise SystemExit(0)\n"), r"^f\.py:\d+: SystemExit: .*"
                                     r"\[raise SystemExit\(0\)\]$"),
    "os._exit(0) in run()": (with_run("    import os\n    os._exit(0)\n"), r"^f\.py:\d+: SystemExit: .*"
                             r"\[os\._exit\(0\)\]$"),
    "input() in run()": (with_run("    input('n? ')\n"), r"^f\.py:\d+: EOFError: "),
    "SIGKILL of its own process": (with_run("    import os, signal\n    os.kill(os.getpid(), signal.SIGKILL)\n"),
                                   r"^f\.py: the process running your code died of SIGKILL: killed \(by the system "
                                   r"when memory ran out\?\), before the check had judged every criterion$"),
    "syncthreads in divergent code (the audit's case 233)": (
        SKELETON.replace("    if i < tmp.size:\n        out[i]", "    if cuda.threadIdx.x < 128:\n        cuda.syncthreads()\n"
                         "    if i < tmp.size:\n        out[i]"),
        r"^f\.py:29: DivergentBarrier \(thread \(0, 0, 0\) of block \(0, 0, 0\)\): syncthreads\(\) reached by 128 of the "
        r"block's 256 threads, the other 128 ended without reaching it: every thread of a block must reach the same "
        r"syncthreads\(\) .*\[cuda\.syncthreads\(\)\]$"),
    "crash in native code": (with_run("    import ctypes\n    ctypes.string_at(0)\n"),
                             r"^f\.py: the process running your code died of SIGSEGV: a crash in native code"),
}


def write(folder: Path, content: str | bytes) -> Path:
    path = folder / "f.py"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.mark.parametrize("mistake", MISTAKES)
def test_a_hostile_file_is_one_line(tmp_path, mistake):
    content, expected = MISTAKES[mistake]
    report = check(ITEM, write(tmp_path, content), "f.py")
    assert report.error and "\n" not in report.error and re.search(expected, report.error), report.error
    assert not report.passed and report.verdicts == []


@pytest.mark.parametrize("mistake", ["exit() at the end of the file", "os._exit(0) in run()"])
def test_an_exit_is_never_a_success_of_make_exercise(tmp_path, capsys, mistake):
    """The review's worst: exit status 0 and no output at all. Now the command fails, saying why."""
    path = write(tmp_path, MISTAKES[mistake][0])
    assert main(["check", "01-fuse", "--file", str(path), "--lang", "en"]) == 1
    out = capsys.readouterr().out
    assert "SystemExit: ending the process ends the check" in out and "Traceback" not in out


def test_ctrl_c_raised_by_the_learner_s_code_is_their_line_not_an_interruption(tmp_path, capsys):
    """No Ctrl-C reaches the check's child (its own session): a KeyboardInterrupt there is the
    learner's ``raise``, named by file and line (it was "labkit: interrupted", exit 130); so is a
    BaseException of their own (it was an internal error blaming labkit)."""
    path = write(tmp_path, with_run("    raise KeyboardInterrupt\n"))
    assert main(["check", "01-fuse", "--file", str(path), "--lang", "en"]) == 1
    assert "KeyboardInterrupt: KeyboardInterrupt  [raise KeyboardInterrupt]" in capsys.readouterr().out
    own = with_run("    raise Stop('stop')\n") + "\n\nclass Stop(BaseException):\n    pass\n"
    report = check(ITEM, write(tmp_path, own), "f.py")
    assert re.fullmatch(r"f\.py:34: Stop: stop  \[raise Stop\('stop'\)\]", report.error), report.error


def test_a_missing_file_outside_the_course_is_not_sent_to_git(tmp_path):
    report = check(ITEM, tmp_path / "nowhere.py", str(tmp_path / "nowhere.py"))
    assert report.error == f"{tmp_path / 'nowhere.py'}: cannot be read (FileNotFoundError): check the path given to --file"


def test_a_folder_is_not_a_file(tmp_path):
    report = check(ITEM, tmp_path, "f.py")
    assert report.error.startswith("f.py: cannot be read (IsADirectoryError)")


# ----- the answer computed on the host ---------------------------------------------------------
HOST_ANSWER = with_run("    import numpy as np\n"
                       "    host = np.maximum(a * x.copy_to_host() + y.copy_to_host(), np.float32(0))\n"
                       "    out.copy_to_device(host)\n")


def test_an_answer_computed_on_the_host_fails(tmp_path):
    """Copy to the host, NumPy, copy back: right, with 0 bytes of DRAM traffic and 0 launches,
    which passed every simulator criterion. An exercise requires the kernels it is about."""
    report = check(ITEM, write(tmp_path, HOST_ANSWER), "f.py")
    assert report.error is None, report.error
    verdicts = {v.metric: (v.status, v.value) for v in report.verdicts if v.where == "simulator"}
    assert verdicts["correct"] == ("pass", None)
    assert verdicts["host_written"] == ("fail", float(ITEM.simulator_elements))
    assert not report.passed


def test_host_code_may_set_an_output_that_kernels_then_write(tmp_path):
    """Zeroing an output from the host before kernels accumulate into it is fair: each element's
    last writer counts. A host write after the kernels is not."""
    kernel_last = with_kernel(FUSED, "out.copy_to_device(np.zeros(out.size, np.float32)); "
                                     "fused[(x.size + 255) // 256, 256](a, x, y, out)")
    host_last = with_kernel(FUSED, "fused[(x.size + 255) // 256, 256](a, x, y, out); "
                                   "out[0:1] = np.array([out.copy_to_host()[0] + 1], np.float32)")
    for source, written in ((kernel_last, 0.0), (host_last, 1.0)):
        report = check(ITEM, write(tmp_path, "import numpy as np\n" + source), "f.py")
        assert report.error is None, report.error
        assert next(v.value for v in report.verdicts if v.metric == "host_written") == written


def test_every_exercise_is_held_to_its_kernels_writing_the_output():
    for item in exercises().values():
        assert [c.metric for c in item.criteria][:3] == ["correct", "host_written", "inputs_unread"], item.id
        assert item.criterion("host_written").at_most == 0 and item.criterion("inputs_unread").at_most == 0


def test_an_answer_computed_on_the_host_and_moved_by_a_kernel_fails(tmp_path):
    """The audit's case 204: NumPy's answer copied to a device array of the code's own, then a
    kernel copies it into ``out``. Every element of ``out`` is a kernel's (host_written 0) and the
    copy moves 8 bytes per element (under the target): it passed. No kernel reads x or y."""
    source = with_kernel("@cuda.jit\ndef copy(source, out):\n    i = cuda.grid(1)\n    if i < out.size:\n"
                         "        out[i] = source[i]",
                         "copy[(x.size + 255) // 256, 256](cuda.to_device(np.maximum(a * x.copy_to_host() "
                         "+ y.copy_to_host(), np.float32(0))), out)")
    report = check(ITEM, write(tmp_path, "import numpy as np\n" + source), "f.py")
    assert report.error is None, report.error
    verdicts = {v.metric: (v.status, v.value) for v in report.verdicts if v.where == "simulator"}
    assert verdicts["correct"][0] == "pass" and verdicts["host_written"] == ("pass", 0.0)
    assert verdicts["inputs_unread"] == ("fail", 2.0 * ITEM.simulator_elements)
    assert not report.passed


# ----- the course's files ----------------------------------------------------------------------
def test_a_file_that_deletes_the_course_s_record_cannot_reach_it(tmp_path, monkeypatch):
    """A relative path in the learner's code is relative to the check's own temporary folder, not
    to the course (here a stand-in course: were the isolation broken, it alone would lose its file)."""
    course = tmp_path / "course"
    record = course / "labs/01-roofline/results/nvidia-h200.json"
    record.parent.mkdir(parents=True)
    record.write_text("{}")
    monkeypatch.chdir(course)
    deleting = 'import os\nos.remove("labs/01-roofline/results/nvidia-h200.json")\n' + SKELETON
    report = check(ITEM, write(tmp_path, deleting), "f.py")
    assert record.read_text() == "{}"
    assert re.fullmatch(r"f\.py:2: FileNotFoundError: .*'labs/01-roofline/results/nvidia-h200\.json'  "
                        r"\[os\.remove\(.*\)\]", report.error), report.error


def test_what_the_learner_s_code_writes_in_its_folder_is_not_left_in_the_course(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    writing = SKELETON.replace("def run(a, x, y, out, tmp):",
                               "def run(a, x, y, out, tmp):\n    open('notes.txt', 'w').write('debug')")
    report = check(ITEM, write(tmp_path, writing), "f.py")
    assert report.error is None, report.error
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.py"]


# ----- hangs: stopped at the limit, with where the code was and the likely causes --------------
HANGS = {
    "endless loop in the kernel": (
        with_kernel(FUSED.replace("    if i < x.size:", "    while i < x.size:"), "fused[8, 256](a, x, y, out)"),
        r"^f\.py: your kernel did not finish in {limit} s in the simulator: `fused` was running, 8 blocks of 256 "
        r"threads: likely an endless loop in the kernel"),
    "grid of x.size blocks": (
        with_kernel(FUSED, "fused[x.size, 256](a, x, y, out)"),
        r"^f\.py: your kernel did not finish in {limit} s in the simulator: `fused` was running, 2,048 blocks of 256 "
        r"threads: 524,288 threads for 2,048 elements is a grid far too large for the simulator.*"
        r"\(x\.size blocks where \(x\.size \+ 255\) // 256 were meant\?\)"),
    "sleep in run()": (
        with_run("    import time\n    time.sleep(10 ** 6)\n"),
        r"^f\.py: your code did not finish in {limit} s in the simulator, in host code \(no kernel running, 0 "
        r"launched\): likely a sleep, an endless loop or a wait for input in your host code"),
}


@pytest.mark.parametrize("hang", HANGS)
def test_a_hang_is_stopped_at_the_limit_and_explained(tmp_path, monkeypatch, hang):
    import labkit.exercises.isolated

    monkeypatch.setattr(labkit.exercises.isolated, "PROGRESS_EVERY_SECONDS", PROGRESS_SECONDS)
    source, expected = HANGS[hang]
    expected = expected.replace("{limit}", re.escape(f"{SHORT_LIMIT_SECONDS:g}"))
    heard: list[Progress] = []
    report = check(ITEM, write(tmp_path, source), "f.py", limit_seconds=SHORT_LIMIT_SECONDS,
                   progress=lambda state: heard.append(Progress(**vars(state))))
    assert report.error and "\n" not in report.error and re.search(expected, report.error), report.error
    assert report.error.endswith("the check stopped it (labkit check --time-limit SECONDS allows longer)")
    assert len(heard) >= 2 and heard[-1].seconds > heard[0].seconds, "a progress line while it runs"
    if hang != "sleep in run()":
        assert heard[-1].kernel == "fused"
        assert progress_text(heard[-1], "fr").startswith("votre code tourne dans le simulateur : ")
        assert "noyau fused, " in progress_text(heard[-1], "fr")


def test_the_command_s_progress_line(capsys, monkeypatch):
    """In a log (not a terminal), a line every 15 s; on a terminal, one line rewritten in place."""
    from labkit.commands.check import _ProgressLine

    running = Progress("simulator", seconds=15.2, kernel="fused", grid=(2048, 1, 1), block=(256, 1, 1))
    plain = _ProgressLine("en")
    plain.terminal = False
    plain(Progress("simulator", seconds=14.0))
    plain(running)
    assert capsys.readouterr().err == ("running your code in the simulator: 15 s, kernel fused, 2,048 blocks of "
                                       "256 threads\n")
    live = _ProgressLine("zh")
    live.terminal = True
    live(Progress("gpu", seconds=3.0, phase="time", phase_fields={"round": 2, "rounds": 3}))
    live.erase()
    assert capsys.readouterr().err == "\r\x1b[2K你的代码正在 GPU 上运行：3 秒，计时第 2 轮（共 3 轮）：先我们的，再你的\r\x1b[2K"


@pytest.mark.parametrize("limit", ["0", "-3", "soon", "inf"])
def test_a_time_limit_must_be_seconds_above_zero(capsys, limit):
    with pytest.raises(SystemExit):
        main(["check", "01-fuse", "--time-limit", limit])
    assert f"argument --time-limit: '{limit}' is not a number of seconds above 0" in capsys.readouterr().err


def test_labkit_s_own_bug_in_the_child_is_an_internal_error_not_the_learner_s(monkeypatch, capsys):
    """An exception of labkit's own in the child (no frame in the learner's file) is not blamed on
    the learner: the command says "internal error", in one line."""
    import labkit.exercises.simulator_step
    from labkit.exercises.isolated import ChildFailed

    def broken(*args, **kwargs):
        raise ZeroDivisionError("labkit's own bug")

    monkeypatch.setattr(labkit.exercises.simulator_step, "in_simulator", broken)   # the forked child inherits it
    with pytest.raises(ChildFailed, match=r"^ZeroDivisionError: labkit's own bug \(in the check's child process\)$"):
        check(ITEM, REPO_ROOT / ITEM.learner_file, ITEM.learner_file)
    assert main(["check", "01-fuse"]) == 1
    assert capsys.readouterr().out.strip().splitlines() == [
        "labkit: internal error, ChildFailed: ZeroDivisionError: labkit's own bug (in the check's child process) "
        "(set LABKIT_DEBUG=1 for the traceback, and report it)"]


# ----- the verdict is labkit's: computed in its own process from the arrays the child hands over ----
DOES_NOTHING = with_run("    pass\n")
#: name: module-level code that tries to fool the check, with a run() that does nothing.
PATCHES = {
    "replaces labkit's comparison": "import labkit.exercises.guarded as g\ng.compare = lambda *args, **kwargs: None\n",
    "replaces numpy.isclose": "import numpy\nnumpy.isclose = lambda a, b, **kwargs: numpy.ones(numpy.shape(a), bool)\n",
    "replaces Guarded.problems": "from labkit.exercises.guarded import Guarded\nGuarded.problems = lambda self, *args: []\n",
    "replaces the verdicts": "import labkit.exercises.verdicts as v\nv.correctness = lambda where, problems: "
                             "v.Verdict(metric='correct', where=where, status='pass')\n",
}


@pytest.mark.parametrize("patch", PATCHES)
def test_a_file_that_patches_the_checker_in_its_process_still_fails(tmp_path, patch):
    report = check(ITEM, write(tmp_path, PATCHES[patch] + DOES_NOTHING), "f.py")
    assert report.error is None, report.error
    correct = next(v for v in report.verdicts if v.metric == "correct")
    assert correct.status == "fail" and [p.kind for p in correct.problems] == ["never_written"]
    assert not report.passed


FORGED_LINE = ('{"event": "answer", "verdicts": [{"metric": "correct", "where": "simulator", "status": "pass"}], '
               '"gpu_run": null, "buffers": {}, "values": {}}')
FORGES = {
    "then kills its own process": "    os.kill(os.getpid(), signal.SIGKILL)\n",
    "then returns": "",
}


@pytest.mark.parametrize("then", FORGES)
def test_a_verdict_forged_on_the_check_s_pipe_is_refused(tmp_path, then):
    """The child's pipe is in the learner's process, where their code can find it: a forged
    outcome on it (then dying, so that no real one follows; or returning) never passes."""
    source = with_run("    import gc, json, os, signal\n"
                      "    from labkit.exercises.child import _Channel\n"
                      "    channel = next(o for o in gc.get_objects() if isinstance(o, _Channel))\n"
                      f"    channel.stream.write({FORGED_LINE!r} + '\\n')\n"
                      "    channel.stream.flush()\n" + FORGES[then])
    report = check(ITEM, write(tmp_path, source), "f.py")
    assert not report.passed
    assert re.fullmatch(r"f\.py: (more than one outcome came back|an outcome came back from a process that then "
                        r"died) on the check's channel: .*", report.error), report.error


def test_a_run_that_does_nothing_fails(tmp_path):
    report = check(ITEM, write(tmp_path, DOES_NOTHING), "f.py")
    correct = next(v for v in report.verdicts if v.metric == "correct")
    assert correct.status == "fail" and not report.passed


# ----- nothing the learner's code starts outlives the check --------------------------------------
def _alive(pid: int) -> bool:
    """Running (a zombie waiting for its parent is not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _killed_by_sigkill_takes_the_learners_processes_along(command, pids: Path) -> None:
    """Once the learner's code has written its 3 pids, SIGKILL the running ``labkit check``
    ``command``: within 5 s none of those processes may be left."""
    import os
    import signal
    import time

    try:
        started = _pids(pids, 3)
        assert all(_alive(pid) for pid in started)
        os.kill(command.pid, signal.SIGKILL)
        command.wait()
        deadline = time.monotonic() + 5
        while any(_alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(pid) for pid in started), "the learner's processes outlived the check"
    finally:
        command.kill()
        command.wait()


def _pids(path: Path, count: int, seconds: float = 60.0) -> list[int]:
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = path.read_text().split() if path.exists() else []
        if len(found) >= count:
            return [int(pid) for pid in found[:count]]
        time.sleep(0.05)
    raise AssertionError(f"the learner's code never wrote {count} pids in {path}")


def _spawning(pids: Path, then: str) -> str:
    """run(): a process in a new session, a double-forked one, its own pid, in ``pids``; then ``then``."""
    return with_run("    import os, subprocess, time\n"
                    "    daemon = subprocess.Popen(['sleep', '300'], start_new_session=True).pid\n"
                    "    if os.fork() == 0:\n"
                    "        os.setsid()\n"
                    "        if os.fork() == 0:\n"
                    f"            with open({str(pids)!r}, 'a') as f:\n"
                    "                f.write(f'{os.getpid()} ')\n"
                    "            time.sleep(300)\n"
                    "        os._exit(0)\n"
                    "    time.sleep(0.2)\n"
                    f"    with open({str(pids)!r}, 'a') as f:\n"
                    "        f.write(f'{daemon} {os.getpid()} ')\n" + then)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_processes_started_in_a_new_session_die_with_the_check(tmp_path):
    """A process started in a new session, or double-forked, used to outlive the check, holding
    its output pipe for minutes (the audit's daemon.py): the check's keeper is their subreaper."""
    pids = tmp_path / "pids"
    check(ITEM, write(tmp_path, _spawning(pids, "")), "f.py")
    started = _pids(pids, 3)
    assert not any(_alive(pid) for pid in started), "a process the learner's code started outlived the check"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_the_learner_s_code_dies_with_a_check_killed_by_sigkill(tmp_path):
    """SIGKILL gives labkit's process no chance to clean up (nor do SIGTERM and SIGHUP, which have
    no handler): its keeper sees it gone and kills the child's whole subtree."""
    import subprocess
    import sys

    pids = tmp_path / "pids"
    path = write(tmp_path, _spawning(pids, "    time.sleep(300)\n"))
    command = subprocess.Popen([sys.executable, "-m", "labkit.cli", "check", "01-fuse", "--file", str(path)],
                               cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _killed_by_sigkill_takes_the_learners_processes_along(command, pids)


def _lingering(pids: Path, then: str) -> str:
    """run(): a process in a new session, and a double fork whose middle process lives 1 s (so a
    keeper without a subreaper sees it before its child is orphaned), their pids in ``pids``."""
    return with_run("    import os, subprocess, time\n"
                    "    daemon = subprocess.Popen(['sleep', '300'], start_new_session=True).pid\n"
                    "    if os.fork() == 0:\n"
                    "        os.setsid()\n"
                    "        if os.fork() == 0:\n"
                    f"            with open({str(pids)!r}, 'a') as f:\n"
                    "                f.write(f'{os.getpid()} ')\n"
                    "            time.sleep(300)\n"
                    "        time.sleep(1)\n"
                    "        os._exit(0)\n"
                    "    time.sleep(1.5)\n"
                    f"    with open({str(pids)!r}, 'a') as f:\n"
                    "        f.write(f'{daemon} {os.getpid()} ')\n" + then)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
@pytest.mark.parametrize("table", ["proc", "ps"])
def test_without_a_subreaper_the_keeper_kills_the_groups_it_saw(tmp_path, monkeypatch, table):
    """macOS has no PR_SET_CHILD_SUBREAPER: forced here on Linux (with the process table read from
    /proc, then through ps as on macOS), the keeper's GroupWatch kills the new session's process
    and the orphaned grandchild by the groups it saw, and the report says what it cannot guarantee."""
    import labkit.exercises.isolated
    import labkit.lifetime
    from labkit.exercises.render import report_lines

    monkeypatch.setattr(labkit.exercises.isolated, "become_subreaper", lambda: False)   # the keeper is a fork
    monkeypatch.setattr(labkit.lifetime, "subreaper_supported", lambda: False)
    if table == "ps":
        monkeypatch.setattr(labkit.lifetime, "process_table", labkit.lifetime._ps_table)
    pids = tmp_path / "pids"
    report = check(ITEM, write(tmp_path, _lingering(pids, "")), "f.py")
    started = _pids(pids, 3)
    assert not any(_alive(pid) for pid in started), "a process the learner's code started outlived the check"
    assert report.orphans_followed is False
    lines = report_lines(ITEM, report, REPO_ROOT / "docs", "en")
    assert lines[1].startswith("Note: on this system (no subreaper, e.g. macOS) the check kills the process groups")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_without_a_subreaper_the_code_dies_with_a_check_killed_by_sigkill(tmp_path):
    """The keeper of a ``labkit check`` that cannot become a subreaper (forced in the command's own
    process, before its keeper forks), killed by SIGKILL: its GroupWatch ends the learner's processes."""
    import subprocess
    import sys

    pids = tmp_path / "pids"
    path = write(tmp_path, _lingering(pids, "    time.sleep(300)\n"))
    forced = ("import sys, labkit.exercises.isolated as i, labkit.lifetime as l\n"
              "i.become_subreaper = lambda: False\nl.subreaper_supported = lambda: False\n"
              "from labkit.cli import main\nsys.exit(main(sys.argv[1:]))\n")
    command = subprocess.Popen([sys.executable, "-c", forced, "check", "01-fuse", "--file", str(path)],
                               cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _killed_by_sigkill_takes_the_learners_processes_along(command, pids)


# ----- the course's files, reached by an absolute path -------------------------------------------
def _stand_in_course(root: Path) -> Path:
    """A git checkout with a chapter, a record, and a tracked file the learner had edited."""
    import subprocess

    for name, text in {"docs/fr/index.md": "# Accueil\n", "labs/01/results/nvidia-h200.json": '{"lab": "lab-01"}\n',
                       "labs/01/exercises/fuse.py": "skeleton\n", "README.md": "course\n"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "course"], check=True)
    (root / "labs/01/exercises/fuse.py").write_text("the learner's edit\n", encoding="utf-8")
    return root


def test_a_file_that_changes_the_course_by_absolute_path_fails_and_the_files_come_back(tmp_path):
    """The audit's abs_path_write.py deleted docs/fr/index.md and overwrote a record, and the check
    passed: now it fails, names them, and they are as they were (the learner's own edit too)."""
    course = _stand_in_course(tmp_path / "course")
    solved = with_kernel(FUSED, "fused[(x.size + 255) // 256, 256](a, x, y, out)")
    vandal = solved.replace("def run(a, x, y, out, tmp):\n", "def run(a, x, y, out, tmp):\n    import os\n"
                            f"    os.remove({str(course / 'docs/fr/index.md')!r})\n"
                            f"    open({str(course / 'labs/01/results/nvidia-h200.json')!r}, 'w').write('{{}}')\n"
                            f"    open({str(course / 'labs/01/exercises/fuse.py')!r}, 'w').write('gone')\n")
    assert check(ITEM, write(tmp_path, solved), "f.py", course=course).passed
    report = check(ITEM, write(tmp_path, vandal), "f.py", course=course)
    assert not report.passed
    found = re.fullmatch(r"f\.py: your code changed the course's files while the check ran \(docs/fr/index\.md, "
                         r"labs/01/exercises/fuse\.py, labs/01/results/nvidia-h200\.json\): a check passes only a file "
                         r"that leaves the course alone \(write only to the arrays you are given\); they were put back "
                         r"\(the changed versions are in (?P<aside>/\S+)\)", report.error)
    assert found, report.error
    aside = Path(found["aside"])   # what the run left, kept: a person's edit during the check is not lost
    assert sorted(p.relative_to(aside).as_posix() for p in aside.rglob("*") if p.is_file()) == [
        "labs/01/exercises/fuse.py", "labs/01/results/nvidia-h200.json"]
    assert (aside / "labs/01/exercises/fuse.py").read_text() == "gone"
    shutil.rmtree(aside)
    assert (course / "docs/fr/index.md").read_text() == "# Accueil\n"
    assert (course / "labs/01/results/nvidia-h200.json").read_text() == '{"lab": "lab-01"}\n'
    assert (course / "labs/01/exercises/fuse.py").read_text() == "the learner's edit\n"


def test_the_command_watches_the_course_it_runs_in(monkeypatch, tmp_path):
    import labkit.exercises.simulator_step

    seen = {}
    monkeypatch.setattr(labkit.exercises.check, "check", lambda *args, **kwargs: seen.update(kwargs) or
                        labkit.exercises.verdicts.CheckReport(exercise="01-fuse", file="f.py", backend="simulator",
                                                              error="stop"))
    main(["check", "01-fuse", "--file", str(write(tmp_path, SKELETON))])
    assert seen["course"] == REPO_ROOT


@pytest.mark.parametrize("name", ["fuse.txt", "fuse"])
def test_a_right_answer_in_a_file_not_named_py_is_checked(tmp_path, name):
    """It was "internal error, ChildFailed: AttributeError: 'NoneType' object has no attribute 'loader'"."""
    path = tmp_path / name
    path.write_text(with_kernel(FUSED, "fused[(x.size + 255) // 256, 256](a, x, y, out)"), encoding="utf-8")
    report = check(ITEM, path, name)
    assert report.error is None and report.passed, report.error


def test_an_empty_file_option_is_refused(capsys):
    """``--file ''`` silently checked the course's skeleton instead."""
    assert main(["check", "01-fuse", "--file", ""]) == 1
    assert capsys.readouterr().out.strip() == ("labkit: --file '' names no file: give the path of your file, or leave "
                                               "--file out to check labs/01-roofline/exercises/fuse.py")


def test_a_named_pipe_is_refused_at_once(tmp_path):
    """A FIFO given to --file waited out the whole limit, then blamed a sleep in the host code."""
    import os

    fifo = tmp_path / "f.py"
    os.mkfifo(fifo)
    report = check(ITEM, fifo, "f.py", limit_seconds=SHORT_LIMIT_SECONDS)
    assert report.error == ("f.py: not a regular file (a named pipe or a device): put the skeleton back with "
                            "`git checkout -- f.py`")


def test_closing_the_inherited_descriptors_is_not_called_an_exit(tmp_path):
    source = with_run("    import os\n    os.closerange(3, 4096)\n")
    report = check(ITEM, write(tmp_path, source), "f.py")
    assert re.fullmatch(r"f\.py: your code ended the process running it \(exit status 0\), or closed the file "
                        r"descriptors it inherited \(the check's pipe among them\), before the check had judged every "
                        r"criterion: remove the exit or the close .*", report.error), report.error


# ----- what the learner's code prints ---------------------------------------------------------
def test_what_the_learner_s_code_prints_is_shown_on_stderr_up_to_a_bound(tmp_path, capsys):
    """The audit's case 222: 100 MB printed by run() reached the terminal whole. Now the first
    64 KiB go to stderr as they come, then one line says how much there was; stdout holds the
    report only (JSON with --json, valid although run() printed on its stdout)."""
    from labkit.commands.check import _LearnerOutput

    fused = with_kernel(FUSED, "fused[(x.size + 255) // 256, 256](a, x, y, out)")
    path = write(tmp_path, fused.replace("def run(a, x, y, out, tmp):\n", "def run(a, x, y, out, tmp):\n"
                                         "    print('hello from run')\n    for _ in range(40):\n"
                                         "        print('x' * (1 << 20))\n"))
    assert main(["check", "01-fuse", "--file", str(path), "--lang", "en"]) == 0
    out, err = capsys.readouterr()
    assert err.startswith("hello from run\nxxxx") and "hello" not in out
    assert len(err.encode()) < _LearnerOutput.SHOWN_BYTES + 300
    assert err.splitlines()[-1] == ("labkit: your code printed 41,943,095 bytes; the check showed the first 65,536 "
                                    "(print less: a few values, or a summary)")
    assert "Every criterion the simulator can check passes" in out
    import json

    assert main(["check", "01-fuse", "--file", str(path), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["exercise"] == "01-fuse"


@pytest.mark.parametrize("fork", [True, False])
def test_the_step_hands_its_output_to_the_check(tmp_path, monkeypatch, fork):
    """Both ways a child starts (a fork in the simulator, a fresh interpreter on a GPU machine)."""
    from labkit.exercises import isolated

    monkeypatch.setattr(isolated, "_may_fork", lambda: fork)
    path = write(tmp_path, with_run("    import sys\n    print('on stdout')\n    print('on stderr', file=sys.stderr)\n"
                                    + RUN_BODY))
    heard = []
    isolated.run_step(isolated.Step("simulator", ITEM.id, str(path), "f.py", seed=1), printed=heard.append)
    assert b"".join(heard).decode() == "on stdout\non stderr\n"
