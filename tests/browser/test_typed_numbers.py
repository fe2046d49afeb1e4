"""The typed-number rule the widgets and quizzes share: labkit/site/assets/typed_numbers.js equals
its twin labkit.report.typed_numbers on a grid of typed texts (digits ASCII and full-width, grouped
by every kind of space, by commas, by dots, signs, letters), in both languages."""

import itertools
from pathlib import Path

import pytest

import labkit.site
from labkit.report.labels import LANGUAGES
from labkit.report.typed_numbers import half_width, whole_digits

pytestmark = pytest.mark.browser

SCRIPT = Path(labkit.site.__file__).parent / "assets" / "typed_numbers.js"
FULL_WIDTH = {ord(ch): 0xFF10 + int(ch) for ch in "0123456789"} | {ord(","): "，", ord("."): "．", ord("-"): "－"}


def typed_texts() -> list[str]:
    """Numbers as the pages print them and as readers type them, and what is not one."""
    bodies = ["0", "7", "256", "1024", "65536", "1 024", "1\u202f024", "1\u00a0024", "1\u2009024", "12 345 678",
              "1,024", "12,345,678", "1,02", "1 02", "1.024", "1.5", "2,5", "1e3", "12abc", "", " ", "1  024",
              "1,024.5", "1 024,5", "10 24", "1, 024"]
    texts = []
    for body, sign, pad in itertools.product(bodies, ("", "-", "\u2212"), ("", " ", "\u3000")):
        texts += [pad + sign + body + pad, (pad + sign + body).translate(FULL_WIDTH)]
    return texts


def test_javascript_equals_python_on_every_typed_text(page):
    page.set_content("<!doctype html><html><body></body></html>")
    page.add_script_tag(path=str(SCRIPT))
    texts = typed_texts()
    cases = [(text, lang) for text in texts for lang in LANGUAGES]
    got = page.evaluate("""cases => cases.map(([t, l]) =>
      [window.labkitTypedNumbers.halfWidth(t), window.labkitTypedNumbers.wholeDigits(t, l)])""", cases)
    expected = [[half_width(text), whole_digits(text, lang)] for text, lang in cases]
    differing = [(case, js, py) for case, js, py in zip(cases, got, expected) if js != py]
    assert not differing, f"{len(differing)} of {len(cases)} differ, first: {differing[0]}"
    assert whole_digits("１，０２４", "zh") == "1024" and whole_digits("1 024", "fr") == "1024"
    assert whole_digits("1,024", "fr") == "1,024"   # a decimal in French: the field refuses it
