"""The child's side of a check step (labkit.exercises.isolated): run the step on the learner's
code in this process and send what happened to the parent, as JSON lines on a pipe.

``python -m labkit.exercises.child STEP_JSON FD`` (a fresh interpreter, started in its temporary
working directory) or :func:`serve` (a forked child). In this process ``os._exit`` raises
SystemExit while the learner's code runs, so that the line calling it can be named.
"""

from __future__ import annotations

import faulthandler
import json
import os
import sys
import traceback
from pathlib import Path
from typing import NoReturn

from labkit.exercises.step import Step


class _Channel:
    """The pipe to the parent; also told of each simulated launch (a LaunchListener)."""

    def __init__(self, fd: int):
        self.stream = os.fdopen(fd, "w", encoding="utf-8")

    def send(self, event: str, **fields) -> None:
        self.stream.write(json.dumps({"event": event, **fields}) + "\n")
        self.stream.flush()

    def launch(self, kernel: str, grid: tuple[int, int, int], block: tuple[int, int, int]) -> None:
        self.send("launch", kernel=kernel, grid=list(grid), block=list(block))

    def launched(self) -> None:
        self.send("launched")


def _exit_raises(status: int = 0) -> NoReturn:
    raise SystemExit(status)


def serve(step: Step, channel_fd: int, workdir: Path | None = None) -> NoReturn:
    """Run ``step``, send its outcome on ``channel_fd``, and end this process."""
    real_exit = os._exit
    try:
        sys.path[:] = [os.path.abspath(entry) for entry in sys.path]   # before leaving the working directory
        faulthandler.disable()   # a crash is said in one line by the parent, not dumped by a test runner's handler
        if workdir is not None:
            os.chdir(workdir)
        _stdin_closed()
        _output_to_fds()
        channel = _Channel(channel_fd)
        os._exit = _exit_raises
        try:
            channel.send("answer", **_run(step, channel))
        except KeyboardInterrupt:
            channel.send("interrupted")
        except BaseException as exc:  # noqa: BLE001  (every outcome goes to the parent)
            from labkit.exercises.learner import LearnerError

            if isinstance(exc, LearnerError):
                channel.send("error", error=str(exc))
            else:
                channel.send("internal", error=f"{type(exc).__name__}: {' '.join(str(exc).split())}",
                             traceback=traceback.format_exc())
        finally:
            os._exit = real_exit
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        real_exit(0)


def _stdin_closed() -> None:
    """Standard input from /dev/null: ``input()`` in the learner's code fails at once."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    sys.stdin = open(0, encoding="utf-8", closefd=False)


def _output_to_fds() -> None:
    """``print`` to file descriptors 1 and 2 (the keeper made them the check's output pipe), line by
    line (a forked child inherits the parent's streams, which may write elsewhere: a test runner's)."""
    sys.stdout = open(1, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False)
    sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False)


def _run(step: Step, channel: _Channel) -> dict:
    from labkit.exercises import exercise

    item = exercise(step.exercise_id)
    if step.where == "simulator":
        from labkit.exercises.simulator_step import in_simulator

        return in_simulator(item, Path(step.path), step.shown_as, step.seed, listener=channel)
    from labkit.exercises.on_gpu import on_gpu

    return on_gpu(item, Path(step.path), step.shown_as, step.seed, Path(step.hand_over),
                  phase=lambda name, **fields: channel.send("phase", phase=name, fields=fields))


def main(argv: list[str]) -> int:
    step, fd = Step.from_json(argv[0]), int(argv[1])
    if step.where == "simulator":
        from labkit.gpu.backend import select_backend

        if select_backend() != "simulator":
            print("labkit.exercises.child: the simulator step needs NUMBA_ENABLE_CUDASIM=1", file=sys.stderr)
            return 2
    serve(step, fd)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
