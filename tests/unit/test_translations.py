"""Translation freshness: digests in front matter, statuses, marking a page fresh."""

import pytest

from labkit.project import Project
from labkit.site import translations as t


def test_digest_is_recorded_quoted_and_read_back():
    page = t.with_digest("# Titre\n", "0123456789ab")
    assert page.startswith('---\ntranslation_of: "0123456789ab"\n---\n# Titre')
    assert t.recorded_digest(page) == "0123456789ab"
    assert t.recorded_digest(t.with_digest(page, "ffffffffffff")) == "ffffffffffff"
    assert t.recorded_digest("# no front matter\n") is None


def test_existing_front_matter_is_kept():
    page = t.with_digest("---\ntitle: x\n---\nbody\n", "aaaaaaaaaaaa")
    assert page == '---\ntitle: x\ntranslation_of: "aaaaaaaaaaaa"\n---\nbody\n'


def test_statuses_and_mark_fresh(tmp_path):
    docs = tmp_path / "docs"
    for lang in ("fr", "zh"):
        (docs / lang).mkdir(parents=True)
    (docs / "fr" / "index.md").write_text("# Bonjour\n")
    zh = docs / "zh" / "index.md"
    zh.write_text("# 你好\n")
    assert [s.state for s in t.statuses(docs)] == ["unmarked"]
    t.mark_fresh(Project(tmp_path), zh)
    assert [s.state for s in t.statuses(docs)] == ["fresh"]
    (docs / "fr" / "index.md").write_text("# Bonjour à tous\n")
    assert [s.state for s in t.statuses(docs)] == ["stale"]


@pytest.mark.parametrize("page, message", [
    ("docs/fr/index.md", "not a translated page: --mark-fresh takes a page of docs/zh/"),
    ("README.md", "not a page of docs/: --mark-fresh takes a translated page"),
    ("docs/zh/nowhere.md", "no such page"),
    ("docs/zh/only-here.md", "its source docs/fr/only-here.md does not exist"),
])
def test_mark_fresh_refuses_what_is_not_a_translation_and_writes_nothing(tmp_path, monkeypatch, page, message):
    for lang in ("fr", "zh"):
        (tmp_path / "docs" / lang).mkdir(parents=True)
        (tmp_path / "docs" / lang / "index.md").write_text(f"# {lang}\n")
    (tmp_path / "docs/zh/only-here.md").write_text("# 只在这里\n")
    (tmp_path / "README.md").write_text("# readme\n")
    before = {p: p.read_bytes() for p in tmp_path.rglob("*.md")}
    monkeypatch.chdir(tmp_path)
    with pytest.raises(t.TranslationError, match=message):
        t.mark_fresh(Project(tmp_path), page)
    assert {p: p.read_bytes() for p in tmp_path.rglob("*.md")} == before


def test_the_course_translations_are_up_to_date():
    from tests.conftest import DOCS

    behind = [f"{s.page} is {s.state}" for s in t.statuses(DOCS) if s.state != "fresh"]
    assert not behind, "run `labkit translations` and bring these up to date:\n" + "\n".join(behind)
