"""``labkit``: doctor, run a lab, list recorded results, check an exercise, diagnose an Nsight Compute
report, check a chapter, translations.

Every mistake is one line naming the file and the fix, never a traceback (LABKIT_DEBUG=1 shows
the traceback). This module imports only the standard library at the top, so that a Python
without labkit's packages (``make lab-04 PY=python3``) gets one line saying which is missing.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from pathlib import Path

from labkit.errors import DEBUG_ENV, EXIT_ERROR, EXIT_INTERRUPTED, LabkitError  # standard library only, like this module


def _doctor(args, console) -> int:
    from labkit.commands.doctor import doctor_report, format_report

    console.print(format_report(doctor_report(args.as_profile)), markup=False, highlight=False, soft_wrap=True)
    return 0


def _run(args, console) -> int:
    from labkit.gpu.backend import select_backend
    from labkit.labs.base import lab
    from labkit.labs.runner import RunReport, run_lab
    from labkit.project import find_project

    changes = {} if args.threads is None else {"threads_per_block": args.threads}
    the_lab = lab(args.lab)
    report = RunReport(the_lab.id, select_backend())
    status = run_lab(the_lab, find_project(), args.record, console, changes, report)
    if args.json:
        print(json.dumps(report.as_json(), ensure_ascii=False, indent=1))
    return status


def _results(args, console) -> int:
    from labkit.commands.results import list_results

    return list_results(console, args.json)


def _notebooks(args, console) -> int:
    """Each lab's .ipynb with its notebook-service install cell, when the repository is configured."""
    from labkit.commands.notebooks import REPO_URL_ENV, write_notebooks
    from labkit.labs.base import labs
    from labkit.project import find_project

    written = write_notebooks(find_project().root, [lab.notebook for lab in labs().values()])
    if not written:
        console.print(f"No public repository configured ([project.urls] Repository in pyproject.toml, or "
                      f"{REPO_URL_ENV}): no notebook-service notebooks to write.")
    for path in written:
        console.print(f"wrote {path}")
    return 0


def _diagnose(args, console) -> int:
    """Chapter 5's checklist applied to each kernel of an Nsight Compute report."""
    from rich.console import Console

    from labkit.commands.diagnose import diagnose_report

    progress = Console(stderr=True) if sys.stderr.isatty() else None
    diagnose_report([Path(p) for p in args.report], args.kernel, args.lang, args.json, args.top,
                    progress_console=progress)
    return 0


def _translations(args, console) -> int:
    from labkit.project import find_project
    from labkit.site.translations import mark_fresh, statuses

    project = find_project()
    for page in args.mark_fresh:
        console.print(f"{page}: translation_of {mark_fresh(project, page)}", markup=False, highlight=False, soft_wrap=True)
    behind = 0
    for status in statuses(project.docs_dir):
        if status.state != "fresh":
            behind += 1
            console.print(f"{status.state}: {project.relative(status.page)} (source {project.relative(status.source)})",
                          markup=False, highlight=False, soft_wrap=True)
    console.print("all translations are up to date" if not behind else f"{behind} translation(s) to look at")
    return 0


def _chapter(args, console) -> int:
    """One chapter in both languages: sources, parity, drift, quizzes, typography, its build."""
    import tempfile
    import time

    from labkit.project import find_project
    from labkit.site.chapter import check_chapter

    from labkit.site.syntax import not_utf8

    started = time.monotonic()
    project = find_project()
    for page in sorted(project.docs_dir.glob("*/**/*.md")):   # the check reads every page of both languages
        if found := not_utf8(page.read_bytes()):
            raise LabkitError(f"{project.relative(page)}, {found}")
    with tempfile.TemporaryDirectory(prefix="labkit-chapter-") as tmp:
        site_dir = Path(args.site).resolve() if args.site else Path(tmp)
        chapter, problems = check_chapter(project, args.chapter, site_dir)
    for problem in problems:
        console.print(problem, markup=False, highlight=False, soft_wrap=True)
    seconds = time.monotonic() - started
    languages = " and ".join(chapter.sources)
    if problems:
        console.print(f"{chapter.page} ({languages}): {len(problems)} problem(s), {seconds:.0f} s",
                      markup=False, highlight=False)
        return EXIT_ERROR
    shown = f", the pages in {args.site}" if args.site else ""
    console.print(f"{chapter.page} ({languages}): sources, parity, drift, quizzes, typography, build and rendered "
                  f"pages all good ({seconds:.0f} s{shown})", markup=False, highlight=False, soft_wrap=True)
    return 0


def _check(args, console) -> int:
    from labkit.commands.check import check_command

    return check_command(args, console)


def _positive_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = float("nan")
    if not seconds > 0 or seconds == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds above 0")
    return seconds


def _positive(text: str) -> int:
    """A whole number of at least 1 (argparse names the option and the value when it is not)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"{value} is not at least 1")
    return value


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="labkit", description="Labs of the executable GPU performance course.")
    commands = top.add_subparsers(dest="command", required=True)
    doctor = commands.add_parser("doctor", help="what this machine offers (GPU, clocks, peaks, libraries, "
                                 "profilers) and what each lab will do on it")
    from labkit.specs.profiles import PROFILES  # the standard library and labkit's pure modules only

    doctor.add_argument("--as", dest="as_profile", metavar="GPU", choices=sorted(PROFILES),
                        help=f"what each lab would do on another GPU: {', '.join(PROFILES)}")
    doctor.set_defaults(handler=_doctor)
    run = commands.add_parser("run", help="run a lab (on the GPU, or in the simulator without one)")
    run.add_argument("lab", help="e.g. lab-04")
    run.add_argument("--record", action="store_true", help="write the results file (GPU only)")
    run.add_argument("--threads", type=_positive, metavar="N",
                     help="threads per block of the lab's adjustable kernels (records as an experiment)")
    run.add_argument("--json", action="store_true", help="print what the run did as JSON on stdout "
                     "(messages go to stderr)")
    run.set_defaults(handler=_run)
    commands.add_parser("notebooks", help="write each lab's .ipynb for Colab (when the repository is configured)"
                        ).set_defaults(handler=_notebooks)
    results = commands.add_parser("results", help="list the recorded results files and check them")
    results.add_argument("--json", action="store_true", help="print the listing as JSON on stdout")
    results.set_defaults(handler=_results)
    check = commands.add_parser("check", help="check your solution to an exercise, with or without a GPU")
    check.add_argument("exercise", nargs="?", help="e.g. 01-fuse (none: list the exercises)")
    check.add_argument("--file", metavar="PATH", help="your file (default: the exercise's file under labs/)")
    check.add_argument("--lang", choices=("en", "fr", "zh"),
                       help="language of the report (default: LABKIT_LANG, else the locale's if fr or zh, else en)")
    check.add_argument("--simulator", action="store_true",
                       help="the simulator's criteria only, even on a GPU (it names the line of an out-of-bounds access)")
    check.add_argument("--json", action="store_true", help="the report as JSON on stdout")
    check.add_argument("--time-limit", type=_positive_seconds, metavar="SECONDS",
                       help="stop your code after this long, in the simulator and again on the GPU (default: "
                            "labkit.exercises.isolated.DEFAULT_LIMIT_SECONDS, two minutes)")
    check.set_defaults(handler=_check)
    diagnose = commands.add_parser(
        "diagnose", help="chapter 5's checklist applied to the kernels of an Nsight Compute report",
        description="Reads ncu's CSV pages (--csv --page raw, and --page details for the rules' Est. Speedup), a "
                    "folder holding ncu_raw.csv and ncu_details.csv, or an .ncu-rep report (through ncu --import, "
                    "where ncu is installed). For each kernel: the busiest units, the chapter 4 quadrant, launch "
                    "statistics, occupancy, the top stalls, then the checklist items it triggers by expected gain, "
                    "each with the sections of the course to read.")
    diagnose.add_argument("report", nargs="+", metavar="REPORT",
                          help="raw.csv [details.csv], a folder holding ncu_raw.csv [ncu_details.csv], or an .ncu-rep")
    diagnose.add_argument("-k", "--kernel", metavar="REGEX", help="only the kernels whose name matches REGEX")
    diagnose.add_argument("--lang", choices=("en", "fr", "zh"), default="en", help="language of the text (default en)")
    diagnose.add_argument("--json", action="store_true", help="JSON for scripts instead of text")
    diagnose.add_argument("--top", type=_positive, metavar="N",
                          help="the N kernels taking the most GPU time first (launches grouped by kernel, each "
                               "diagnosed on its longest launch): for a whole-application report")
    diagnose.set_defaults(handler=_diagnose)
    chapter = commands.add_parser(
        "chapter", help="check one chapter in both languages, in seconds (sources, parity, drift, quizzes, "
                        "typography, the build of its two pages)")
    chapter.add_argument("chapter", help="its number (03) or its page (performance/index.md)")
    chapter.add_argument("--site", metavar="DIR", help="keep the two built pages in DIR (default: a temporary folder)")
    chapter.set_defaults(handler=_chapter)
    translations = commands.add_parser("translations", help="which translated pages are behind their French source")
    translations.add_argument("--mark-fresh", nargs="*", default=[], metavar="PAGE",
                              help="record that PAGE (docs/zh/...) now translates its French source as it is")
    translations.set_defaults(handler=_translations)
    return top


def _say(message: str, to_stderr: bool = False) -> None:
    """One line, on stdout (or stderr); on stderr when stdout cannot be written (a full disk)."""
    try:
        print(f"labkit: {message}", flush=True, file=sys.stderr if to_stderr else sys.stdout)
    except OSError:
        _stdout_dropped()
        print(f"labkit: {message}", flush=True, file=sys.stderr)


def _stdout_dropped() -> None:
    """Standard output to /dev/null from now on: what is left in its buffer cannot be written, and
    Python's exit would fail on it again."""
    try:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    except (OSError, ValueError):
        pass


def _output_failed(exc: BaseException) -> bool:
    """A failure to write labkit's output (``> /dev/full``, a full disk), not to read its input."""
    return (isinstance(exc, OSError) and not isinstance(exc, BrokenPipeError) and exc.filename is None
            and exc.errno in {errno.ENOSPC, errno.EIO, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)})


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    debug = bool(os.environ.get(DEBUG_ENV))
    quiet_stdout = getattr(args, "json", False)   # stdout is for the JSON alone
    try:
        from rich.console import Console

        status = args.handler(args, Console(stderr=getattr(args, "json", False)))
        sys.stdout.flush()
        return status
    except ModuleNotFoundError as exc:
        if debug:
            raise
        _say(f"{sys.executable} has no module '{exc.name}', which labkit needs: install labkit's requirements "
             "(pip install -e '.[gpu]' in the course's folder), or run make without PY= to use .venv", quiet_stdout)
        return EXIT_ERROR
    except KeyboardInterrupt:
        _say("interrupted", quiet_stdout)
        return EXIT_INTERRUPTED
    except BrokenPipeError:   # `labkit diagnose BIG | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:
        if debug:
            raise
        if _output_failed(exc):
            _stdout_dropped()
            _say(f"writing the output failed ({exc.strerror}): free some disk space, or send the output "
                 "elsewhere", to_stderr=True)
        elif isinstance(exc, LabkitError):
            _say(" ".join(str(exc).split()), quiet_stdout)
        else:
            _say(f"internal error, {type(exc).__name__}: {' '.join(str(exc).split())} "
                 f"(set {DEBUG_ENV}=1 for the traceback, and report it)", quiet_stdout)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
