"""Tables in the terminal, in English, with rich."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table as RichTable

from labkit.report.labels import label
from labkit.report.tables import Table, format_cell


def english(key: str) -> str:
    return label("en", key)


def show_tables(tables: list[Table], console: Console) -> None:
    for table in tables:
        rich_table = RichTable(title=english(f"table.{table.id}"), title_justify="left")
        for column in table.columns:
            rich_table.add_column(english(f"column.{column.id}"),
                                  justify="left" if column.kind in ("text", "label") else "right")
        for row in table.rows:
            rich_table.add_row(*(format_cell(v, c.kind, "en", english) for v, c in zip(row, table.columns)))
        console.print(rich_table)
