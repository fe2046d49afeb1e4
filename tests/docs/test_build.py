"""Both languages build with --strict (links and anchors validated); the output is what we expect."""

from bs4 import BeautifulSoup

from labkit.report.labels import LANGUAGES


def test_both_languages_build_strictly(built_site):
    for spec in LANGUAGES.values():
        assert (built_site / spec["root"] / "index.html").is_file()
        assert (built_site / spec["root"] / "search" / "search_index.json").is_file()


def test_language_switcher_points_at_the_same_page(built_site):
    page = BeautifulSoup((built_site / "performance/04-profiling/index.html").read_text(), "html.parser")
    links = {a["hreflang"]: a["href"] for a in page.select("a.md-select__link")}
    assert links == {"fr": "./", "zh": "../../zh/performance/04-profiling/"}
    zh = BeautifulSoup((built_site / "zh/performance/04-profiling/index.html").read_text(), "html.parser")
    links = {a["hreflang"]: a["href"] for a in zh.select("a.md-select__link")}
    assert links == {"fr": "../../../performance/04-profiling/", "zh": "./"}


def test_pages_are_in_their_language(built_site):
    assert 'lang="fr"' in (built_site / "index.html").read_text()
    assert 'lang="zh"' in (built_site / "zh/index.html").read_text()


def test_each_lab_page_offers_its_notebook_as_ipynb(built_site):
    import json

    from labkit.labs.base import labs

    for lab in labs().values():
        for spec in LANGUAGES.values():
            page = built_site / spec["root"] / lab.chapter.removesuffix(".md") / "index.html"
            link = BeautifulSoup(page.read_text(), "html.parser").select_one(".lab-notebook a[download]")
            target = (page.parent / link["href"]).resolve()
            notebook = json.loads(target.read_text())
            assert target.name == f"lab{lab.number}.ipynb" and notebook["nbformat"] == 4
            code = [cell for cell in notebook["cells"] if cell["cell_type"] == "code"]
            assert code and all(not cell["outputs"] for cell in code)


def test_a_published_build_has_absolute_sitemap_and_alternates(tmp_path, monkeypatch):
    """SITE_URL (set by the publishing workflow) makes the sitemap and the hreflang alternates absolute.

    Built as `make build` builds, with each language's configuration and plugin, but only the two pages
    the test reads (labkit.site.chapter.build_pages): the rest of the site has no part in it."""
    from labkit.project import Project
    from labkit.site.chapter import build_pages
    from tests.conftest import REPO_ROOT

    monkeypatch.setenv("SITE_URL", "https://example.org/course/")
    for lang in LANGUAGES:
        assert build_pages(Project(REPO_ROOT), lang, ["index.md", "performance/index.md"], tmp_path / "site") == []
    for root, first in (("", "https://example.org/course/"), ("zh/", "https://example.org/course/zh/")):
        sitemap = (tmp_path / "site" / root / "sitemap.xml").read_text()
        assert f"<loc>{first}</loc>" in sitemap
        page = BeautifulSoup((tmp_path / "site" / root / "performance/index.html").read_text(), "html.parser")
        alternates = {link["hreflang"]: link["href"] for link in page.select('link[rel="alternate"][hreflang]')}
        assert alternates == {"fr": "https://example.org/course/", "zh": "https://example.org/course/zh/"}
    not_found = (tmp_path / "site" / "404.html").read_text()
    assert 'href="https://example.org/course/"' in not_found and 'href="https://example.org/course/zh/"' in not_found
