"""What a reader types in a number field, read as the site prints numbers: the rule the widgets
and the quizzes share (labkit/site/assets/typed_numbers.js is its twin in the page, and the
browser tests hold the two equal on a grid of typed texts).

- Full-width digits and signs, as a Chinese input method types them in full-width mode
  (２５６, １，０２４, １２．５, －３), are the ASCII ones; so is the ideographic space.
- A whole number may be grouped by threes with spaces (any kind: 1 024, 1 024 with U+202F or
  U+00A0, as the French pages print it) in both languages, and with commas (1,024, as the Chinese
  pages print it) in Chinese: in French a comma is the decimal mark, so "1,024" is no whole number.
"""

from __future__ import annotations

import re

#: Full-width digits, comma, full stop, minus and plus, and the ideographic space, as ASCII.
HALF_WIDTH = {**{0xFF10 + d: str(d) for d in range(10)}, 0xFF0C: ",", 0xFF0E: ".", 0xFF0D: "-", 0xFF0B: "+",
              0x3000: " "}
#: The spaces a number may be grouped with: ordinary, no-break (U+00A0), narrow no-break (U+202F), thin (U+2009).
SPACES = re.compile(r"[\t\n\v\f\r \u00a0\u2009\u202f]+")
_SPACE_GROUPED_WHOLE = re.compile(r"[-\u2212]?[0-9]{1,3}(?: [0-9]{3})+")
_COMMA_GROUPED_WHOLE = re.compile(r"[-\u2212]?[0-9]{1,3}(?:,[0-9]{3})+")


def half_width(typed: str) -> str:
    """``typed`` with full-width digits and signs as ASCII, its spaces as one ordinary space, trimmed."""
    return SPACES.sub(" ", typed.translate(HALF_WIDTH)).strip()


def whole_digits(typed: str, lang: str) -> str:
    """A typed whole number without its group separators ("1 024" -> "1024", and in Chinese
    "1,024" -> "1024"), full-width digits as ASCII; any other text as typed (half-width, trimmed),
    for the field's own checks to refuse."""
    text = half_width(typed)
    if _SPACE_GROUPED_WHOLE.fullmatch(text):
        return text.replace(" ", "")
    if lang == "zh" and _COMMA_GROUPED_WHOLE.fullmatch(text):
        return text.replace(",", "")
    return text
