"""The answer key of every self-check quiz, shared by both languages.

A chapter holds the question and its options in its own language (``/// quiz | id``);
which option is right, or which number is expected, is written here once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from labkit.course.figures import figure_value
from labkit.errors import LabkitError
from labkit.report.typed_numbers import half_width


@dataclass(frozen=True)
class Choice:
    """One right option among labelled ones (a, b, c...)."""

    answer: str


@dataclass(frozen=True)
class Numeric:
    """A number to type; right when |typed - expected| <= rel_tolerance x expected.

    The expected value is a computed figure of labkit.course.figures, never typed here.
    """

    figure: str
    rel_tolerance: float = 0.05

    @property
    def expected(self) -> float:
        return figure_value(self.figure)

    def accepts(self, typed: str, lang: str, unit: str) -> bool:
        """Whether the reader's answer is right: one of its readings (see ``readings``) within
        the tolerance. labkit/site/assets/quiz.js applies the same rule in the page (and says an
        ambiguous answer is ambiguous, see ``ambiguous_readings``, without judging it)."""
        return any(abs(value - self.expected) <= self.rel_tolerance * abs(self.expected)
                   for value in readings(typed, lang, unit))


_SPACE_GROUPED = re.compile(r"[0-9]{1,3}(?: [0-9]{3})+(?:[.,][0-9]+)?")
_COMMA_GROUPED = re.compile(r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?")
_PLAIN = re.compile(r"[0-9]+(?:[.,][0-9]+)?")
#: French "1.280": a decimal point (1,28) or, as some countries write it, a thousands dot (1 280).
_DOT_GROUPED = re.compile(r"[0-9]{1,3}\.[0-9]{3}")


def unit_spellings(unit: str) -> list[str]:
    """The ways a reader may write the quiz's unit after the number: as printed, without the
    Chinese classifier (个 sector -> sector), in the singular (octets -> octet)."""
    spelled = {unit.strip()}
    spelled |= {u.removeprefix("个").strip() for u in list(spelled)}
    spelled |= {u[:-1] for u in list(spelled) if u.endswith("s") and len(u) > 2}
    return sorted((u for u in spelled if u), key=len, reverse=True)


def _number_part(typed: str, unit: str) -> tuple[float, str]:
    """The sign and the digits of a typed answer: full-width digits as ASCII, spaces as one
    (labkit.report.typed_numbers.half_width), the quiz's unit after the number removed."""
    text = half_width(typed)
    for spelled in unit_spellings(unit):
        if text.lower().endswith(spelled.lower()):
            text = text[: len(text) - len(spelled)].strip()
            break
    if text[:1] in ("-", "\u2212"):
        return -1.0, text[1:].strip()
    return 1.0, text


def ambiguous_readings(typed: str, lang: str, unit: str = "") -> tuple[float, ...]:
    """The two numbers a French answer grouped with dots can mean ("1.280": 1,28 or 1 280), for
    the quiz to say so and judge nothing; () for any other answer. Chinese pages write a decimal
    point, so "1.280" is 1.28 there."""
    sign, text = _number_part(typed, unit)
    if lang != "fr" or not _DOT_GROUPED.fullmatch(text):
        return ()
    return sign * float(text), sign * float(text.replace(".", ""))


def readings(typed: str, lang: str, unit: str = "") -> tuple[float, ...]:
    """The numbers a typed answer can mean, in the ways the site prints numbers in that
    language: 2048, 2 048 (any space, U+202F and U+00A0 included), 2,048 and 1,234.5 (thousands
    commas, as Chinese pages print them), 130,5 and 130.5; optionally followed by the quiz's unit.
    French "2,048" is ambiguous (a decimal comma, or thousands): both readings count. Full-width
    digits (２０４８, as a Chinese input method types them) are digits. Nothing else is a number: ()
    for "abc", "1e3", "12 + 3", a unit the question did not ask for, or French "1.280", which
    ``ambiguous_readings`` reads."""
    sign, text = _number_part(typed, unit)
    if lang == "fr" and _DOT_GROUPED.fullmatch(text):
        return ()   # ambiguous: see ambiguous_readings
    found: list[float] = []
    if _SPACE_GROUPED.fullmatch(text):
        found.append(float(text.replace(" ", "").replace(",", ".")))
    if _COMMA_GROUPED.fullmatch(text):
        found.append(float(text.replace(",", "")))
    if _PLAIN.fullmatch(text) and (lang == "fr" or "," not in text or not _COMMA_GROUPED.fullmatch(text)):
        found.append(float(text.replace(",", ".")))
    return tuple(sign * value for value in dict.fromkeys(found))


ANSWER_KEY: dict[str, Choice | Numeric] = {
    "q01-axpby-intensity": Numeric("ch01.quiz.axpby_intensity"),
    "q01-fp64-roof": Numeric("ch01.quiz.fp64_t_min_ms"),
    "q01-gemm-tile": Numeric("ch01.quiz.gemm_block.shared_roof_tflops"),
    "q01-verdict": Choice("a"),
    "q01-stencil-reuse": Choice("c"),
    "q02-narrow-block": Numeric("ch02.quiz.narrow_block_sectors"),
    "q02-stencil-loads": Numeric("ch02.quiz.stencil_sectors"),
    "q02-dram-fetch": Numeric("ch02.quiz.dram_stride10_bytes"),
    "q02-pad36": Numeric("ch02.quiz.column36_wavefronts"),
    "q02-padding": Choice("b"),
    "q02-aos": Choice("b"),
    "q02-hw-conflicts": Choice("d"),
    "q02-latency-bound": Choice("a"),
    "q04-tool-order": Choice("d"),
    "q04-low-low": Choice("a"),
    "q04-moved-bytes": Numeric("ch04.traffic.moved_mb"),
    "q04-replay": Choice("b"),
    "q04-l2-mirage": Choice("c"),
    "q04-sectors": Choice("a"),
    "q04-tail": Choice("b"),
    "q03-register-blocks": Numeric("ch03.quiz.regs48.blocks"),
    "q03-granularity": Choice("c"),
    # Bytes per thread for the knee at 8 warps: forgetting the transfer's warp (dividing by 8, not 7)
    # is 12 % below, outside the 5 % tolerance; rounding to a whole byte (24) is inside.
    "q03-double-copy": Numeric("ch03.quiz.copy_knee.thread_bytes"),
    "q03-fma-bound": Numeric("ch03.quiz.fma_bound_pct"),
    "q03-tail": Numeric("ch03.quiz.tail.pct"),
    "q03-not-selected": Choice("b"),
    "q03-small-grid": Choice("d"),
    "q03-spills": Choice("a"),
    "q03-roof-stall": Choice("c"),
    "q05-a": Choice("b"),
    "q05-b": Choice("c"),
    "q05-c": Choice("a"),
    "q05-d": Choice("d"),
    "q05-e": Choice("c"),
    "q05-f": Choice("b"),
    "q05-g": Choice("a"),
    "q05-h": Choice("d"),
    "q05-waste-first": Choice("c"),
    # The best duration once the loads are coalesced: the FMA pipe keeps its work (checklist.capped_gain_pct);
    # ncu's estimate taken whole (a) and the time following the sectors (d) are distinct figures.
    "q05-roof": Choice("b"),
    "q05-tiled": Choice("c"),
    "q05-scale": Choice("b"),
    "q06-intensity": Numeric("ch06.quiz.thin.intensity"),
    "q06-conflict-16": Numeric("ch06.quiz.tile16_wavefronts"),
    # 15 (the SM's registers over a warp's, ignoring the partitions) and 16 (two blocks) are 47 % and
    # more away from the 8 warps that fit: the default tolerance tells them apart.
    "q06-blocks": Numeric("ch06.quiz.regs.warps_per_sm"),
    "q06-next-lever": Choice("c"),
    # 4 (the bytes over a sector, as if the lanes wrote one run) and 32 (a sector a lane) are 50 %
    # and more away from the 8 sectors touched
    "q06-store-sectors": Numeric("ch06.quiz.store.sectors"),
    "q06-one-barrier": Choice("b"),
}


@dataclass(frozen=True)
class CaseQuiz:
    """A choice quiz on a kernel a lab profiled (``/// profile | lab-NN-key``): each option stands for
    a verdict of chapter 5's checklist (an item id, or "at-roof"). Its key in ANSWER_KEY must be the
    option whose verdict `labkit diagnose` gives on every recorded profile of that kernel:
    :func:`case_answer` computes it, the quiz block refuses a page whose key disagrees, and the
    tests hold it to the flaw planted in the kernel."""

    lab: str
    case: str
    verdicts: dict[str, str]          # option letter -> checklist verdict


CASE_QUIZZES: dict[str, CaseQuiz] = {
    "q05-a": CaseQuiz("lab-05", "a", {"a": "latency", "b": "coalescing", "c": "bank-conflicts", "d": "at-roof"}),
    "q05-b": CaseQuiz("lab-05", "b", {"a": "instructions", "b": "divergence", "c": "fp64", "d": "tensor-cores"}),
    "q05-c": CaseQuiz("lab-05", "c", {"a": "launch", "b": "occupancy", "c": "latency", "d": "coalescing"}),
    "q05-d": CaseQuiz("lab-05", "d", {"a": "coalescing", "b": "occupancy", "c": "instructions", "d": "bank-conflicts"}),
    "q05-e": CaseQuiz("lab-05", "e", {"a": "latency", "b": "coalescing", "c": "at-roof", "d": "occupancy"}),
    "q05-f": CaseQuiz("lab-05", "f", {"a": "coalescing", "b": "local-memory", "c": "bank-conflicts",
                                       "d": "latency"}),
    "q05-g": CaseQuiz("lab-05", "g", {"a": "occupancy", "b": "divergence", "c": "launch", "d": "coalescing"}),
    "q05-h": CaseQuiz("lab-05", "h", {"a": "fp64", "b": "tensor-cores", "c": "instructions", "d": "divergence"}),
    "q05-tiled": CaseQuiz("lab-04", "tiled", {"a": "instructions", "b": "at-roof", "c": "latency",
                                               "d": "occupancy"}),
}


class CaseAnswerError(LabkitError, ValueError):
    """A case quiz whose recorded profiles give no single verdict among its options."""


def case_answer(quiz_id: str, project=None) -> str | None:
    """The option of a case quiz whose verdict `labkit diagnose` gives on the recorded profiles of its
    kernel; None when the lab has no record (nothing to check against). CaseAnswerError when the
    verdicts of the recorded GPUs differ, or none of the options is the verdict."""
    from labkit.labs.base import lab
    from labkit.labs.recorded import recorded_cases
    from labkit.profiling import checklist
    from labkit.project import find_project

    quiz = CASE_QUIZZES[quiz_id]
    found = recorded_cases(lab(quiz.lab), quiz.case, project or find_project())
    verdicts = {checklist.assess(case.profile.diagnosis()).verdict for _, case in found}
    if not verdicts:
        return None
    letters = [letter for letter, verdict in quiz.verdicts.items() if verdict in verdicts]
    if len(verdicts) != 1 or len(letters) != 1:
        raise CaseAnswerError(f"quiz '{quiz_id}': labkit diagnose gives {sorted(verdicts)} on {quiz.lab}-"
                              f"{quiz.case}'s records, which is not exactly one of its options {quiz.verdicts}")
    return letters[0]


class UnknownQuizError(LabkitError, KeyError):
    """A quiz id with no answer key."""

    def __str__(self) -> str:
        return self.args[0]


def answer_for(quiz_id: str) -> Choice | Numeric:
    """The key entry of a quiz; UnknownQuizError names the quiz with no key."""
    try:
        return ANSWER_KEY[quiz_id]
    except KeyError:
        raise UnknownQuizError(f"quiz '{quiz_id}' has no answer key: add it to labkit/course/quizzes.py") from None
