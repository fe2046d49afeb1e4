"""Build the whole site, every language, strictly: ``python -m labkit.site.build [SITE_DIR]``.

French (the default) goes to SITE_DIR, each other language to SITE_DIR/<root>; the first
build cleans SITE_DIR, so the default language is built first. Every language is built even when
one fails, so that one run names every problem of every page; a failed build prints MkDocs'
errors and warnings, one line each (its whole log only when it holds none, e.g. a crash), and the
command fails if any language did.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from labkit.project import find_project
from labkit.report.labels import LANGUAGES

#: The directory holding the labkit package that runs this build.
LABKIT_SOURCES = Path(__file__).resolve().parents[2]
#: The MkDocs configuration of each language, relative to the repository root.
CONFIGS = {"fr": "mkdocs.yml", "zh": "docs/mkdocs.zh.yml"}


@dataclass(frozen=True)
class BuildResult:
    lang: str
    returncode: int
    log: str


def build_language(lang: str, site_dir: Path, repo_root: Path, notebooks: bool = True) -> BuildResult:
    """mkdocs build --strict of one language into its place under site_dir; without ``notebooks``,
    the lab notebooks are not run into pages (mkdocs.yml's LABKIT_NOTEBOOKS)."""
    out_dir = Path(site_dir, LANGUAGES[lang]["root"]).resolve()
    # MkDocs imports the plugin from this labkit, not from whichever one the environment installed
    # (a copy of the sources, a git worktree beside an editable install).
    python_path = os.pathsep.join(filter(None, (str(LABKIT_SOURCES), os.environ.get("PYTHONPATH"))))
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "PYTHONPATH": python_path,
           "LABKIT_NOTEBOOKS": "true" if notebooks else "false"}
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", CONFIGS[lang], "-d", str(out_dir)],
        cwd=repo_root, env=env, capture_output=True, text=True,
    )
    return BuildResult(lang, proc.returncode, proc.stdout + proc.stderr)


def build_site(site_dir: Path, repo_root: Path) -> list[BuildResult]:
    """Every language, default first, each whatever became of the others."""
    return [build_language(lang, site_dir, repo_root) for lang in LANGUAGES]


def problems(log: str) -> list[str]:
    """MkDocs' error and warning lines, without its own summaries ("Error reading page", "Aborted")."""
    return [line for line in log.splitlines()
            if re.match(r"^(ERROR|WARNING)\s+-", line) and not re.search(r"Error reading page|Aborted with", line)]


def main(argv: list[str]) -> int:
    root = find_project().root
    site_dir = Path(argv[0]) if argv else root / "site"
    failed = []
    for result in build_site(site_dir, root):
        if result.returncode != 0:
            lines = problems(result.log)
            sys.stderr.write("\n".join(lines) + "\n" if lines else result.log)
            sys.stderr.write(f"The {result.lang} site did not build ({CONFIGS[result.lang]}): see the messages above.\n\n")
            failed.append(result.lang)
        else:
            print(f"built {result.lang} ({CONFIGS[result.lang]}) -> {site_dir / LANGUAGES[result.lang]['root']}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
