"""Numbers and sizes as each language writes them, and the table kinds that use them."""

import pytest

from labkit.report.numbers import format_bytes
from labkit.report.tables import FORMATS, Column, ColumnKindError, format_cell


@pytest.mark.parametrize("value, fr, zh", [
    (100, "100\u202foctets", "100 B"),
    (4096, "4\u202fKio", "4 KiB"),
    (3 << 19, "1,5\u202fMio", "1.5 MiB"),
    (60 << 20, "60\u202fMio", "60 MiB"),
    (1 << 30, "1\u202fGio", "1 GiB"),
])
def test_sizes_take_the_largest_binary_prefix(value, fr, zh):
    assert format_bytes(value, "fr") == fr
    assert format_bytes(value, "zh") == zh
    assert format_bytes(value, "en") == zh


def test_the_two_decimal_and_bytes_kinds():
    assert format_cell(0.875, "decimal2", "fr", str) == "0,88"
    assert format_cell(0.875, "decimal2", "zh", str) == "0.88"
    assert format_cell(8192, "bytes", "zh", str) == "8 KiB"
    assert format_cell(None, "bytes", "zh", str) == "—"


def test_a_column_kind_is_checked_when_it_is_declared():
    with pytest.raises(ColumnKindError, match="column 'x': unknown kind 'gpbs'; the kinds are text, label,"):
        Column("x", "gpbs")
    assert Column("x", "gbps").kind == "gbps"


@pytest.mark.parametrize("kind", FORMATS)
def test_every_kind_formats_a_number(kind):
    shown = format_cell(True if kind == "bool" else 1.5, kind, "fr", lambda key: key)
    assert isinstance(shown, str) and shown
