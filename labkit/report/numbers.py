"""Numbers as each language writes them."""

from __future__ import annotations


def format_number(value: float, decimals: int, lang: str) -> str:
    """French: decimal comma and a narrow no-break space between thousands; Chinese and English: 3.3, 2,900."""
    text = f"{value:,.{decimals}f}"
    if lang == "fr":
        return text.replace(",", "\u202f").replace(".", ",")
    return text


def format_percent(value: float, decimals: int, lang: str) -> str:
    """``value`` percent: French puts a narrow no-break space before the sign (93 %), Chinese and
    English none (93%)."""
    return format_number(value, decimals, lang) + ("\u202f%" if lang == "fr" else "%")
