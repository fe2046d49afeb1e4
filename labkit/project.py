"""The course project labkit works on: found from where labkit runs, never from labkit's own path.

A course project is a folder holding ``mkdocs.yml`` beside a ``labs/`` folder. The command line
looks for it from the working directory upwards; the site plugin from the MkDocs configuration
file upwards (the Chinese configuration lives in ``docs/``). ``LABKIT_PROJECT`` names it
explicitly (a checkout copied elsewhere, a test's throwaway copy).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from labkit.errors import LabkitError

PROJECT_ENV = "LABKIT_PROJECT"
CONFIG_NAME = "mkdocs.yml"


class ProjectError(LabkitError):
    """No course project where labkit was asked to work."""


@dataclass(frozen=True)
class Project:
    root: Path

    @property
    def docs_dir(self) -> Path:
        return self.root / "docs"

    @property
    def labs_dir(self) -> Path:
        return self.root / "labs"

    @property
    def node_modules(self) -> Path:
        return self.root / "node_modules"

    def lab_dir(self, folder: str) -> Path:
        """``labs/<folder>``: a lab's notebook and its recorded results."""
        return self.labs_dir / folder

    def relative(self, path: Path) -> str:
        """``path`` as the project names it (``labs/01-roofline/results/nvidia-h200.json``); a link
        is named as itself, not as what it points at. Outside the project: the path as given."""
        path = Path(path)
        try:
            named = path.parent.resolve() / path.name
            root = self.root.resolve()
        except (RuntimeError, OSError):   # a symlink loop above it (RuntimeError before Python 3.13)
            named, root = Path(os.path.abspath(path)), Path(os.path.abspath(self.root))
        try:
            return named.relative_to(root).as_posix()
        except ValueError:
            return str(path)


def is_project(folder: Path) -> bool:
    return (folder / CONFIG_NAME).is_file() and (folder / "labs").is_dir()


def find_project(start: Path | None = None) -> Project:
    """The project named by LABKIT_PROJECT, else the first of ``start`` (default: the working
    directory) and its parents that holds mkdocs.yml beside labs/."""
    named = os.environ.get(PROJECT_ENV)
    if named:
        if not is_project(Path(named)):
            raise ProjectError(f"{PROJECT_ENV}={named} holds no {CONFIG_NAME} beside a labs/ folder: "
                               "point it at the course's folder")
        return Project(Path(named).resolve())
    here = Path(start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if is_project(folder):
            return Project(folder)
    raise ProjectError(f"{here} is not inside the course (no {CONFIG_NAME} beside a labs/ folder here or above): "
                       f"run labkit from the course's folder, or set {PROJECT_ENV}")
