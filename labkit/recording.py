"""Recording a lab's results, all or nothing (listing what is recorded is the read side's:
:func:`labkit.results.recorded_paths`).

A record is a results file and the folder of raw profiler outputs beside it
(``results/nvidia-h200.json`` and ``results/nvidia-h200/``). A run's record is written whole
into a staging folder next to its place, read back through the same validation as any reader's
(:func:`labkit.results.read_results`), then swapped in:

1. a manifest naming what the previous record has, ended by a closing line, is written and synced
   in a fresh ``.preparing-<name>-*/`` folder, which is then renamed ``.previous-<name>/``: that
   folder never exists without its whole manifest;
2. the previous file and folder move into ``.previous-<name>/``;
3. the staged ones move into place;
4. ``.previous-<name>/`` is renamed ``.discard-<name>/`` (the swap is done) and removed.

Each step is a rename within one folder. Ctrl-C and SIGTERM are held back during the swap and
delivered after it (unless the process ignores them); any failure before or during the swap puts
the previous record back, byte for byte, and a failure to write (a full disk) is one line. If the
process is killed outright (SIGKILL, a power cut) at any point, :func:`recover` (run before every
recording and by ``labkit results``) leaves the old record byte for byte or the new one whole:
``.previous-<name>/`` is put back, leftovers of the other folders are removed. Recovery deletes a
part of the record in place only on the word of a whole manifest; a ``.previous-<name>/`` without
one (a recording by an older labkit) is refused in one line, for a person to look at.

Canonical records live in ``results/`` (what the site renders); a run with non-default
parameters is an experiment and records into ``experiments/`` instead, never over the course's
record.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from labkit.results import (
    INTERRUPTED_SWAP_PREFIX,
    RESULTS_FOLDER,
    ResultsError,
    ResultsFile,
    raw_folder,
    read_results,
    sha256_of,
    to_json,
)

EXPERIMENTS_FOLDER = "experiments"
_PREVIOUS = INTERRUPTED_SWAP_PREFIX
_PREPARING = ".preparing-"
_DISCARD = ".discard-"
_STAGING = ".staging-"
_MANIFEST = "previous.txt"
#: The manifest's last line: a manifest without it was cut short and says nothing.
_MANIFEST_END = "-- end of manifest --"


class RecordingError(ResultsError):
    """Writing a record failed (a full disk, a read-only folder); the previous record is unchanged."""


class RecordedThenInterrupted(KeyboardInterrupt):
    """Ctrl-C arrived while a record was being swapped in; the swap finished first."""

    def __init__(self, path: Path):
        super().__init__(str(path))
        self.path = path


@dataclass(frozen=True)
class Place:
    """Where one record goes: ``<folder>/<name>.json`` and ``<folder>/<name>/``."""

    folder: Path
    name: str

    @property
    def json_path(self) -> Path:
        return self.folder / f"{self.name}.json"

    @property
    def raw_dir(self) -> Path:
        return raw_folder(self.json_path)

    @property
    def canonical(self) -> bool:
        return self.folder.name == RESULTS_FOLDER


def canonical_place(lab_dir: Path, slug: str) -> Place:
    return Place(lab_dir / RESULTS_FOLDER, slug)


def experiment_place(lab_dir: Path, slug: str, tag: str) -> Place:
    """``experiments/<gpu>-<tag>``: e.g. ``experiments/nvidia-h200-threads-512.json``."""
    return Place(lab_dir / EXPERIMENTS_FOLDER, f"{slug}-{tag}")


@contextmanager
def held_interrupts() -> Iterator[None]:
    """SIGINT and SIGTERM are noted, not acted on, inside the block; the first is delivered after it.

    A signal the process ignores (``SIG_IGN``: started in the background by a shell without job
    control, or under ``nohup``) stays ignored: it was never going to interrupt anything.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda number, frame: received.append(number))
                for sig in (signal.SIGINT, signal.SIGTERM) if signal.getsignal(sig) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if received:
            signal.raise_signal(received[0])


def recover(folder: Path) -> list[str]:
    """Finish what a killed recording left in ``folder``: put back a half-swapped previous record,
    remove a finished swap's leftovers, stale staging folders and unfinished backups (which moved
    nothing). Returns the records it put back."""
    restored = []
    if not folder.is_dir():
        return restored
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(_PREVIOUS):
            place = Place(folder, entry.name.removeprefix(_PREVIOUS))
            _put_back(place, entry)
            restored.append(place.json_path.name)
        elif entry.name.startswith((_DISCARD, _STAGING, _PREPARING)):
            shutil.rmtree(entry, ignore_errors=True)
    return restored


def _manifest(backup: Path) -> set[str] | None:
    """The names the previous record had, from the backup's manifest; None when there is no whole
    manifest (missing, or cut short before its closing line)."""
    try:
        lines = (backup / _MANIFEST).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not lines or lines[-1] != _MANIFEST_END:
        return None
    return set(lines[:-1])


def _put_back(place: Place, backup: Path) -> None:
    """Undo a swap, finished or not: ``backup`` holds what the previous record moved aside, and
    its manifest names what the previous record had. Whatever is in place that is not a never-moved
    part of the previous record goes; what was moved aside comes back.

    Without a whole manifest nothing in place is deleted: this labkit writes the manifest before
    the folder gets its name, so such a folder comes from elsewhere (an older labkit killed before
    its manifest was written moved nothing: the folder is empty and goes)."""
    had = _manifest(backup)
    if had is None:
        kept = sorted(p.name for p in backup.iterdir() if p.name != _MANIFEST)
        if kept:
            raise ResultsError(f"{backup}: an interrupted recording's backup without its manifest, holding "
                               f"{', '.join(kept)}: compare them with the record in place, keep the one you want, "
                               "then delete the folder")
        shutil.rmtree(backup)
        return
    for current in (place.json_path, place.raw_dir):
        kept = backup / current.name
        if kept.exists() or current.name not in had:
            if current.is_dir():
                shutil.rmtree(current)
            elif current.exists():
                current.unlink()
        if kept.exists():
            os.replace(kept, current)
    shutil.rmtree(backup)


def _fsync_file(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())


def _fsync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable (a crash after it cannot undo them)."""
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass   # some file systems cannot sync a folder; the renames stay atomic
    finally:
        os.close(descriptor)


def _write_failed(place: Place, exc: OSError) -> RecordingError:
    """A failure to write, in one line: what failed and what to do."""
    what = exc.strerror or str(exc) or type(exc).__name__
    if exc.filename:
        what += f": {exc.filename}"
    writable = f"make {place.folder} writable, then record again"
    fixes = {errno.ENOSPC: "free some disk space, then record again", errno.EACCES: writable, errno.EPERM: writable,
             errno.EROFS: "the disk is read-only: record on a writable copy of the course"}
    if hasattr(errno, "EDQUOT"):
        fixes[errno.EDQUOT] = "free some of your disk quota, then record again"
    fix = fixes.get(exc.errno, "check the disk and the folder, then record again")
    return RecordingError(f"{place.json_path}: writing the record failed ({what}): {fix}")


def record(place: Place, document: ResultsFile, raw_files: list[Path], lab_id: str) -> Path:
    """Write ``document`` and ``raw_files`` as the record at ``place``, all or nothing.

    The digests of the raw files go into the document's ``raw_files``; the staged record is read
    back with :func:`read_results` before anything is swapped. Returns the results file's path.
    """
    try:
        place.folder.mkdir(parents=True, exist_ok=True)
        recover(place.folder)
        staging = Path(tempfile.mkdtemp(prefix=f"{_STAGING}{place.name}-", dir=place.folder))
    except OSError as exc:
        raise _write_failed(place, exc) from None
    try:
        staged = Place(staging, place.name)
        if raw_files:
            staged.raw_dir.mkdir()
            for source in raw_files:
                shutil.copyfile(source, staged.raw_dir / source.name)
        digests = {p.name: sha256_of(p) for p in sorted(staged.raw_dir.iterdir())} if raw_files else {}
        document = document.model_copy(update={"raw_files": digests})
        _fsync_file(staged.json_path, to_json(document))
        read_results(staged.json_path, type(document.results), lab_id, source=str(place.json_path),
                     canonical=place.canonical)
        os.chmod(staged.json_path, 0o644)
        swapped = False
        try:
            with held_interrupts():
                _swap(place, staged)
                swapped = True
        except KeyboardInterrupt:
            if swapped:
                raise RecordedThenInterrupted(place.json_path) from None
            raise
    except OSError as exc:
        raise _write_failed(place, exc) from None
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return place.json_path


def _prepare_backup(place: Place) -> Path:
    """``.previous-<name>/``, holding the whole manifest of the previous record and nothing else:
    written under a temporary name, synced, then renamed (a kill before the rename leaves a
    ``.preparing-`` folder that moved nothing, which recovery removes)."""
    preparing = Path(tempfile.mkdtemp(prefix=f"{_PREPARING}{place.name}-", dir=place.folder))
    try:
        names = [p.name for p in (place.json_path, place.raw_dir) if p.exists()]
        _fsync_file(preparing / _MANIFEST, "".join(f"{name}\n" for name in [*names, _MANIFEST_END]))
        backup = place.folder / f"{_PREVIOUS}{place.name}"
        os.replace(preparing, backup)
    except BaseException:
        shutil.rmtree(preparing, ignore_errors=True)
        raise
    _fsync_folder(place.folder)
    return backup


def _swap(place: Place, staged: Place) -> None:
    backup = _prepare_backup(place)
    try:
        for current in (place.json_path, place.raw_dir):
            if current.exists():
                os.replace(current, backup / current.name)
        os.replace(staged.json_path, place.json_path)
        if staged.raw_dir.exists():
            os.replace(staged.raw_dir, place.raw_dir)
    except BaseException:
        _put_back(place, backup)
        raise
    _fsync_folder(place.folder)
    done = place.folder / f"{_DISCARD}{place.name}"
    os.replace(backup, done)
    _fsync_folder(place.folder)
    shutil.rmtree(done, ignore_errors=True)
