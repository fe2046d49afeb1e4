"""A check's report as lines of text in the reader's language: one line per criterion (status,
what, value, target), and under a failed one its hint and the chapter section to reread.

The section's title is read from the chapter page itself (the heading carrying the criterion's
``{#anchor}``), so it is the one the reader sees on the site; English, which has no pages, shows
the French title.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from labkit.report.columns import columns

from labkit.exercises.isolated import Progress, phase_text
from labkit.exercises.metrics import metric
from labkit.exercises.spec import CORRECT, Criterion, Exercise
from labkit.exercises.verdicts import CheckReport, Verdict
from labkit.report.labels import LANGUAGES, label
from labkit.report.numbers import format_number

HEADING = re.compile(r"^#{1,6}\s+(?P<title>.+?)\s*\{#(?P<anchor>[\w-]+)\}\s*$", re.MULTILINE)
#: Widths, in terminal cells, of the status and criterion columns: a line fits 80 columns.
STATUS_WIDTH = 6
NAME_WIDTH = 44


def page_lang(lang: str) -> str:
    return lang if lang in LANGUAGES else "fr"


def section_title(docs: Path, chapter: str, anchor: str, lang: str) -> str | None:
    """The title of the heading ``{#anchor}`` of the chapter page in ``lang`` (French for English)."""
    page = docs / page_lang(lang) / chapter
    try:
        text = page.read_text(encoding="utf-8")
    except OSError:
        return None
    found = {m["anchor"]: m["title"] for m in HEADING.finditer(text)}
    return found.get(anchor)


def section_url(chapter: str, anchor: str, lang: str) -> str:
    """Where the section is on the site (``make serve``): ``/zh/performance/01-roofline/#intensity``."""
    root = LANGUAGES[page_lang(lang)]["root"]
    return f"/{root}{PurePosixPath(chapter).with_suffix('').as_posix()}/#{anchor}"


def chapter_number(chapter: str) -> int:
    return int(PurePosixPath(chapter).name.split("-", 1)[0])


def reread(exercise: Exercise, criterion: Criterion, docs: Path, lang: str) -> str:
    """``reread chapter 1, « Title » (/performance/01-roofline/#anchor)``."""
    title = section_title(docs, exercise.chapter, criterion.section, lang) or criterion.section
    return label(lang, "exercise.reread").format(number=chapter_number(exercise.chapter), title=title,
                                                 url=section_url(exercise.chapter, criterion.section, lang))


def target_text(criterion: Criterion, decimals: int, lang: str) -> str:
    key = "exercise.target.at_most" if criterion.at_most is not None else "exercise.target.at_least"
    return label(lang, key).format(target=format_number(criterion.target, decimals, lang))


def value_text(exercise: Exercise, verdict: Verdict, lang: str) -> str:
    if verdict.metric == CORRECT or verdict.value is None:
        return ""
    return format_number(verdict.value, metric(exercise, verdict.metric).decimals, lang)


def problem_text(problem, lang: str) -> str:
    return label(lang, f"exercise.problem.{problem.kind}").format(**problem.model_dump())


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces up to ``width`` terminal cells (a Chinese character takes two)."""
    return text + " " * max(0, width - columns(text))


def verdict_lines(exercise: Exercise, verdict: Verdict, docs: Path, lang: str) -> list[str]:
    name = label(lang, f"exercise.metric.{verdict.metric}")
    status = label(lang, f"exercise.status.{verdict.status}")
    line = f"  {pad(status, STATUS_WIDTH)} {pad(name, NAME_WIDTH)} {value_text(exercise, verdict, lang):>7}"
    criterion = next((c for c in exercise.criteria if c.metric == verdict.metric), None)
    if criterion is not None and verdict.metric != CORRECT:
        line += "   " + target_text(criterion, metric(exercise, verdict.metric).decimals, lang)
    lines = [line.rstrip()]
    if verdict.note:
        lines.append(f"           {label(lang, f'exercise.note.{verdict.note}')}")
    lines += [f"           {problem_text(p, lang)}" for p in verdict.problems]
    if verdict.status == "fail" and criterion is not None:
        lines.append(f"           → {label(lang, criterion.hint)}")
        lines.append(f"             {reread(exercise, criterion, docs, lang)}")
    return lines


def report_lines(exercise: Exercise, report: CheckReport, docs: Path, lang: str) -> list[str]:
    """The whole report, ending with one line that says how it went."""
    lines = [label(lang, "exercise.header").format(id=exercise.id, file=report.file)]
    if not report.orphans_followed:
        lines.append(label(lang, "exercise.run.orphans_not_followed"))
    if report.error:
        return lines + [label(lang, "exercise.outcome.error"), f"  {report.error}"]
    lines.append(label(lang, "exercise.run.simulator").format(
        elements=format_number(exercise.simulator_elements, 0, lang)))
    for verdict in report.verdicts:
        if verdict.where == "simulator":
            lines += verdict_lines(exercise, verdict, docs, lang)
    gpu = [v for v in report.verdicts if v.where == "gpu"]
    if report.gpu_run is not None:
        run = report.gpu_run
        clock = lambda mhz: format_number(mhz, 0, lang) if mhz else "?"  # noqa: E731
        lines.append(label(lang, "exercise.run.gpu").format(
            gpu=run.gpu, elements=format_number(run.elements, 0, lang),
            ours=format_number(run.reference.median_seconds * 1e6, 1, lang),
            yours=format_number(run.learner.median_seconds * 1e6, 1, lang), repeats=run.learner.repeats,
            sm=clock(run.learner.sm_clock_mhz), memory=clock(run.learner.mem_clock_mhz)))
    elif gpu:
        lines.append(label(lang, "exercise.run.no_gpu_run"))
    for verdict in gpu:
        lines += verdict_lines(exercise, verdict, docs, lang)
    failed = report.failed()
    if failed:
        checked = sum(v.status in ("pass", "fail") for v in report.verdicts)
        lines.append(label(lang, "exercise.outcome.failed").format(count=len(failed), checked=checked))
    elif report.complete:
        lines.append(label(lang, "exercise.outcome.passed"))
    else:
        lines.append(label(lang, "exercise.outcome.passed_without_gpu"))
    return lines


def progress_text(progress: Progress, lang: str) -> str:
    """The line shown while a step runs: ``running your code in the simulator: 12 s, kernel k, 2,048
    blocks of 256 threads`` (or the host code, or the GPU step's phase)."""
    line = label(lang, f"exercise.progress.{progress.where}").format(seconds=format_number(progress.seconds, 0, lang))
    if progress.kernel is not None:
        detail = label(lang, "exercise.progress.kernel").format(
            kernel=progress.kernel, blocks=format_number(progress.blocks, 0, lang),
            threads=format_number(progress.threads_per_block, 0, lang))
    elif progress.phase is not None:
        detail = phase_text(progress, lang)
    else:
        detail = label(lang, "exercise.progress.host").format(launches=progress.launches)
    separator = ", " if lang != "zh" else "，"
    return line + separator + detail
