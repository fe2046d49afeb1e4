"""The course's tracked files, watched across a check: what the learner's code changed is named,
fails the check, and is put back.

The check's child runs in a temporary folder, so a relative path cannot reach the course; an
absolute one can (``Path(labkit.__file__).parents[1]`` is the course). Rule: every file git tracks
is looked at (``lstat``: size, inode, modification and change times; the change time cannot be set
back) before and after the run; one that differs, or is gone, was changed during the run. It is put
back: from git's index when it matched the index before the run, else from the bytes read before
the run (a tracked file the learner had edited, e.g. the exercise's own file). The versions the run
left are copied first to a temporary folder outside the course, named in the line: the watch cannot
tell the learner's code from a person editing the course during the check, whose edit must not be
lost. Without git (an archive of the course) nothing is watched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

#: A tracked file edited before the run is kept in memory up to this size (the course's are small).
SAVED_BYTES_MAX = 16 << 20
#: Files named in the one line, before "and N more".
NAMED_MAX = 4
GIT_SECONDS = 30


@dataclass(frozen=True)
class CourseFiles:
    """The tracked files of the course at ``root`` before a run: their lstat, and the bytes of
    those that differed from git's index then."""

    root: Path
    stats: dict[str, tuple | None]
    saved: dict[str, bytes]


def _git(root: Path, *args: str) -> list[str] | None:
    try:
        done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, timeout=GIT_SECONDS)
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return [name for name in done.stdout.decode("utf-8", "surrogateescape").split("\0") if name]


def _stat(path: Path) -> tuple | None:
    try:
        found = os.lstat(path)
    except OSError:
        return None
    return (found.st_mode, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def watch(root: Path) -> CourseFiles | None:
    """The course's tracked files now; None when ``root`` is not a git checkout (or git fails)."""
    if not (root / ".git").exists():
        return None
    tracked = _git(root, "ls-files", "-z")
    edited = _git(root, "diff", "--name-only", "-z")
    if tracked is None or edited is None:
        return None
    saved = {}
    for name in edited:
        path = root / name
        if path.is_file() and not path.is_symlink() and path.stat().st_size <= SAVED_BYTES_MAX:
            saved[name] = path.read_bytes()
    return CourseFiles(root, {name: _stat(root / name) for name in tracked}, saved)


def changed(before: CourseFiles) -> list[str]:
    """The tracked files changed, replaced or removed since ``before``, in git's order."""
    return [name for name, stat in before.stats.items() if _stat(before.root / name) != stat]


def kept_aside(before: CourseFiles, names: list[str]) -> Path | None:
    """A copy of the changed files as the run left them, in a temporary folder outside the course
    (so that an edit someone made during the check is not lost with the learner's); None if none is
    a file any more."""
    folder = None
    for name in names:
        path = before.root / name
        if not path.is_file() or path.is_symlink():
            continue
        folder = folder or Path(tempfile.mkdtemp(prefix="labkit-check-changed-"))
        try:
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, folder / name)
        except OSError:
            pass
    return folder


def put_back(before: CourseFiles, names: list[str]) -> list[str]:
    """Put ``names`` back as they were before the run; those that could not be."""
    from_git = []
    failed = []
    for name in names:
        path = before.root / name
        try:
            if path.is_dir() and not path.is_symlink():
                shutil.rmtree(path)
            elif path.is_symlink() or (path.exists() and name not in before.saved):
                path.unlink()
            if before.stats[name] is None:      # missing before the run: it stays missing
                if path.exists():
                    path.unlink()
            elif name in before.saved:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(before.saved[name])
            else:
                from_git.append(name)
        except OSError:
            failed.append(name)
    if from_git and _git(before.root, "checkout", "--", *from_git) is None:
        failed += [name for name in from_git if not (before.root / name).exists()]
    return failed


def changed_message(shown_as: str, names: list[str], failed: list[str], aside: Path | None) -> str:
    """One line: which course files the run changed, that the check fails, what was put back, and
    where the changed versions are."""
    shown = ", ".join(names[:NAMED_MAX]) + (f" and {len(names) - NAMED_MAX} more" if len(names) > NAMED_MAX else "")
    back = ("they were put back" if not failed else
            f"put back all but {', '.join(failed[:NAMED_MAX])}: restore {'it' if len(failed) == 1 else 'them'} with "
            f"`git checkout -- {' '.join(failed[:NAMED_MAX])}`")
    if aside is not None:
        back += f" (the changed versions are in {aside})"
    return (f"{shown_as}: your code changed the course's files while the check ran ({shown}): a check passes only a "
            f"file that leaves the course alone (write only to the arrays you are given); {back}")
