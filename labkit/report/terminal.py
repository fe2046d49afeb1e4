"""Tables in the terminal, in English (or the language asked: a notebook's), never cutting a value.

A table is printed as a grid when every cell fits on one line within the console's width; when
it does not (an 80-column terminal, a narrow pipe), each row becomes a block of "column: value"
lines. Values are never shortened or split: a line longer than the terminal wraps the way the
terminal wraps it, and a log or a pipe gets it whole.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable
from rich.text import Text

from labkit.report.labels import label
from labkit.report.tables import Table, format_cell

#: A grid's border and padding per column, and its closing border.
GRID_COLUMN_OVERHEAD = 3
GRID_EDGE = 1


def english(key: str) -> str:
    return label("en", key)


def cells(table: Table, lang: str = "en") -> list[list[str]]:
    """Every cell as the terminal shows it."""
    words = lambda key: label(lang, key)  # noqa: E731
    return [[format_cell(v, c.kind, lang, words) for v, c in zip(row, table.columns)] for row in table.rows]


def grid_width(table: Table, shown: list[list[str]], lang: str = "en") -> int:
    """The width a grid needs with each column as wide as its widest cell or its header (rich
    shrinks every column of a grid that is too wide, values included, rather than wrap headers)."""
    widest = [max([len(row[i]) for row in shown] + [len(label(lang, f"column.{c.id}"))])
              for i, c in enumerate(table.columns)]
    return sum(widest) + GRID_COLUMN_OVERHEAD * len(widest) + GRID_EDGE


def show_table(table: Table, console: Console, lang: str = "en") -> None:
    title = label(lang, f"table.{table.id}")
    shown = cells(table, lang)
    if grid_width(table, shown, lang) <= console.width:
        grid = RichTable(title=title, title_justify="left")
        for column in table.columns:
            grid.add_column(label(lang, f"column.{column.id}"), overflow="fold",
                            justify="left" if column.kind in ("text", "label") else "right")
        for row in shown:
            grid.add_row(*(Text(cell, no_wrap=True) for cell in row))
        console.print(grid)
        return
    console.print(Text(title, style="bold"), soft_wrap=True)
    headers = [label(lang, f"column.{c.id}") for c in table.columns]
    for row in shown:
        for index, (header, cell) in enumerate(zip(headers, row)):
            console.print(Text(f"{'- ' if index == 0 else '  '}{header}: {cell}"), soft_wrap=True)


def show_tables(tables: list[Table], console: Console, lang: str = "en") -> None:
    for table in tables:
        show_table(table, console, lang)
