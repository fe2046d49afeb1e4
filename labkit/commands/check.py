"""``labkit check``: an exercise's learner file checked, with a progress line and the learner's own
prints on stderr, the report on stdout (JSON with --json)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from labkit.errors import EXIT_ERROR, LabkitError


def terminal_lang() -> str:
    """LABKIT_LANG, else the locale's language when it is French or Chinese, else English."""
    wanted = os.environ.get("LABKIT_LANG") or os.environ.get("LC_ALL") or os.environ.get("LANG") or ""
    return next((lang for lang in ("fr", "zh", "en") if wanted.lower().startswith(lang)), "en")


class _ProgressLine:
    """While a check step runs: on a terminal, one line on stderr rewritten every second (from the
    second second on), erased at the end; elsewhere (a log, CI) a line every PLAIN_EVERY seconds."""

    SHOWN_AFTER = 2
    PLAIN_EVERY = 15

    def __init__(self, lang: str):
        self.lang = lang
        self.terminal = sys.stderr.isatty()
        self.shown = False

    def __call__(self, progress) -> None:
        from labkit.exercises.render import progress_text

        seconds = int(progress.seconds)
        if self.terminal and seconds >= self.SHOWN_AFTER:
            sys.stderr.write("\r\x1b[2K" + progress_text(progress, self.lang)[:200])
            self.shown = True
        elif not self.terminal and seconds and seconds % self.PLAIN_EVERY == 0:
            sys.stderr.write(progress_text(progress, self.lang) + "\n")
        sys.stderr.flush()

    def erase(self) -> None:
        if self.shown:
            sys.stderr.write("\r\x1b[2K")
            sys.stderr.flush()
            self.shown = False


class _LearnerOutput:
    """What the learner's code prints during a check, on stderr (stdout stays the report's, and
    JSON with --json): the first SHOWN_BYTES as they come, then one line saying how much more
    there was (a print in a loop of 100 MB reached the terminal whole)."""

    SHOWN_BYTES = 64 * 1024

    def __init__(self, lang: str, progress: _ProgressLine):
        self.lang = lang
        self.progress = progress
        self.total = 0
        self.ends_line = True

    def __call__(self, chunk: bytes) -> None:
        shown = chunk[:max(0, self.SHOWN_BYTES - self.total)]
        self.total += len(chunk)
        if shown:
            self.progress.erase()
            sys.stderr.flush()
            sys.stderr.buffer.write(shown)
            sys.stderr.buffer.flush()
            self.ends_line = shown.endswith(b"\n")

    def close(self) -> None:
        from labkit.report.labels import label
        from labkit.report.numbers import format_number

        if self.total > self.SHOWN_BYTES:
            note = label(self.lang, "exercise.printed.cut").format(total=format_number(self.total, 0, self.lang),
                                                                   shown=format_number(self.SHOWN_BYTES, 0, self.lang))
            sys.stderr.write(("" if self.ends_line else "\n") + note + "\n")
            sys.stderr.flush()


def check_command(args, console) -> int:
    """``labkit check``: the exercises, or one learner file checked, its progress and its prints on stderr."""
    from labkit.exercises import exercise, exercises
    from labkit.exercises.check import check
    from labkit.exercises.render import report_lines
    from labkit.project import find_project

    project = find_project()
    if args.exercise is None:
        for item in exercises().values():
            console.print(f"{item.command:<32} {project.relative(project.root / item.learner_file)}",
                          markup=False, highlight=False, soft_wrap=True)
        return 0
    item = exercise(args.exercise)
    if args.file is not None and not args.file.strip():
        raise LabkitError("--file '' names no file: give the path of your file, or leave --file out to check "
                          f"{item.learner_file}")
    path = Path(args.file).resolve() if args.file else project.root / item.learner_file
    shown_as = project.relative(path) if path.is_relative_to(project.root) else str(path)
    lang = args.lang or terminal_lang()
    progress = _ProgressLine(lang)
    printed = _LearnerOutput(lang, progress)
    try:
        limit = {"limit_seconds": args.time_limit} if args.time_limit else {}
        report = check(item, path, shown_as, simulator_only=args.simulator, progress=progress, course=project.root,
                       printed=printed, **limit)
    finally:
        progress.erase()
        printed.close()
    if args.json:
        print(json.dumps(report.model_dump(mode="json"), ensure_ascii=False, indent=1))
    else:
        from rich.text import Text

        for line in report_lines(item, report, project.docs_dir, lang):
            indent = len(line) - len(line.lstrip(" "))   # wrapped lines keep the line's indent
            for piece in Text(line.lstrip(" ")).wrap(console, max(20, console.width - indent)):
                console.print(" " * indent + piece.plain.rstrip(), markup=False, highlight=False, soft_wrap=True)
    return 0 if report.passed else EXIT_ERROR
