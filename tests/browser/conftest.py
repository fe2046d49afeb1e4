"""Chromium, driven by Playwright, against the built site served on 127.0.0.1.

Debian's /usr/bin/chromium is used (Playwright's own browser download is not possible here).
Without it the browser tests skip with one line, except in CI (CI=true), where they must run.
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import threading

import pytest

from tests.browser.tour import OPEN_SHADOW_ROOTS, READERS, Tour, watched_tab
from tests.conftest import run_folder

CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    # no host name but 127.0.0.1 resolves: a request for another host fails at once (PageWatch names it)
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]


def chromium_path() -> str | None:
    return os.environ.get("CHROMIUM") or shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="session")
def chromium_executable():
    path = chromium_path()
    if path is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser tests, but no Chromium was found: .ci/run installs Debian's chromium")
        pytest.skip("no Chromium: `apt-get install chromium` to run the browser tests")
    return path


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def site_url(built_site):
    handler = functools.partial(QuietHandler, directory=str(built_site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()


class Contexts(dict):
    """One Chromium per reader (tour.READERS), started when first asked for, with a profile on the
    disk: the pages a reader opens share its cache, as a reader's browser does (Mermaid's 3.5 MB
    and KaTeX are compiled once, from the code cache, instead of once a page: a page loads in
    half a second instead of two)."""

    def __init__(self, playwright, executable, profiles):
        super().__init__()
        self.playwright, self.executable, self.profiles = playwright, executable, profiles

    def __missing__(self, reader):
        context = self[reader] = self.playwright.chromium.launch_persistent_context(
            self.profiles / reader.replace(" ", "-"), executable_path=self.executable, args=CHROMIUM_FLAGS,
            **READERS[reader])
        context.add_init_script(OPEN_SHADOW_ROOTS)
        return context


@pytest.fixture(scope="session")
def contexts(chromium_executable, tmp_path_factory):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        opened = Contexts(playwright, chromium_executable, tmp_path_factory.mktemp("chromium-profiles"))
        yield opened
        for context in opened.values():
            context.close()


@pytest.fixture(scope="session")
def tour(tmp_path_factory, built_site, site_url, contexts):
    """What each reader saw on each page of the site (tour.Tour), shared by the xdist workers."""
    return Tour(run_folder(tmp_path_factory) / "tour", built_site, site_url, contexts)


@pytest.fixture
def page(contexts):
    """A new tab of the light desktop reader, watched (page.watch), whose pages do not start
    Material's search worker (tour.QUIET_SEARCH_WORKER): the tests that search use search_page."""
    page = watched_tab(contexts["light desktop"])
    yield page
    page.close()


@pytest.fixture
def search_page(contexts):
    """A new tab of the light desktop reader, watched, whose pages index their language for search
    as a reader's do."""
    page = watched_tab(contexts["light desktop"], search=True)
    yield page
    page.close()
