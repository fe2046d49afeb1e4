"""`labkit diagnose REPORT`: read a report (labkit.profiling.reports), diagnose each kernel as
chapter 4 does (labkit.profiling.diagnosis), apply chapter 5's checklist (labkit.profiling.checklist),
and write text (labkit.report.diagnosis_text) or JSON.

A whole-application export holds thousands of launches (a 300 MB raw page for some 6,600): the
pages are read one launch at a time, keeping only the metrics the diagnosis reads, and each
launch is written as soon as it is diagnosed. ``--top N`` groups the launches by kernel (same
function and signature), ranks the kernels by their total GPU time, and diagnoses the longest
launch of each of the first N; only one launch per kernel is kept meanwhile.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from labkit.profiling import checklist, diagnosis, reports
from labkit.profiling.ncu import KernelProfile
from labkit.report import diagnosis_text
from labkit.report.columns import wrap
from labkit.report.labels import label

#: A report larger than this shows a progress bar (on a terminal).
PROGRESS_BYTES = 8 << 20


def diagnosed(paths: list[Path], kernel_regex: str | None = None):
    """(report, [(profile, diagnosis, assessment)]) for the selected launches, in memory (small reports)."""
    report = reports.load(paths)
    out = []
    for profile in reports.select(report.profiles, kernel_regex):
        found = diagnosis.diagnose(profile)
        out.append((profile, found, checklist.assess(found)))
    return report, out


def launch_document(profile: KernelProfile, found: diagnosis.Diagnosis, assessment: checklist.Assessment) -> dict:
    """One launch as JSON: its id and names, the diagnosis (measurements and readings), the
    checklist's assessment (roof, fired items by gain) and the first item to act on."""
    return {
        "id": profile.id, "kernel": profile.name, "full_name": profile.full_name,
        "verdict": assessment.verdict,
        "first_item": assessment.first.item if assessment.first else None,
        "assessment": assessment.model_dump(mode="json"),
        "diagnosis": found.model_dump(mode="json"),
    }


@dataclass
class KernelGroup:
    """Every launch of one kernel (same full name): how many, their total time, and the longest."""

    full_name: str
    launches: int
    total_seconds: float
    longest: KernelProfile
    longest_seconds: float


def top_kernels(profiles: Iterable[KernelProfile], count: int) -> tuple[list[KernelGroup], int, int, float]:
    """The ``count`` kernels with the most total GPU time, most first, with the numbers of launches
    and of kernels and the GPU time of the whole report. Keeps one profile per kernel (its longest
    launch)."""
    groups: dict[str, KernelGroup] = {}
    launches, total = 0, 0.0
    for profile in profiles:
        seconds = profile.seconds(diagnosis.DURATION_METRIC)
        launches, total = launches + 1, total + seconds
        group = groups.get(profile.full_name)
        if group is None:
            groups[profile.full_name] = KernelGroup(profile.full_name, 1, seconds, profile, seconds)
            continue
        group.launches += 1
        group.total_seconds += seconds
        if seconds > group.longest_seconds:
            group.longest, group.longest_seconds = profile, seconds
    ranked = sorted(groups.values(), key=lambda g: g.total_seconds, reverse=True)
    return ranked[:count], launches, len(ranked), total


class _Writer:
    """Text or JSON, written as launches come (text: one block each; JSON: one document)."""

    def __init__(self, out: TextIO, lang: str, json_output: bool, has_rules: bool):
        self.out, self.lang, self.json, self.has_rules = out, lang, json_output, has_rules
        self.count = 0

    def launch(self, profile, found, assessment, group: dict | None = None) -> None:
        if self.json:
            document = launch_document(profile, found, assessment) | (group or {})
            # one launch per line: json's C encoder (an indent would take its pure-Python one, several
            # times slower on a whole-application report)
            self.out.write(("[\n" if not self.count else ",\n") + json.dumps(document, ensure_ascii=False))
        else:
            block = diagnosis_text.render_kernel(found, assessment, self.lang, profile.id, self.has_rules)
            if group is not None:
                heading, rest = block.split("\n", 1)
                line = diagnosis_text.words(self.lang, "diag.top_group", {
                    "launches": group["launches"], "total_ms": group["total_seconds"] * 1e3,
                    "share_pct": group["share_pct"], "duration_us": group["diagnosed_seconds"] * 1e6})
                block = "\n".join([heading, *wrap(line, diagnosis_text.WIDTH), rest])
            self.out.write(("\n\n" if self.count else "") + block)
        self.count += 1
        self.out.flush()

    def start_json(self, fields: dict) -> None:
        self.out.write(json.dumps(fields, ensure_ascii=False)[:-1] + ', "launches": ')

    def end(self) -> None:
        if self.json:
            self.out.write(("[]" if not self.count else "\n]") + "}\n")
        else:
            note = "\n".join(wrap(label(self.lang, "diag.timeline_note"), diagnosis_text.WIDTH))
            self.out.write(("\n\n" if self.count else "") + note + "\n")


def diagnose_report(paths: list[Path], kernel_regex: str | None, lang: str, json_output: bool,
                    top: int | None = None, out: TextIO | None = None, progress_console=None) -> None:
    """The command: every selected launch diagnosed and written to ``out`` as it comes, or with
    ``top`` the kernels taking the most GPU time first. ``progress_console`` (a rich Console) shows
    a progress bar over the bytes read."""
    out = out or sys.stdout
    with reports.open_pages(paths) as pages:
        writer = _Writer(out, lang, json_output, pages.has_rules)
        try:
            with _progress(progress_console, pages.total_bytes) as advance:
                launches = reports.select(pages.launches(keep=diagnosis.needed_metric, progress=advance), kernel_regex)
                if top is None:
                    _stream(launches, writer, pages.raw)
                else:
                    _top(launches, top, writer, pages.raw)
        except reports.ReportError:
            if writer.count:   # the error's line on a line of its own, after what was written
                out.write("\n")
                out.flush()
            raise
        writer.end()


def _diagnosed(profile: KernelProfile, source: Path) -> diagnosis.Diagnosis:
    """The launch's diagnosis; values no run of ncu gives (a zero or negative duration, a negative
    count) are one line naming the file and the launch."""
    from pydantic import ValidationError

    from labkit.records import describe_validation_error

    try:
        return diagnosis.diagnose(profile)
    except ValidationError as exc:
        raise reports.ReportError(f"{source}: launch {profile.id} ({profile.name}): {describe_validation_error(exc)}: "
                                  "not a value ncu measures; re-export the report, or profile the kernel again"
                                  ) from None


def _stream(launches: Iterator[KernelProfile], writer: _Writer, source: Path) -> None:
    first = True
    for profile in launches:
        found = _diagnosed(profile, source)
        assessment = checklist.assess(found)
        if first and writer.json:
            writer.start_json({"has_rules": writer.has_rules})
        first = False
        writer.launch(profile, found, assessment)


def _top(launches: Iterator[KernelProfile], count: int, writer: _Writer, source: Path) -> None:
    groups, launch_count, kernel_count, total = top_kernels(launches, count)
    if writer.json:
        writer.start_json({"has_rules": writer.has_rules, "top": count, "launch_count": launch_count,
                           "kernel_count": kernel_count, "total_seconds": total})
    else:
        writer.out.write("\n".join(wrap(diagnosis_text.words(writer.lang, "diag.top_summary", {
            "shown": len(groups), "kernels": kernel_count, "launches": launch_count,
            "total_ms": total * 1e3}), diagnosis_text.WIDTH)) + "\n\n")
    for group in groups:
        found = _diagnosed(group.longest, source)
        writer.launch(group.longest, found, checklist.assess(found), {
            "launches": group.launches, "total_seconds": group.total_seconds,
            "share_pct": 100 * group.total_seconds / total if total else 0.0,
            "diagnosed_seconds": group.longest_seconds})


class _progress:
    """A progress bar over ``total`` bytes on ``console`` (none without a console or for a small
    report); the context gives the function that advances it."""

    def __init__(self, console, total: int):
        self.bar = None
        if console is not None and total >= PROGRESS_BYTES:
            from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

            self.bar = Progress(TextColumn("labkit diagnose"), BarColumn(), DownloadColumn(), TimeRemainingColumn(),
                                console=console, transient=True)
            self.task = self.bar.add_task("read", total=total)

    def __enter__(self):
        if self.bar is None:
            return None
        self.bar.start()
        return lambda read: self.bar.advance(self.task, read)

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.stop()
