"""The answer key of every self-check quiz, shared by both languages.

A chapter holds the question and its options in its own language (``/// quiz | id``);
which option is right, or which number is expected, is written here once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labkit.errors import LabkitError
from labkit.figures import figure_value


@dataclass(frozen=True)
class Choice:
    """One right option among labelled ones (a, b, c...)."""

    answer: str


@dataclass(frozen=True)
class Numeric:
    """A number to type; right when |typed - expected| <= rel_tolerance x expected.

    The expected value is a computed figure of labkit.figures, never typed here.
    """

    figure: str
    rel_tolerance: float = 0.05

    @property
    def expected(self) -> float:
        return figure_value(self.figure)

    def accepts(self, typed: str, lang: str, unit: str) -> bool:
        """Whether the reader's answer is right: one of its readings (see ``readings``) within
        the tolerance. labkit/site/assets/quiz.js applies the same rule in the page."""
        return any(abs(value - self.expected) <= self.rel_tolerance * abs(self.expected)
                   for value in readings(typed, lang, unit))


#: The spaces a number may be grouped with: ordinary, no-break (U+00A0), narrow no-break (U+202F),
#: thin (U+2009), as the site prints French numbers (2 048) and readers type them.
_SPACES = re.compile(r"[\s\u00a0\u202f\u2009]+")
_SPACE_GROUPED = re.compile(r"\d{1,3}(?: \d{3})+(?:[.,]\d+)?")
_COMMA_GROUPED = re.compile(r"\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_PLAIN = re.compile(r"\d+(?:[.,]\d+)?")


def unit_spellings(unit: str) -> list[str]:
    """The ways a reader may write the quiz's unit after the number: as printed, without the
    Chinese classifier (个 sector -> sector), in the singular (octets -> octet)."""
    spelled = {unit.strip()}
    spelled |= {u.removeprefix("个").strip() for u in list(spelled)}
    spelled |= {u[:-1] for u in list(spelled) if u.endswith("s") and len(u) > 2}
    return sorted((u for u in spelled if u), key=len, reverse=True)


def readings(typed: str, lang: str, unit: str = "") -> tuple[float, ...]:
    """The numbers a typed answer can mean, in the ways the site prints numbers in that
    language: 2048, 2 048 (any space, U+202F and U+00A0 included), 2,048 and 1,234.5 (thousands
    commas, as Chinese pages print them), 130,5 and 130.5; optionally followed by the quiz's unit.
    French "2,048" is ambiguous (a decimal comma, or thousands): both readings count. Nothing
    else is a number: () for "abc", "1e3", "12 + 3" or a unit the question did not ask for."""
    text = _SPACES.sub(" ", typed).strip()
    for spelled in unit_spellings(unit):
        if text.lower().endswith(spelled.lower()):
            text = text[: len(text) - len(spelled)].strip()
            break
    sign = 1.0
    if text[:1] in ("-", "\u2212"):
        sign, text = -1.0, text[1:].strip()
    found: list[float] = []
    if _SPACE_GROUPED.fullmatch(text):
        found.append(float(text.replace(" ", "").replace(",", ".")))
    if _COMMA_GROUPED.fullmatch(text):
        found.append(float(text.replace(",", "")))
    if _PLAIN.fullmatch(text) and (lang == "fr" or "," not in text or not _COMMA_GROUPED.fullmatch(text)):
        found.append(float(text.replace(",", ".")))
    return tuple(sign * value for value in dict.fromkeys(found))


ANSWER_KEY: dict[str, Choice | Numeric] = {
    "q01-saxpy-intensity": Numeric("ch01.saxpy.intensity"),
    "q01-ridge-h200": Numeric("h200.ridge"),
    "q01-gemm-tile": Choice("b"),
    "q01-verdict": Choice("c"),
    "q01-stencil-reuse": Choice("c"),
    "q02-stride3-sectors": Numeric("ch02.sectors.f32_stride3"),
    "q02-misaligned": Numeric("ch02.sectors.f32_offset4"),
    "q02-dram-fetch": Numeric("ch02.dram.f32_stride32_bytes"),
    "q02-lds128": Numeric("ch02.wavefronts.v16_stride2"),
    "q02-padding": Choice("c"),
    "q02-aos": Choice("b"),
    "q02-hw-conflicts": Choice("b"),
    "q04-tool-order": Choice("d"),
    "q04-low-low": Choice("a"),
    "q04-moved-bytes": Numeric("ch04.traffic.moved_mb"),
    "q04-replay": Choice("b"),
    "q04-l2-mirage": Choice("d"),
    "q04-sectors": Choice("c"),
    "q03-register-blocks": Numeric("ch03.ex.regs64.blocks"),
    "q03-granularity": Choice("c"),
    "q03-scalar-copy": Numeric("ch03.little.copy_knee_scalar"),
    "q03-fma-chains": Numeric("ch03.fma.warps_2chains"),
    "q03-tail": Numeric("ch03.waves.tail_pct"),
    "q03-not-selected": Choice("b"),
    "q03-small-grid": Choice("d"),
    "q03-spills": Choice("a"),
    "q05-a": Choice("b"),
    "q05-b": Choice("c"),
    "q05-c": Choice("a"),
    "q05-d": Choice("d"),
    "q05-e": Choice("c"),
    "q05-f": Choice("b"),
    "q05-g": Choice("a"),
    "q05-h": Choice("d"),
    "q05-waste-first": Choice("c"),
    "q05-roof": Choice("a"),
    "q05-tiled": Choice("c"),
    "q05-scale": Choice("b"),
}


class UnknownQuizError(LabkitError, KeyError):
    """A quiz id with no answer key."""

    def __str__(self) -> str:
        return self.args[0]


def answer_for(quiz_id: str) -> Choice | Numeric:
    """The key entry of a quiz; UnknownQuizError names the quiz with no key."""
    try:
        return ANSWER_KEY[quiz_id]
    except KeyError:
        raise UnknownQuizError(f"quiz '{quiz_id}' has no answer key: add it to labkit/quizzes.py") from None
