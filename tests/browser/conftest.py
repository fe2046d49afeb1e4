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
from urllib.parse import urlsplit

import pytest

CHROMIUM_FLAGS = [
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
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


@pytest.fixture(scope="session")
def browser(chromium_executable):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_executable, args=CHROMIUM_FLAGS)
        yield browser
        browser.close()


class PageWatch:
    """Console errors, page errors and requests to anything but 127.0.0.1 (or local files), seen by one page."""

    def __init__(self, page):
        self.errors: list[str] = []
        self.remote_requests: list[str] = []
        page.on("console", lambda msg: msg.type == "error" and self.errors.append(msg.text))
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.route("**/*", self._route)

    def _route(self, route):
        url = route.request.url
        if urlsplit(url).hostname == "127.0.0.1" or url.startswith(("data:", "blob:", "about:", "file:")):
            route.continue_()
        else:
            self.remote_requests.append(url)
            route.abort()


@pytest.fixture
def page(browser):
    context = browser.new_context()
    page = context.new_page()
    page.watch = PageWatch(page)
    yield page
    context.close()
