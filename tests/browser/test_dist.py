"""`make dist`: one archive whose pages open from the disk, in both languages, without a server."""

import subprocess
import tarfile

import pytest

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
