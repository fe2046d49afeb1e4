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
from dataclasses import dataclass
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


# ----- every page, once in each palette, for the tests that read whole pages --------------------------

#: The palette a reader's system asks for, and the Material scheme that answers it.
SCHEMES = {"light": "default", "dark": "slate"}
#: The lab figures' graphical marks, whose colours must keep their contrast (tests/browser/test_palettes.py).
MARKS = ".lab-figure .theoretical, .lab-figure .measured, .lab-figure .sweep, .lab-figure .kernel, " \
        ".lab-figure [class^='phase-'], .lab-figure .line, .lab-figure .mark"
#: Each element's colour: fill for text and filled marks, stroke for lines, colour for table cells.
COLOURS_JS = """(selector) => [...document.querySelectorAll(selector)].map(el => {
  const style = getComputedStyle(el);
  const line = ['polyline', 'line', 'path'].includes(el.tagName);
  return {tag: el.tagName, cls: el.getAttribute('class') || '',
          colour: el.tagName === 'TD' ? style.color : (line ? style.stroke : style.fill)};
})"""
COLOURED = {"texts": ".lab-figure svg text", "marks": MARKS, "cells": ".lab-recorded td"}


def site_pages(built_site) -> list[str]:
    """Every page of the built site, relative to its root: '/', 'performance/', 'zh/performance/...'."""
    return sorted(
        p.parent.relative_to(built_site).as_posix().removeprefix(".") + "/"
        for p in built_site.rglob("index.html")
        if "assets" not in p.parts and "search" not in p.parts
    )


@dataclass(frozen=True)
class Visit:
    """One page as a palette showed it: console errors while it loaded, its scheme and background,
    and the colours of its lab figures' text and marks and of its lab tables' cells."""

    errors: tuple[str, ...]
    scheme: str
    background: str
    colours: dict[str, list[dict]]


@dataclass(frozen=True)
class Tour:
    visits: dict[str, Visit]        # site_pages() entry -> what it showed
    remote_requests: tuple[str, ...]


@pytest.fixture(scope="session")
def tour(browser, site_url, built_site) -> dict[str, Tour]:
    """Every page of the site loaded once (until the network is idle) in each palette, in one
    context per palette, offline: what several tests read whole, loaded once for all of them (the
    tests that use it share an xdist group, so one worker loads the pages)."""
    tours = {}
    for name in SCHEMES:
        context = browser.new_context(color_scheme=name)
        page = context.new_page()
        watch = PageWatch(page)
        visits = {}
        for rel in site_pages(built_site):
            watch.errors.clear()
            page.goto(site_url + rel.lstrip("/"), wait_until="networkidle")
            visits[rel] = Visit(
                errors=tuple(watch.errors),
                scheme=page.evaluate("() => document.body.getAttribute('data-md-color-scheme')"),
                background=page.evaluate("() => getComputedStyle(document.body).backgroundColor"),
                colours={kind: page.evaluate(COLOURS_JS, selector) for kind, selector in COLOURED.items()},
            )
        context.close()
        tours[name] = Tour(visits, tuple(watch.remote_requests))
    return tours
