"""Recording a lab's results, all or nothing (listing what is recorded is the read side's:
:func:`labkit.records.files.recorded_paths`).

A record is a results file and the folder of raw profiler outputs beside it
(``results/nvidia-h200.json`` and ``results/nvidia-h200/``). A run's record is written whole
into a staging folder next to its place, read back through the same validation as any reader's
(:func:`labkit.records.files.read_results`), then swapped in:

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
part of the record in place only when it can prove it is the interrupted swap's own: the manifest
also holds the digests of the record being swapped in, and only what matches them goes (a record
that arrived in between, by ``git pull`` or ``git restore``, stays; one in the way of the moved-aside
previous record is refused in one line). A ``.previous-<name>/`` without a whole manifest of this
kind that holds anything is refused in one line, for a person to look at; an empty one is removed.

One recording at a time per lab: :func:`record` holds an exclusive lock on the lab's folder
(``flock``, released by the system if the process dies) and writes who holds it in ``.recording``
there; a second recording is refused in one line naming that process, and :func:`recover` leaves a
folder alone while a recording holds it (its staging folders are not leftovers).

Canonical records live in ``results/`` (what the site renders); a run with non-default
parameters is an experiment and records into ``experiments/`` instead, never over the course's
record.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import shutil
import signal
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from labkit.records.files import (INTERRUPTED_SWAP_PREFIX, RESULTS_FOLDER, ResultsError, ResultsFile, raw_folder,
    read_results, sha256_of, to_json)

EXPERIMENTS_FOLDER = "experiments"
_PREVIOUS = INTERRUPTED_SWAP_PREFIX
_PREPARING = ".preparing-"
_DISCARD = ".discard-"
_STAGING = ".staging-"
_MANIFEST = "previous.txt"
#: The manifest's last line: a manifest without it was cut short and says nothing.
_MANIFEST_END = "-- end of manifest --"
#: The manifest's line before the digests of the record being swapped in (``json <sha256>``, ``raw <sha256>``).
_MANIFEST_INCOMING = "-- incoming --"
#: In the lab's folder while a recording holds its lock: the process, when, and the command.
_HOLDER = ".recording"


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


class RecordingBusy(RecordingError):
    """Another recording of the same lab holds its lock."""


@contextmanager
def recording_lock(lab_dir: Path) -> Iterator[None]:
    """The lab's recording lock, held for the block; RecordingBusy at once if another process holds it."""
    lab_dir.mkdir(parents=True, exist_ok=True)
    descriptor = os.open(lab_dir, os.O_RDONLY)
    holder = lab_dir / _HOLDER
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise RecordingBusy(f"{lab_dir}: another recording of this lab is running ({_holder_text(holder)}): "
                                "wait for it to end, then record again") from None
        import sys
        from datetime import datetime, timezone

        try:
            holder.write_text(f"process {os.getpid()}, since {datetime.now(timezone.utc):%Y-%m-%d %H:%M:%S} UTC, "
                              f"{' '.join(sys.argv)[:200]}\n", encoding="utf-8")
        except OSError:
            pass
        try:
            yield
        finally:
            try:
                holder.unlink()
            except OSError:
                pass
    finally:
        os.close(descriptor)


def _holder_text(holder: Path) -> str:
    try:
        return holder.read_text(encoding="utf-8").strip() or "process unknown"
    except (OSError, UnicodeDecodeError):
        return "process unknown"


def recover(folder: Path) -> list[str]:
    """Finish what a killed recording left in ``folder``: put back a half-swapped previous record,
    remove a finished swap's leftovers, stale staging folders and unfinished backups (which moved
    nothing). Returns the records it changed. A folder a recording holds now is left alone.
    Failures (a folder one cannot write) are one line each (ResultsError)."""
    if not folder.is_dir():
        return []
    try:
        with recording_lock(folder.parent):
            return _recover(folder)
    except RecordingBusy:
        return []
    except OSError as exc:
        raise ResultsError(f"{folder}: putting back an interrupted recording failed ({exc.strerror or exc}): make the "
                           "folder writable, then run `labkit results` again") from None


def _recover(folder: Path) -> list[str]:
    restored = []
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(_PREVIOUS):
            if not entry.is_dir() or entry.is_symlink():
                raise ResultsError(f"{entry}: a file where an interrupted recording's backup folder goes: look at it, "
                                   "then remove it")
            place = Place(folder, entry.name.removeprefix(_PREVIOUS))
            if _put_back(place, entry):
                restored.append(place.json_path.name)
        elif entry.name.startswith((_DISCARD, _STAGING, _PREPARING)):
            shutil.rmtree(entry, ignore_errors=True)
    return restored


@dataclass(frozen=True)
class _Manifest:
    """What a backup's manifest says: the names the previous record had, and the digests of the
    record being swapped in (:func:`_digest` of its results file and of its raw folder)."""

    had: frozenset[str]
    incoming: dict[str, str]


def _manifest(backup: Path) -> _Manifest | None:
    """The backup's manifest; None when there is no whole manifest of this labkit's (missing, cut
    short before its closing line, or without the incoming record's digests)."""
    try:
        lines = (backup / _MANIFEST).read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return None
    if not lines or lines[-1] != _MANIFEST_END or _MANIFEST_INCOMING not in lines:
        return None
    split = lines.index(_MANIFEST_INCOMING)
    incoming = dict(line.split(" ", 1) for line in lines[split + 1:-1] if " " in line)
    if sorted(incoming) != ["json", "raw"]:
        return None
    return _Manifest(frozenset(lines[:split]), incoming)


def _digest(path: Path) -> str:
    """SHA-256 of a file; of a folder, of its files' names and digests; "none" when it does not exist."""
    if path.is_dir():
        lines = "".join(f"{p.name}\t{sha256_of(p)}\n" for p in sorted(path.iterdir()) if p.is_file())
        return hashlib.sha256(lines.encode("utf-8")).hexdigest()
    return sha256_of(path) if path.is_file() else "none"


def _put_back(place: Place, backup: Path) -> bool:
    """Undo a swap, finished or not: ``backup`` holds what the previous record moved aside, and
    its manifest names what the previous record had and what was being swapped in. What is in
    place goes only if it is the incoming record's (its digest matches); what was moved aside
    comes back. Whether anything in place changed.

    Without such a manifest nothing in place is touched: this labkit writes the manifest before
    the folder gets its name, so such a folder comes from elsewhere; empty, it moved nothing and goes."""
    manifest = _manifest(backup)
    if manifest is None:
        kept = sorted(p.name for p in backup.iterdir() if p.name != _MANIFEST)
        if kept:
            raise ResultsError(f"{backup}: an interrupted recording's backup without its manifest, holding "
                               f"{', '.join(kept)}: compare them with the record in place, keep the one you want, "
                               "then delete the folder")
        shutil.rmtree(backup)
        return False
    actions = []
    for current, key in ((place.json_path, "json"), (place.raw_dir, "raw")):
        kept = backup / current.name
        ours = current.exists() and _digest(current) == manifest.incoming[key]
        if kept.exists() and current.exists() and not ours:
            raise ResultsError(f"{backup}: holds the previous {current.name} of an interrupted recording, but another "
                               f"{current.name} is in place (it arrived after): keep the one you want, then delete the "
                               "folder")
        actions.append((current, kept, ours))
    changed = False
    for current, kept, ours in actions:
        if ours and (kept.exists() or current.name not in manifest.had):
            if current.is_dir():
                shutil.rmtree(current)
            else:
                current.unlink()
            changed = True
        if kept.exists():
            os.replace(kept, current)
            changed = True
    shutil.rmtree(backup)
    return changed


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
        lock = recording_lock(place.folder.parent)
        lock.__enter__()
    except OSError as exc:
        raise _write_failed(place, exc) from None
    try:
        return _record(place, document, raw_files, lab_id)
    finally:
        lock.__exit__(None, None, None)


def _record(place: Place, document: ResultsFile, raw_files: list[Path], lab_id: str) -> Path:
    try:
        _recover(place.folder)
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


def _prepare_backup(place: Place, staged: Place) -> Path:
    """``.previous-<name>/``, holding the whole manifest (the previous record's names, the staged
    record's digests) and nothing else:
    written under a temporary name, synced, then renamed (a kill before the rename leaves a
    ``.preparing-`` folder that moved nothing, which recovery removes)."""
    preparing = Path(tempfile.mkdtemp(prefix=f"{_PREPARING}{place.name}-", dir=place.folder))
    try:
        names = [p.name for p in (place.json_path, place.raw_dir) if p.exists()]
        incoming = [f"json {_digest(staged.json_path)}", f"raw {_digest(staged.raw_dir)}"]
        _fsync_file(preparing / _MANIFEST, "".join(f"{line}\n" for line in [*names, _MANIFEST_INCOMING, *incoming,
                                                                             _MANIFEST_END]))
        backup = place.folder / f"{_PREVIOUS}{place.name}"
        os.replace(preparing, backup)
    except BaseException:
        shutil.rmtree(preparing, ignore_errors=True)
        raise
    _fsync_folder(place.folder)
    return backup


def _swap(place: Place, staged: Place) -> None:
    backup = _prepare_backup(place, staged)
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
