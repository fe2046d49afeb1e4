"""The live preview serves one language and shows a page's edit without a manual rebuild; stopped,
it leaves no copy of the site in the temporary folder.

It serves a copy of the course reduced to the home page and the part's index in each language
(the configurations' nav: trimmed, the other pages excluded): the preview's machinery is the
course's, and each build it makes costs a second rather than the whole site's."""

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from labkit.site.typography import typeset_text
from tests.conftest import DOCS, REPO_ROOT

PAGE = "performance/index.md"
DEADLINE_SECONDS = 120
#: The pages the reduced copy keeps, in both languages.
KEPT = ("index.md", PAGE)


def reduce_to_kept_pages(project) -> None:
    """Each configuration's nav: lists KEPT only, and every other page and notebook is excluded."""
    nav = "nav:\n" + "".join(f"  - {page}\n" for page in KEPT)
    for config in (project / "mkdocs.yml", project / "docs" / "mkdocs.zh.yml"):
        text, count = re.subn(r"^nav:\n(?:[ \t-].*\n)*", nav, config.read_text(encoding="utf-8"), flags=re.MULTILINE)
        assert count == 1, f"{config.name}: no nav: block to trim"
        config.write_text(text, encoding="utf-8")
    exclude = "exclude_docs: |\n  *.md\n  labs/\n" + "".join(f"  !/{page}\n" for page in KEPT)
    config = project / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + exclude, encoding="utf-8")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def fetch(url: str) -> str | None:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode()
    except OSError:
        return None


def wait_for(predicate, what: str):
    deadline = time.monotonic() + DEADLINE_SECONDS
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.5)
    pytest.fail(f"the preview never {what} within {DEADLINE_SECONDS} s")


@pytest.mark.parametrize("lang, root", [("fr", "fr"), ("zh", "zh")])
def test_a_page_edit_is_served_without_a_rebuild(tmp_path, lang, root):
    shutil.copytree(DOCS, tmp_path / "docs")
    shutil.copytree(REPO_ROOT / "labs", tmp_path / "labs")
    shutil.copy(REPO_ROOT / "mkdocs.yml", tmp_path)
    reduce_to_kept_pages(tmp_path)
    (tmp_path / "node_modules").symlink_to(REPO_ROOT / "node_modules")
    (tmp_path / "labkit").symlink_to(REPO_ROOT / "labkit")     # the chapters' code snippets
    port = free_port()
    url = f"http://127.0.0.1:{port}/performance/"
    temporary = tmp_path / "tmp"   # where the preview's servers build the site they serve
    temporary.mkdir()
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "TMPDIR": str(temporary)}
    env.pop("LABKIT_PROJECT", None)
    server = subprocess.Popen([sys.executable, "-m", "labkit.site.preview", lang, str(port)], cwd=tmp_path, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        wait_for(lambda: fetch(url), "served the page")
        marker = f"Phrase ajoutée pendant l'aperçu {lang}"
        page = tmp_path / "docs" / root / PAGE
        page.write_text(page.read_text() + f"\n{marker}\n")
        shown = typeset_text(marker, lang)   # as the build sets it: l’aperçu
        wait_for(lambda: shown in (fetch(url) or ""), "showed the edit")
        assert list(temporary.glob("*/mkdocs_*")), "the server built its site elsewhere: this test would see nothing"
    finally:
        os.killpg(server.pid, 15)
        server.wait(timeout=30)
    assert list(temporary.iterdir()) == [], "the preview left files in the temporary folder"
