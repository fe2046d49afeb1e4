"""Language-neutral tables of recorded results, shared by the CLI and the site.

A lab turns its results into ``Table`` objects: ids for the title and columns, raw values in
the cells. Whoever shows them (the terminal in English, a chapter in French or Chinese) looks
the ids up in labkit.report.labels and formats each cell by its column's kind.
"""

from __future__ import annotations

from dataclasses import dataclass

from labkit.report.numbers import format_bytes, format_number, format_percent
from labkit.roofline import RATIO_DECIMALS

#: Cell kinds: how a raw value is shown.
KINDS = ("text", "label", "us", "ms", "ratio", "ratio_plain", "verdict_ratio", "intensity", "share", "pct", "gbps",
         "count", "bool", "decimal2", "decimal3", "bytes")


@dataclass(frozen=True)
class Labelled:
    """A 'label' cell whose words take numbers: ``label(key)`` formatted with ``values``, each
    number written in the reader's language (no decimals)."""

    key: str
    values: dict[str, float]


@dataclass(frozen=True)
class Column:
    id: str
    kind: str = "text"


@dataclass(frozen=True)
class Table:
    id: str
    columns: tuple[Column, ...]
    rows: tuple[tuple, ...]


def format_cell(value, kind: str, lang: str, label) -> str:
    """One cell for a reader: ``label(key)`` translates 'label' cells and booleans."""
    if value is None:
        return "—"
    if kind == "label":
        if isinstance(value, Labelled):
            return label(f"value.{value.key}").format(
                **{name: format_number(number, 0, lang) for name, number in value.values.items()})
        return label(f"value.{value}")
    if kind == "bool":
        return label("value.yes" if value else "value.no")
    if kind == "us":
        return format_number(value * 1e6, 1, lang)
    if kind == "ms":
        return format_number(value * 1e3, 3, lang)
    if kind == "ratio":
        return format_number(value, 1, lang) + "×"
    if kind == "share":
        return format_percent(100 * value, 0, lang)
    if kind == "intensity":
        return format_number(value, 3 if value < 1 else 1, lang)
    if kind == "ratio_plain":
        return format_number(value, 1, lang)
    if kind == "verdict_ratio":  # t_real / t_min, as the verdict judges it
        return format_number(value, RATIO_DECIMALS, lang)
    if kind == "pct":
        return format_percent(value, 1, lang)
    if kind == "gbps":
        return format_number(value, 0, lang)
    if kind == "count":
        return format_number(value, 0, lang)
    if kind == "decimal2":
        return format_number(value, 2, lang)
    if kind == "decimal3":
        return format_number(value, 3, lang)
    if kind == "bytes":
        return format_bytes(value, lang)
    return str(value)
