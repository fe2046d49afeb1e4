"""Shared fixtures: the site is built once per test session, whatever the number of xdist workers."""

from __future__ import annotations

import fcntl
import gc
import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from labkit.report.labels import LANGUAGES
from labkit.site.build import build_language

REPO_ROOT = Path(__file__).resolve().parents[1]
DOCS = REPO_ROOT / "docs"


def recorded_launches(folder: Path) -> list:
    """The Nsight Compute launches of a recorded folder (its raw and details pages, merged)."""
    from labkit.profiling import ncu

    return ncu.merge_profiles(ncu.parse_raw_csv((folder / "ncu_raw.csv").read_text()),
                              ncu.parse_details_csv((folder / "ncu_details.csv").read_text()))


def pytest_configure(config):
    """The cycle collector runs every 50 000 allocations instead of 700: the simulator's tests make
    millions of short-lived objects (a greenlet per CUDA thread, a wrapper per array access)
    in a process that holds thousands of collected tests, and the collector walked them about a
    fourteenth of the time. Memory is still freed by reference counting as objects die."""
    gc.set_threshold(50_000, 20, 100)


def run_folder(tmp_path_factory) -> Path:
    """The folder of this test run that every xdist worker shares (what one worker computes for all)."""
    basetemp = tmp_path_factory.getbasetemp()
    # xdist workers each get basetemp/popen-gwN under one run's folder: share that folder; a run
    # without xdist has its own basetemp (its parent holds every earlier run: not shared).
    return basetemp.parent if os.environ.get("PYTEST_XDIST_WORKER") else basetemp


@pytest.fixture(scope="session")
def built_site(tmp_path_factory) -> Path:
    """The site of both languages, built strictly into a directory all workers share.

    A failed build fails every test that needs it, with the build log in the message.
    """
    shared = run_folder(tmp_path_factory)
    site = shared / "site"
    report = shared / "site-build.json"
    with open(shared / "site.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not report.exists():
            results = _build_languages_side_by_side(site, shared / "site-parts")
            report.write_text(json.dumps([r.__dict__ for r in results]))
    for result in json.loads(report.read_text()):
        if result["returncode"] != 0:
            pytest.fail(f"the {result['lang']} site did not build:\n{result['log']}", pytrace=False)
    return site


def _build_languages_side_by_side(site: Path, parts: Path) -> list:
    """Each language built strictly at the same time, as `make build` builds it one after the other
    (labkit.site.build.build_language), then put in place: the default language's build owns (and
    cleans) ``site``, so each other one is built beside it and moved under its root."""
    other = [lang for lang, spec in LANGUAGES.items() if spec["root"]]
    with ThreadPoolExecutor(max_workers=len(LANGUAGES)) as pool:
        futures = {lang: pool.submit(build_language, lang, site if lang not in other else parts / lang, REPO_ROOT)
                   for lang in LANGUAGES}
        results = [future.result() for future in futures.values()]
    for lang in other:
        root = LANGUAGES[lang]["root"].strip("/")
        if (parts / lang / root).is_dir():
            shutil.move(str(parts / lang / root), str(site / root))
    return results

