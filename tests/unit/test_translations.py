"""Translation freshness: digests in front matter, statuses, marking a page fresh."""

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
    for lang in ("fr", "zh"):
        (tmp_path / lang).mkdir()
    (tmp_path / "fr" / "index.md").write_text("# Bonjour\n")
    zh = tmp_path / "zh" / "index.md"
    zh.write_text("# 你好\n")
    assert [s.state for s in t.statuses(tmp_path)] == ["unmarked"]
    t.mark_fresh(zh, tmp_path)
    assert [s.state for s in t.statuses(tmp_path)] == ["fresh"]
    (tmp_path / "fr" / "index.md").write_text("# Bonjour à tous\n")
    assert [s.state for s in t.statuses(tmp_path)] == ["stale"]


def test_the_course_translations_are_up_to_date():
    from tests.conftest import DOCS

    behind = [f"{s.page} is {s.state}" for s in t.statuses(DOCS) if s.state != "fresh"]
    assert not behind, "run `labkit translations` and bring these up to date:\n" + "\n".join(behind)
