"""Every `labkit/...` path the chapters, the README, the Makefile and labkit's own messages cite
exists (issue 34's guard: a module moved without its citations fails here). A site asset's URL
(``assets/labkit/...``) is not a path of the tree, and a template's placeholder (``labNN``,
``chNN``, an f-string's ``lab{...}``) names no file."""

import re

from tests.conftest import REPO_ROOT

CITATION = re.compile(r"(?<![\w/.-])labkit/[A-Za-z0-9_/.-]*[A-Za-z0-9_/]")
PLACEHOLDER = re.compile(r"NN|\{")
SOURCES = ("docs/**/*.md", "README.md", "ARCHITECTURE.md", "Makefile", "labkit/**/*.py", "labs/**/*.py", "tests/fixtures/**/README.md")


def cited_paths() -> dict[str, set[str]]:
    """Each cited path (its trailing punctuation dropped) and the files that cite it."""
    found: dict[str, set[str]] = {}
    for pattern in SOURCES:
        for file in REPO_ROOT.glob(pattern):
            text = file.read_text(encoding="utf-8")
            for match in CITATION.finditer(text):
                path = match.group(0).rstrip("/.")
                following = text[match.end():match.end() + 1]
                if PLACEHOLDER.search(path) or following == "{":
                    continue
                found.setdefault(path, set()).add(str(file.relative_to(REPO_ROOT)))
    return found


def test_the_guard_finds_the_citations_it_checks():
    paths = cited_paths()
    assert len(paths) >= 40
    assert "labkit/profiling/checklist.py" in paths and "labkit/gpu/timing.py" in paths


def test_every_cited_labkit_path_exists():
    missing = {path: sorted(files) for path, files in cited_paths().items() if not (REPO_ROOT / path).exists()}
    assert not missing, missing
