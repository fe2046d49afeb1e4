"""Nothing in the built site asks for a resource outside the site itself."""

import re

from bs4 import BeautifulSoup

REMOTE = re.compile(r"^(https?:)?//", re.IGNORECASE)
CSS_REMOTE_URL = re.compile(r"url\(\s*['\"]?(https?:)?//", re.IGNORECASE)
# Third-party strings that name remote hosts without fetching anything (documentation links
# inside minified code) are fine; loading something remote is not.
LOADING_ATTRIBUTES = {"script": "src", "link": "href", "img": "src", "iframe": "src", "source": "src"}


def test_pages_load_nothing_remote(built_site):
    offenders = []
    for html in built_site.rglob("*.html"):
        soup = BeautifulSoup(html.read_text(), "html.parser")
        for tag, attribute in LOADING_ATTRIBUTES.items():
            for element in soup.find_all(tag):
                if tag == "link" and "alternate" in (element.get("rel") or []):
                    continue
                value = element.get(attribute) or ""
                if REMOTE.match(value):
                    offenders.append(f"{html.relative_to(built_site)}: <{tag} {attribute}={value}>")
    assert not offenders, "remote resources:\n" + "\n".join(offenders)


def test_stylesheets_import_nothing_remote(built_site):
    offenders = [
        str(css.relative_to(built_site)) for css in built_site.rglob("*.css") if CSS_REMOTE_URL.search(css.read_text())
    ]
    assert not offenders, f"stylesheets with remote url(): {offenders}"


def test_no_google_fonts(built_site):
    for html in built_site.rglob("*.html"):
        assert "fonts.googleapis" not in html.read_text(), html
