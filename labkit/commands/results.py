"""``labkit results``: every recorded results file, validated, and the course's records accounted for."""

from __future__ import annotations

import json

from labkit.errors import EXIT_ERROR


def list_results(console, as_json: bool) -> int:
    """Every recorded results file, validated; an interrupted recording's previous record put back;
    a course record git tracks but the checkout lacks is an error (labkit.records.tracked)."""
    from labkit.labs.base import labs
    from labkit.project import find_project
    from labkit.records.files import RESULTS_FOLDER, ResultsError, read_results, recorded_paths
    from labkit.records.tracked import missing_message, missing_records
    from labkit.records.writing import recover

    project = find_project()
    status = 0
    listing = []
    for lab_id, lab in labs().items():
        lab_dir = lab.lab_dir(project)
        try:   # first: a recording killed mid-swap holds the record aside in .previous-<gpu>/, which is not a loss
            restored, unrecovered = recover(lab_dir / RESULTS_FOLDER), None
        except ResultsError as exc:
            restored, unrecovered = [], exc
        for name in restored:
            console.print(f"{lab_id}: put back the previous record {name} (a recording was interrupted)")
        # before the listing (a lost record leaves its raw folder); not when recovery failed: the record is aside
        missing = [] if unrecovered else missing_records(project.root, lab.folder)
        for name in missing:
            message = missing_message(lab_id, name)
            console.print(f"{lab_id}: MISSING {message}", markup=False, highlight=False, soft_wrap=True)
            listing.append({"lab": lab_id, "path": name, "valid": False, "error": message, "provenance": None})
            status = EXIT_ERROR
        try:
            if unrecovered is not None:
                raise unrecovered
            if missing:
                continue
            paths = recorded_paths(lab_dir, project.relative)
        except ResultsError as exc:
            console.print(f"{lab_id}: INVALID {exc}", markup=False, highlight=False, soft_wrap=True)
            listing.append({"lab": lab_id, "path": None, "valid": False, "error": str(exc), "provenance": None})
            status = EXIT_ERROR
            continue
        if not paths:
            console.print(f"{lab_id}: no results recorded")
        for path in paths:
            try:
                prov = read_results(path, lab.results_type, lab_id, source=project.relative(path)).provenance
            except ResultsError as exc:
                console.print(f"{lab_id}: INVALID {exc}", markup=False, highlight=False, soft_wrap=True)
                listing.append({"lab": lab_id, "path": project.relative(path), "valid": False, "error": str(exc),
                                "provenance": None})
                status = EXIT_ERROR
                continue
            console.print(f"{lab_id}: {project.relative(path)} — {prov.gpu}, {prov.utc_time.isoformat()}, "
                          f"commit {prov.git_commit[:12]}", markup=False, highlight=False, soft_wrap=True)
            listing.append({"lab": lab_id, "path": project.relative(path), "valid": True, "error": None,
                            "provenance": prov.model_dump(mode="json")})
    if as_json:
        print(json.dumps(listing, ensure_ascii=False, indent=1))
    return status
