"""`labkit diagnose REPORT`: read a report (labkit.profiling.reports), diagnose each kernel as
chapter 4 does (labkit.profiling.diagnosis), apply chapter 5's checklist (labkit.profiling.checklist),
and write text (labkit.report.diagnosis_text) or JSON."""

from __future__ import annotations

import json
from pathlib import Path

from labkit.profiling import checklist, diagnosis, reports
from labkit.report import diagnosis_text


def diagnosed(paths: list[Path], kernel_regex: str | None = None):
    """(report, [(profile, diagnosis, assessment)]) for the selected launches."""
    report = reports.load(paths)
    out = []
    for profile in reports.select(report.profiles, kernel_regex):
        found = diagnosis.diagnose(profile)
        out.append((profile, found, checklist.assess(found)))
    return report, out


def as_json(report: reports.Report, kernels) -> str:
    """One object per launch: its id and names, the diagnosis (measurements and readings), the
    checklist's assessment (roof, fired items by gain) and the first item to act on."""
    launches = []
    for profile, found, assessment in kernels:
        launches.append({
            "id": profile.id, "kernel": profile.name, "full_name": profile.full_name,
            "verdict": assessment.verdict,
            "first_item": assessment.first.item if assessment.first else None,
            "assessment": assessment.model_dump(mode="json"),
            "diagnosis": found.model_dump(mode="json"),
        })
    return json.dumps({"has_rules": report.has_rules, "launches": launches}, ensure_ascii=False, indent=2) + "\n"


def diagnose_report(paths: list[Path], kernel_regex: str | None, lang: str, json_output: bool) -> str:
    report, kernels = diagnosed(paths, kernel_regex)
    if json_output:
        return as_json(report, kernels)
    return diagnosis_text.render([(found, assessment, profile.id) for profile, found, assessment in kernels], lang,
                                 has_rules=report.has_rules)
