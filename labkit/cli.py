"""``labkit``: doctor, run a lab, list recorded results.

Errors are one line, never a traceback (set LABKIT_DEBUG=1 to see the traceback).
"""

from __future__ import annotations

import argparse
import os
import sys

from rich.console import Console

EXIT_ERROR = 1
EXIT_INTERRUPTED = 130


def _doctor(args, console: Console) -> int:
    from labkit.doctor import doctor_report, format_report

    console.print(format_report(doctor_report()))
    return 0


def _run(args, console: Console) -> int:
    from labkit.labs.runner import run_lab

    return run_lab(args.lab, args.record, console, args.threads)


def _results(args, console: Console) -> int:
    from labkit.labs import LABS, load_lab
    from labkit.results import ResultsError, load_results, recorded_files

    status = 0
    for lab_id in sorted(LABS):
        lab = load_lab(lab_id)
        files = recorded_files(lab.LAB_DIR)
        if not files:
            console.print(f"{lab_id}: no results recorded")
        for path in files:
            try:
                prov = load_results(path, lab_id, lab.RESULTS_SCHEMA)["provenance"]
            except ResultsError as exc:
                console.print(f"{lab_id}: INVALID {exc}")
                status = EXIT_ERROR
                continue
            console.print(f"{lab_id}: {path} — {prov['gpu']}, {prov['utc_time']}, commit {prov['git_commit'][:12]}")
    return status


def _translations(args, console: Console) -> int:
    from pathlib import Path

    from labkit.site.translations import mark_fresh, statuses

    docs = Path(__file__).resolve().parents[1] / "docs"
    for page in args.mark_fresh:
        console.print(f"{page}: translation_of {mark_fresh(Path(page), docs)}")
    behind = 0
    for status in statuses(docs):
        if status.state != "fresh":
            behind += 1
            console.print(f"{status.state}: {status.page.relative_to(docs.parent)} "
                          f"(source {status.source.relative_to(docs.parent)})")
    console.print("all translations are up to date" if not behind else f"{behind} translation(s) to look at")
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="labkit", description="Labs of the executable GPU performance course.")
    commands = top.add_subparsers(dest="command", required=True)
    commands.add_parser("doctor", help="what this machine offers: GPU, clocks, peaks, libraries, profilers"
                        ).set_defaults(handler=_doctor)
    run = commands.add_parser("run", help="run a lab (on the GPU, or in the simulator without one)")
    run.add_argument("lab", help="e.g. lab-04")
    run.add_argument("--record", action="store_true", help="write the results file (GPU only)")
    run.add_argument("--threads", type=int, metavar="N", help="threads per block of the lab's adjustable kernels")
    run.set_defaults(handler=_run)
    commands.add_parser("results", help="list the recorded results files and check them"
                        ).set_defaults(handler=_results)
    translations = commands.add_parser("translations", help="which translated pages are behind their French source")
    translations.add_argument("--mark-fresh", nargs="*", default=[], metavar="PAGE",
                              help="record that PAGE (docs/zh/...) now translates its French source as it is")
    translations.set_defaults(handler=_translations)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    console = Console()
    try:
        return args.handler(args, console)
    except KeyboardInterrupt:
        console.print("labkit: interrupted; nothing was recorded.")
        return EXIT_INTERRUPTED
    except (ValueError, RuntimeError, OSError) as exc:
        if os.environ.get("LABKIT_DEBUG"):
            raise
        console.print(f"labkit: {exc}", markup=False, highlight=False)
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
