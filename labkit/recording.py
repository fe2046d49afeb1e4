"""Recording a lab's results, all or nothing (listing what is recorded is the read side's:
:func:`labkit.results.recorded_paths`).

A record is a results file and the folder of raw profiler outputs beside it
(``results/nvidia-h200.json`` and ``results/nvidia-h200/``). A run's record is written whole
into a staging folder next to its place, read back through the same validation as any reader's
(:func:`labkit.results.read_results`), then swapped in:

1. the previous file and folder move into ``.previous-<name>/``, beside a manifest naming them;
2. the staged ones move into place;
3. ``.previous-<name>/`` is renamed ``.discard-<name>/`` (the swap is done) and removed.

Each step is a rename within one folder. Ctrl-C and SIGTERM are held back during the swap and
delivered after it; any failure before or during the swap puts the previous record back, byte for
byte. If the process is killed outright during the swap, ``.previous-<name>/`` remains, and
:func:`recover` (run before every recording and by ``labkit results``) moves it back.

Canonical records live in ``results/`` (what the site renders); a run with non-default
parameters is an experiment and records into ``experiments/`` instead, never over the course's
record.
"""

from __future__ import annotations

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
_DISCARD = ".discard-"
_STAGING = ".staging-"


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
    """SIGINT and SIGTERM are noted, not acted on, inside the block; the first is delivered after it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []
    previous = {sig: signal.signal(sig, lambda number, frame: received.append(number))
                for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if received:
            signal.raise_signal(received[0])


def recover(folder: Path) -> list[str]:
    """Finish what a killed recording left in ``folder``: put back a half-swapped previous record,
    remove a finished swap's leftovers and stale staging folders. Returns what it restored."""
    restored = []
    if not folder.is_dir():
        return restored
    for entry in sorted(folder.iterdir()):
        if entry.name.startswith(_PREVIOUS):
            place = Place(folder, entry.name.removeprefix(_PREVIOUS))
            _put_back(place, entry)
            restored.append(place.json_path.name)
        elif entry.name.startswith((_DISCARD, _STAGING)):
            shutil.rmtree(entry, ignore_errors=True)
    return restored


_MANIFEST = "previous.txt"


def _put_back(place: Place, backup: Path) -> None:
    """Undo a swap, finished or not: ``backup`` holds what the previous record moved aside, and
    its manifest names what the previous record had. Whatever is in place that is not a never-moved
    part of the previous record goes; what was moved aside comes back."""
    had = set((backup / _MANIFEST).read_text().split()) if (backup / _MANIFEST).exists() else set()
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


def record(place: Place, document: ResultsFile, raw_files: list[Path], lab_id: str) -> Path:
    """Write ``document`` and ``raw_files`` as the record at ``place``, all or nothing.

    The digests of the raw files go into the document's ``raw_files``; the staged record is read
    back with :func:`read_results` before anything is swapped. Returns the results file's path.
    """
    place.folder.mkdir(parents=True, exist_ok=True)
    recover(place.folder)
    staging = Path(tempfile.mkdtemp(prefix=f"{_STAGING}{place.name}-", dir=place.folder))
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
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return place.json_path


def _swap(place: Place, staged: Place) -> None:
    backup = place.folder / f"{_PREVIOUS}{place.name}"
    backup.mkdir()
    _fsync_file(backup / _MANIFEST, "\n".join(p.name for p in (place.json_path, place.raw_dir) if p.exists()))
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
    done = place.folder / f"{_DISCARD}{place.name}"
    os.replace(backup, done)
    shutil.rmtree(done, ignore_errors=True)
