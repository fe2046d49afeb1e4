"""`make dist`: one archive whose pages open from the disk, in both languages, without a server."""

import subprocess
import tarfile

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from tests.browser.tour import diagrams_in, search, settle
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory):
    dist = tmp_path_factory.mktemp("dist")
    done = subprocess.run(["make", "-s", "dist", f"DIST={dist}"], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    folder = tmp_path_factory.mktemp("unpacked")
    with tarfile.open(dist / "gpu-performance-course.tar.gz") as archive:
        archive.extractall(folder, filter="data")
    return folder


@pytest.mark.parametrize("start, link, title", [
    ("index.html", "performance/index.html", "Performance"),
    ("zh/index.html", "performance/index.html", "性能"),
])
def test_pages_open_and_link_from_the_disk(page, unpacked, start, link, title):
    page.goto((unpacked / start).as_uri())
    page.click(f'a[href="{link}"] >> nth=0')
    page.wait_for_load_state()
    assert page.url.endswith(link) and title in page.title()
    assert page.locator("article h1").count() == 1
    assert page.watch.remote_requests == []


@pytest.mark.parametrize("start, query, chapter", [
    ("index.html", "occupation", "/performance/03-occupancy.html"),
    ("zh/index.html", "占用率", "/zh/performance/03-occupancy.html"),
])
def test_search_works_from_the_disk(search_page, unpacked, start, query, chapter):
    """Opened from the disk, the search reads its index from search/search_index.js and runs its
    worker through the shim; the chapter that teaches the notion comes first."""
    page = search_page
    page.goto((unpacked / start).as_uri(), wait_until="load")
    hrefs = search(page, query)
    assert hrefs[0].startswith(unpacked.as_uri() + chapter), hrefs[:3]
    assert page.watch.errors == [] and page.watch.remote_requests == []


def test_pages_open_from_the_disk_without_a_console_error(page, unpacked):
    """(404.html is for a web server, which serves it at any depth with absolute links: not here.)"""
    problems = []
    for rel in ("index.html", "performance/02-coalescing.html", "performance/03-occupancy.html",
                "performance/04-profiling.html", "labs/03-occupancy/lab03.html", "zh/index.html",
                "zh/performance/03-occupancy.html", "zh/labs/05-checklist/lab05.html"):
        page.watch.errors.clear()
        page.goto((unpacked / rel).as_uri(), wait_until="load")
        try:
            settle(page, diagrams_in((unpacked / rel).read_text(encoding="utf-8")))
        except PlaywrightTimeoutError as error:
            problems.append(f"{rel}: did not settle: {error}")
        problems += [f"{rel}: {error}" for error in page.watch.errors]
    assert not problems, "\n".join(problems)
    assert page.watch.remote_requests == []
