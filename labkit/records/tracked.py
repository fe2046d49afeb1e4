"""The course's own records: the canonical results files git tracks, which a checkout must hold.

A lab's record for a GPU (``labs/NN-*/results/<gpu>.json``) is what the site renders and what the
chapters' figures come from. Recording never leaves a lab without it (labkit.records.writing swaps a new
one in whole), so a tracked record that is missing from the working tree was lost by accident (a
deleted file, a ``results/`` folder replaced): ``labkit results`` then fails, naming it and the
``git restore`` that brings it back, rather than report "no results recorded". Removing a record
on purpose is ``git rm``, after which git no longer tracks it and nothing is missing. Outside a git
checkout (an archive of the course), what the course holds is not known, and nothing is checked;
in a checkout whose git fails (a broken index), that is one line, not a check silently skipped.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from labkit.errors import LabkitError
from labkit.records.files import INTERRUPTED_SWAP_PREFIX


class MissingRecordError(LabkitError):
    """A record git tracks is not in the working tree."""


def tracked_records(root: Path, lab_folder: str) -> list[str] | None:
    """The canonical results files of ``labs/<lab_folder>/results/`` in git's index, as project paths;
    None outside a git checkout (or without git)."""
    pattern = f"labs/{lab_folder}/results/*.json"
    try:
        done = subprocess.run(["git", "-C", str(root), "ls-files", "-z", "--", pattern], capture_output=True,
                              timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        if (root / ".git").exists():   # a checkout whose git fails (a broken index): say so, do not skip the check
            why = (done.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[0]
            raise LabkitError(f"git fails in {root} ({why}): the check that the course's records are all there "
                              "cannot run: repair the checkout (`git status` says what is wrong)")
        return None
    names = [name for name in done.stdout.decode("utf-8", "replace").split("\0") if name]
    # git prints paths relative to the folder it runs in; from the project root they are project paths
    return sorted(name for name in names if name.count("/") == 3)


def missing_records(root: Path, lab_folder: str) -> list[str]:
    """The tracked records of a lab that its working tree lacks (a file deleted, or ``results/``
    replaced by something that is not a folder)."""
    tracked = tracked_records(root, lab_folder) or []
    return [name for name in tracked if not (root / name).is_file()]


def missing_message(lab_id: str, name: str, root: Path | None = None) -> str:
    """The one line for a missing record. When an interrupted recording's ``.previous-<gpu>/``
    folder is beside it (under ``root``), the record is held aside there, not lost: the line says
    to run ``labkit results``, which puts it back (a ``git restore`` first would put a second copy
    in its way)."""
    folder = str(Path(name).parent)
    aside = Path(folder) / f"{INTERRUPTED_SWAP_PREFIX}{Path(name).stem}"
    if root is not None and (root / aside).is_dir():
        return (f"{aside}: a recording was interrupted during its swap: run `labkit results` to put the previous "
                "record back")
    return (f"{name}: the course's record of {lab_id}, tracked in git, is missing: restore it with "
            f"`git restore {folder}` (or remove it on purpose with `git rm {name}`)")
