"""The answer key of every self-check quiz, shared by both languages.

A chapter holds the question and its options in its own language (``/// quiz | id``);
which option is right, or which number is expected, is written here once.
"""

from __future__ import annotations

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
    "q06-intensity": Numeric("ch06.intensity.fp16_8192"),
    "q06-conflict-16": Numeric("ch06.quiz.tile16_wavefronts"),
    "q06-blocks": Numeric("ch06.regtile.blocks_per_sm"),
    "q06-next-lever": Choice("c"),
    "q06-one-barrier": Choice("b"),
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
