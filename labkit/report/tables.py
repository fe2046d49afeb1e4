"""Language-neutral tables of recorded results, shared by the CLI and the site.

A lab turns its results into ``Table`` objects: ids for the title and columns, raw values in
the cells. Whoever shows them (the terminal in English, a chapter in French or Chinese) looks
the ids up in labkit.report.labels and formats each cell by its column's kind.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from labkit.errors import LabkitError
from labkit.models.roofline import RATIO_DECIMALS
from labkit.report.numbers import format_bytes, format_number, format_percent

@dataclass(frozen=True)
class Labelled:
    """A 'label' cell whose words take numbers: ``label(key)`` formatted with ``values``, each
    number written in the reader's language (no decimals)."""

    key: str
    values: dict[str, float]


def _label(value, lang: str, label) -> str:
    if isinstance(value, Labelled):
        return label(f"value.{value.key}").format(
            **{name: format_number(number, 0, lang) for name, number in value.values.items()})
    return label(f"value.{value}")


#: Cell kinds: how a raw value is shown, given the reader's language and ``label(key)`` (its words).
FORMATS: dict[str, Callable[[Any, str, Callable[[str], str]], str]] = {
    "text": lambda value, lang, label: str(value),
    "label": _label,
    "bool": lambda value, lang, label: label("value.yes" if value else "value.no"),
    "us": lambda value, lang, label: format_number(value * 1e6, 1, lang),                   # seconds -> µs
    "ms": lambda value, lang, label: format_number(value * 1e3, 3, lang),                   # seconds -> ms
    "ratio": lambda value, lang, label: format_number(value, 1, lang) + "×",
    "ratio_plain": lambda value, lang, label: format_number(value, 1, lang),
    "verdict_ratio": lambda value, lang, label: format_number(value, RATIO_DECIMALS, lang),  # t_real / t_min
    "intensity": lambda value, lang, label: format_number(value, 3 if value < 1 else 1, lang),
    "share": lambda value, lang, label: format_percent(100 * value, 0, lang),               # 0..1 -> %
    "pct": lambda value, lang, label: format_percent(value, 1, lang),                       # already in %
    "gbps": lambda value, lang, label: format_number(value, 0, lang),
    "count": lambda value, lang, label: format_number(value, 0, lang),
    "decimal2": lambda value, lang, label: format_number(value, 2, lang),
    "decimal3": lambda value, lang, label: format_number(value, 3, lang),
    "bytes": lambda value, lang, label: format_bytes(value, lang),
}


class ColumnKindError(LabkitError, ValueError):
    """A column declared with a kind FORMATS does not know."""


@dataclass(frozen=True)
class Column:
    """A column: its id (a label key ``column.<id>``) and the kind of its cells (a key of FORMATS),
    checked here, when the lab declares it."""

    id: str
    kind: str = "text"

    def __post_init__(self) -> None:
        if self.kind not in FORMATS:
            raise ColumnKindError(f"column {self.id!r}: unknown kind {self.kind!r}; the kinds are "
                                  f"{', '.join(FORMATS)} (labkit/report/tables.py)")


@dataclass(frozen=True)
class Table:
    id: str
    columns: tuple[Column, ...]
    rows: tuple[tuple, ...]


def format_cell(value, kind: str, lang: str, label) -> str:
    """One cell for a reader (FORMATS[kind]); an empty cell (None) is a dash."""
    if value is None:
        return "—"
    return FORMATS[kind](value, lang, label)


#: The two SM clocks of a timed measurement, side by side (issue 29): the one it ran at, measured on
#: the GPU (labkit.gpu.timing), which every "% of peak" uses, and NVML's reading, kept as provenance.
CLOCK_COLUMNS = (Column("clock_ran_mhz", "count"), Column("clock_nvml_mhz", "count"))


def clock_cells(timing) -> tuple[float | None, float | None]:
    """CLOCK_COLUMNS' cells for a labkit.gpu.timing.Timing (None: no timing; the first is None in a
    record from before issue 29)."""
    return (None, None) if timing is None else (timing.sm_clock_ran_mhz, timing.sm_clock_mhz)
