"""The learner's code runs in a child process, never in labkit's own, and labkit's process judges.

Each step of a check (the simulator's, then the GPU's) is one child process
(labkit.exercises.child), started in a fresh temporary working directory with its standard input
closed, in a session of its own, under a keeper process (:class:`_Child`); labkit's process only
reads what the child sends on a pipe and holds it to a wall-clock limit. So a learner's file cannot
touch the course's files by a relative path (``os.remove("labs/01-roofline/results/nvidia-h200.json")``
finds no such file; an absolute path is caught after the run: labkit.exercises.course_files), cannot
end the check by exiting (no verdict comes back: one line says so), and cannot hang it: past the
limit the child and everything it started are killed, and one line says where the code was (which
kernel, with which grid, or host code) and the likely causes. Nothing it starts outlives the check,
whatever ends labkit's process (SIGKILL included): the keeper kills the child's whole subtree.

The channel is not trusted: the child runs the learner's code, which can patch anything in its
process or write on the pipe. The child hands over data (the run's guarded buffers and the
trace's metric values), labkit's process makes the inputs again from the seed it chose and
compares (labkit.exercises.check); one outcome only, from a child that then exits normally. This
is a guard against accidents and the easy tricks, not a sandbox: the code runs with the
learner's rights.

In the simulator, where labkit's process has no GPU context, the child is a fork (it starts
at once, with numba already imported); otherwise (on a GPU machine, and for the GPU step) it is a
fresh interpreter, ``python -m labkit.exercises.child``.

Protocol: the child writes JSON lines, ``{"event": ...}``: ``launch`` (kernel, grid, block) and
``launched`` around each simulated launch, ``phase`` (text) for the GPU step, then one outcome:
``answer`` (simulator: buffers, values; GPU: gpu, rounds, resources, its buffers in files),
``error`` (the learner's mistake, one line), ``interrupted``, or ``internal`` (labkit's own bug,
with its traceback).
"""

from __future__ import annotations

import json
import math
import os
import select
import shutil
import signal
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from labkit.errors import DEBUG_ENV, LabkitError
from labkit.exercises.learner import LearnerError
from labkit.exercises.spec import Where
from labkit.exercises.step import Step
from labkit.lifetime import WATCH_EVERY_SECONDS, GroupWatch, become_subreaper, kill_descendants, reap_children

#: A step's wall-clock limit by default (``labkit check --time-limit``): the slowest exercise's
#: simulator step takes about 30 s on a loaded two-core machine.
DEFAULT_LIMIT_SECONDS = 120.0
#: How often the progress callback hears from a running step.
PROGRESS_EVERY_SECONDS = 1.0
#: A child that has sent its outcome and closed its pipe must exit within this.
EXIT_GRACE_SECONDS = 10.0
#: A simulated launch of more threads than this per element is a grid far too large for its data.
THREADS_PER_ELEMENT_TOO_MANY = 8
#: The longest the check reads what is left of the learner's output once its processes are gone.
OUTPUT_DRAIN_SECONDS = 2.0
#: The events that end a step (its outcome).
OUTCOMES = ("answer", "error", "interrupted", "internal")


@dataclass
class Progress:
    """What labkit's process knows of a running step: its time so far, the launches it finished,
    the kernel running now (simulator) or the phase it is in (GPU)."""

    where: Where
    seconds: float = 0.0
    launches: int = 0
    kernel: str | None = None
    grid: tuple[int, ...] = ()
    block: tuple[int, ...] = ()
    phase: str | None = None                 # label exercise.phase.<phase>, filled with phase_fields
    phase_fields: dict = field(default_factory=dict)

    @property
    def blocks(self) -> int:
        return math.prod(self.grid)

    @property
    def threads_per_block(self) -> int:
        return math.prod(self.block)

    def heard(self, event: dict) -> None:
        if event["event"] == "launch":
            self.kernel, self.grid, self.block = event["kernel"], tuple(event["grid"]), tuple(event["block"])
        elif event["event"] == "launched":
            self.kernel, self.launches = None, self.launches + 1
        elif event["event"] == "phase":
            self.phase, self.phase_fields = event["phase"], event.get("fields", {})


class ChildFailed(RuntimeError):
    """labkit's own code failed in the child (not the learner's): an internal error."""


def run_step(step: Step, limit_seconds: float = DEFAULT_LIMIT_SECONDS,
             progress: Callable[[Progress], None] | None = None,
             printed: Callable[[bytes], None] | None = None) -> dict:
    """Run ``step`` in a child process; its answer as JSON data, for labkit's process to judge.
    What the learner's code prints (its standard output and error, on one pipe) goes to
    ``printed`` as it comes, chunk by chunk (dropped without it).

    A mistake in the learner's file, a step past ``limit_seconds``, or a child that ends without an
    answer is a LearnerError (one line); a KeyboardInterrupt in the child is one here.
    """
    for stream in (sys.stdout, sys.stderr):   # a forked child must not print the parent's buffers again
        stream.flush()
    workdir = Path(tempfile.mkdtemp(prefix="labkit-check-"))
    read_fd, write_fd = os.pipe()
    output_fd, output_write_fd = os.pipe()
    child = None
    try:
        child = _Child.start(step, read_fd, write_fd, workdir, (output_fd, output_write_fd))
        for fd in (write_fd, output_write_fd):
            os.close(fd)
        write_fd = output_write_fd = None
        return _follow(child, step, read_fd, output_fd, limit_seconds, progress, printed)
    finally:
        for fd in (write_fd, output_write_fd, read_fd, output_fd):
            if fd is not None:
                os.close(fd)
        if child is not None:
            child.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def _follow(child: _Child, step: Step, read_fd: int, output_fd: int, limit_seconds: float,
            progress: Callable[[Progress], None] | None, printed: Callable[[bytes], None] | None) -> dict:
    """Read the child's events until it closes the pipe, or has exited (a process it started may
    keep the pipe open), and its output as it comes; hold it to the limit."""
    state = Progress(step.where)
    started = time.monotonic()
    outcomes: list[dict] = []
    pending = b""
    next_report = started + PROGRESS_EVERY_SECONDS
    watched = [read_fd, output_fd]
    while True:
        now = time.monotonic()
        left = started + limit_seconds - now
        if left <= 0:
            child.stop()
            raise LearnerError(timeout_message(step, state, limit_seconds))
        exited = child.exited()
        ready, _, _ = select.select(watched, [], [], 0 if exited else min(left, max(0.0, next_report - now)))
        if output_fd in ready:
            if not _forwarded(output_fd, printed):
                watched.remove(output_fd)
        if read_fd in ready:
            chunk = os.read(read_fd, 1 << 16)
            if not chunk:
                break
            pending += chunk
            *lines, pending = pending.split(b"\n")
            for line in lines:
                event = _event(line)
                if event is not None:
                    state.heard(event)
                    if event["event"] in OUTCOMES:
                        outcomes.append(event)
        elif exited:
            break
        if time.monotonic() >= next_report:
            state.seconds = time.monotonic() - started
            if progress is not None:
                progress(state)
            next_report += PROGRESS_EVERY_SECONDS
    status = child.exit_status(EXIT_GRACE_SECONDS)   # the subtree is gone: what is left of the output ends
    drained = time.monotonic() + OUTPUT_DRAIN_SECONDS
    while output_fd in watched and time.monotonic() < drained and select.select([output_fd], [], [], 0)[0]:
        if not _forwarded(output_fd, printed):
            break
    return _answer(step, outcomes, status)


def _forwarded(output_fd: int, printed: Callable[[bytes], None] | None) -> bool:
    """One chunk of the learner's output to ``printed``; False at its end."""
    chunk = os.read(output_fd, 1 << 16)
    if chunk and printed is not None:
        printed(chunk)
    return bool(chunk)


def _event(line: bytes) -> dict | None:
    try:
        event = json.loads(line)
    except ValueError:
        return None
    return event if isinstance(event, dict) and "event" in event else None


def _answer(step: Step, outcomes: list[dict], status: int | None) -> dict:
    """The child's one outcome, as JSON data (without its ``event``). The channel is trusted only
    as far as this: one outcome, from a child that then exited normally; what it says is judged by
    labkit's process (labkit.exercises.check), never taken as a verdict."""
    if not outcomes:
        raise LearnerError(ended_message(step, status))
    if len(outcomes) > 1 or (outcomes[0]["event"] == "answer" and status != 0):
        raise LearnerError(tampered_message(step, status))
    outcome = outcomes[0]
    if outcome["event"] == "error":
        raise LearnerError(str(outcome.get("error")))
    if outcome["event"] == "interrupted":
        raise KeyboardInterrupt
    if outcome["event"] == "internal":
        if os.environ.get(DEBUG_ENV):
            sys.stderr.write(str(outcome.get("traceback", "")))
        raise ChildFailed(f"{outcome.get('error')} (in the check's child process)")
    return {key: value for key, value in outcome.items() if key != "event"}


def tampered_message(step: Step, status: int | None) -> str:
    """One line: what came back on the check's channel is not what labkit's own code sends."""
    how = "more than one outcome came back" if status == 0 else "an outcome came back from a process that then died"
    return (f"{step.shown_as}: {how} on the check's channel: your code wrote on it or ended the process that runs it; "
            "the check judges only your code's output arrays, computed by your kernels: leave the check's file "
            "descriptors and process alone")


def timeout_message(step: Step, state: Progress, limit_seconds: float) -> str:
    """One line: where the code was when the limit struck, and the likely causes."""
    where = "in the simulator" if step.where == "simulator" else "on the GPU"
    stopped = "the check stopped it (labkit check --time-limit SECONDS allows longer)"
    if state.kernel is not None:
        threads = state.blocks * state.threads_per_block
        head = (f"{step.shown_as}: your kernel did not finish in {limit_seconds:g} s {where}: `{state.kernel}` was "
                f"running, {state.blocks:,} blocks of {state.threads_per_block:,} threads")
        elements = _simulator_elements(step.exercise_id)
        if elements and threads > THREADS_PER_ELEMENT_TOO_MANY * elements:
            per = state.threads_per_block
            causes = (f"{threads:,} threads for {elements:,} elements is a grid far too large for the simulator, which "
                      f"runs every thread in Python (x.size blocks where (x.size + {per - 1}) // {per} were meant?); "
                      "or an endless loop in the kernel")
        else:
            causes = ("likely an endless loop in the kernel (a loop whose exit condition never comes true, such as a "
                      "while loop that never moves its index), or a kernel too slow for the simulator")
        return f"{head}: {causes}; {stopped}"
    if step.where == "gpu":
        during = f", {phase_text(state, 'en')}" if state.phase else ""
        return (f"{step.shown_as}: your code did not finish in {limit_seconds:g} s on the GPU{during}: likely an endless "
                f"loop in a kernel, or a sleep or an endless loop in your host code; {stopped}")
    return (f"{step.shown_as}: your code did not finish in {limit_seconds:g} s in the simulator, in host code (no kernel "
            f"running, {state.launches} launched): likely a sleep, an endless loop or a wait for input in your host code "
            f"(outside the kernels); {stopped}")


def phase_text(state: Progress, lang: str) -> str:
    """What the GPU step was doing, in words (``checking your output at 67,108,864 elements``)."""
    from labkit.report.labels import label
    from labkit.report.numbers import format_number

    fields = {key: format_number(value, 0, lang) if isinstance(value, (int, float)) else value
              for key, value in state.phase_fields.items()}
    return label(lang, f"exercise.phase.{state.phase}").format(**fields)


def ended_message(step: Step, status: int | None) -> str:
    """One line: the child ended without a verdict (``status``: its exit code, or minus a signal)."""
    unjudged = "before the check had judged every criterion"
    if status is not None and status < 0:
        name = signal.Signals(-status).name if -status in signal.valid_signals() else f"signal {-status}"
        why = {"SIGKILL": ": killed (by the system when memory ran out?)", "SIGSEGV": ": a crash in native code",
               "SIGABRT": ": an abort in native code"}.get(name, "")
        return f"{step.shown_as}: the process running your code died of {name}{why}, {unjudged}"
    code = "" if status is None else f" (exit status {status})"
    return (f"{step.shown_as}: your code ended the process running it{code}, or closed the file descriptors it "
            f"inherited (the check's pipe among them), {unjudged}: remove the exit or the close (the check calls your "
            "code and needs it to return)")


def _simulator_elements(exercise_id: str) -> int | None:
    from labkit.exercises import exercises

    found = exercises().get(exercise_id)
    return found.simulator_elements if found else None


class _Child:
    """A step's child process, under a keeper that outlives labkit's process for as long as it
    takes to kill the child's whole subtree.

    The keeper is a fork of this process in a session of its own (a terminal's Ctrl-C or hang-up
    reaches labkit, not it) and a subreaper (labkit.lifetime): every process the learner's code
    starts, even in a new session or through a double fork, stays in its subtree. Without a
    subreaper (macOS) it watches the subtree's process groups instead (labkit.lifetime.GroupWatch),
    which misses a process orphaned between two looks; the check's report says so. The keeper
    forks the child, reports its exit code on a pipe, and kills the whole subtree when labkit
    asks (a byte on the control pipe, or its end), when labkit's process is gone (SIGKILL,
    SIGTERM, SIGHUP: the control pipe ends, its parent changes), and then exits.
    """

    def __init__(self, keeper: int, status_fd: int, control_fd: int):
        self.keeper = keeper
        self.status_fd = status_fd
        self.control_fd = control_fd
        self.status: int | None = None     # the child's exit code, or minus the signal that killed it
        self.stopped = False
        self._pending = b""

    @classmethod
    def start(cls, step: Step, read_fd: int, write_fd: int, workdir: Path, output: tuple[int, int]) -> _Child:
        """``output``: the pipe the child's standard output and error go to (read end, write end)."""
        if not hasattr(os, "killpg"):
            raise LabkitError("labkit check runs your code in a child process it can stop, which needs Linux or "
                              "macOS: on Windows, use WSL")
        command = None if step.where == "simulator" and _may_fork() else _command(step, write_fd)
        status_read, status_write = os.pipe()
        control_read, control_write = os.pipe()
        keeper = os.fork()
        if keeper == 0:   # the keeper: never returns
            try:
                for fd in (read_fd, status_read, control_write, output[0]):
                    os.close(fd)
                _keep(step, write_fd, workdir, command, status_write, control_read, output[1])
            finally:
                os._exit(70)
        os.close(status_write)
        os.close(control_read)
        return cls(keeper, status_read, control_write)

    def exited(self) -> bool:
        """Whether the child has exited (the keeper said so)."""
        if self.status is None:
            ready, _, _ = select.select([self.status_fd], [], [], 0)
            if ready:
                self._read_status()
        return self.status is not None

    def _read_status(self) -> None:
        chunk = os.read(self.status_fd, 64)
        self._pending += chunk
        if b"\n" in self._pending:
            self.status = int(self._pending.split(b"\n", 1)[0])
        elif not chunk and self.status is None:
            self.status = -signal.SIGKILL   # the keeper ended without a word: killed with its child

    def exit_status(self, within_seconds: float) -> int | None:
        """The child's exit code (minus the signal that killed it), waiting at most ``within_seconds``;
        None if it is still running then (it is killed)."""
        deadline = time.monotonic() + within_seconds
        while not self.exited():
            left = deadline - time.monotonic()
            if left <= 0:
                break
            select.select([self.status_fd], [], [], left)
        status = self.status
        self.stop()
        return status

    def stop(self) -> None:
        """Have the keeper kill whatever is left of the child's subtree, then wait for it."""
        if self.stopped:
            return
        try:
            os.write(self.control_fd, b"stop")
        except OSError:
            pass
        os.close(self.control_fd)
        os.waitpid(self.keeper, 0)
        while self.status is None:
            self._read_status()
        os.close(self.status_fd)
        self.stopped = True


#: How often the keeper looks whether labkit's process is still there.
KEEPER_POLL_SECONDS = 0.05


def _command(step: Step, write_fd: int) -> tuple[list[str], dict[str, str]]:
    """A fresh interpreter running the child: argv and environment."""
    sources = str(Path(__file__).resolve().parents[2])   # this labkit, wherever the command runs from
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (sources, os.environ.get("PYTHONPATH")))),
           "PYTHONUNBUFFERED": "1"}   # what the learner's code prints reaches the check before a hang's kill
    if step.where == "simulator":
        env["NUMBA_ENABLE_CUDASIM"] = "1"
    return [sys.executable, "-m", "labkit.exercises.child", step.to_json(), str(write_fd)], env


def _keep(step: Step, write_fd: int, workdir: Path, command: tuple[list[str], dict[str, str]] | None,
          status_fd: int, control_fd: int, output_fd: int) -> None:
    """The keeper's life: start the child (its standard output and error on ``output_fd``), report
    its exit, kill its subtree when told or orphaned. (It imports nothing: a fork of a threaded
    process must not wait on an import lock.)"""
    parent = os.getppid()
    os.setsid()
    for number in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)   # only labkit's word or its end stops the keeper
    subreaper = become_subreaper()
    child = os.fork()
    if child == 0:
        try:
            os.close(status_fd)
            os.close(control_fd)
            for number in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
                signal.signal(number, signal.SIG_DFL)
            signal.signal(signal.SIGINT, signal.default_int_handler)
            os.setsid()
            for fd in (1, 2):
                os.dup2(output_fd, fd)
            os.close(output_fd)
            if command is None:
                from labkit.exercises.child import serve

                serve(step, write_fd, workdir)
            os.chdir(workdir)
            os.set_inheritable(write_fd, True)
            null = os.open(os.devnull, os.O_RDONLY)
            os.dup2(null, 0)
            os.execve(command[0][0], command[0], command[1])
        finally:
            os._exit(70)
    os.close(write_fd)
    os.close(output_fd)
    status: int | None = None

    def said(code: int) -> None:
        try:
            os.write(status_fd, f"{code}\n".encode())
        except OSError:
            pass

    watch = None if subreaper else GroupWatch(os.getpid(), child)
    next_look = time.monotonic()
    while True:
        ready, _, _ = select.select([control_fd], [], [], KEEPER_POLL_SECONDS)
        if ready or os.getppid() != parent:
            break
        if watch is not None and time.monotonic() >= next_look:
            watch.look()
            next_look = time.monotonic() + WATCH_EVERY_SECONDS
        reaped = reap_children()
        if status is None and child in reaped:
            status = reaped[child]
            said(status)
    reaped = watch.kill() if watch is not None else {}
    reaped.update(kill_descendants())
    if status is None:
        if child not in reaped:
            try:
                reaped[child] = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
            except ChildProcessError:
                reaped[child] = -signal.SIGKILL
        said(reaped[child])
    os._exit(0)


def _may_fork() -> bool:
    """A fork can run the simulator step: this process is the simulator's (no GPU context to inherit)."""
    from labkit.gpu.backend import select_backend

    return hasattr(os, "fork") and select_backend() == "simulator"
