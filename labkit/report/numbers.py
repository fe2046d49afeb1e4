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


#: Binary prefixes as each language writes them (French: octet, so Kio, Mio, Gio).
_BINARY_UNITS = {"fr": ("octets", "Kio", "Mio", "Gio", "Tio"), "zh": ("B", "KiB", "MiB", "GiB", "TiB"),
                 "en": ("B", "KiB", "MiB", "GiB", "TiB")}


def format_bytes(value: float, lang: str) -> str:
    """A size with the largest binary prefix that leaves at least 1 (4096 -> 4 KiB, 1.5 MiB),
    one decimal where it is not whole, French units in French (Kio, Mio)."""
    units = _BINARY_UNITS["fr" if lang == "fr" else "zh" if lang == "zh" else "en"]
    power = 0
    while power < len(units) - 1 and abs(value) >= 1024 ** (power + 1):
        power += 1
    scaled = value / 1024 ** power
    decimals = 0 if power == 0 or scaled == round(scaled) else 1
    space = "\u202f" if lang == "fr" else " "
    return format_number(scaled, decimals, lang) + space + units[power]
