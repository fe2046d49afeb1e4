"""Interface words: the site's widgets (French, Chinese) and the labs' tables (those two and
English, for the terminal). Each module of this package holds ``WORDS = {key: (en, fr, zh)}`` for
one part of the course (the site, a lab, the diagnosis); they are merged here, and a key defined
twice, or a word missing, fails loudly naming the module, the language and the key. A new lab adds
its own module.
"""

from __future__ import annotations

import importlib
import pkgutil

from labkit.errors import LabkitError

#: Each language of the site: its name in the switcher and where it lives in the built site.
LANGUAGES: dict[str, dict[str, str]] = {
    "fr": {"name": "Français", "root": ""},
    "zh": {"name": "中文", "root": "zh/"},
}
#: The languages of every word, in the order of the tuples: the terminal's, then the site's.
WORD_LANGUAGES = ("en", "fr", "zh")


class MissingLabelError(LabkitError, KeyError):
    """A label asked for that no module of this package defines (a KeyError too, for callers that
    look a key up to see whether it exists)."""

    def __str__(self) -> str:
        return str(self.args[0])


#: Which module defines each key (``lab02`` for ``table.lab02.sweep``).
ORIGIN: dict[str, str] = {}


def _merged() -> dict[str, dict[str, str]]:
    words: dict[str, tuple[str, str, str]] = {}
    origin = ORIGIN
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda info: info.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for key, spelled in module.WORDS.items():
            if key in words:
                raise ValueError(f"label '{key}' is defined in both labkit/report/labels/{origin[key]}.py and "
                                 f"{info.name}.py")
            if len(spelled) != len(WORD_LANGUAGES) or not all(spelled):
                raise ValueError(f"label '{key}' in labkit/report/labels/{info.name}.py needs one word per "
                                 f"language {WORD_LANGUAGES}")
            words[key], origin[key] = spelled, info.name
    return {lang: {key: spelled[index] for key, spelled in words.items()}
            for index, lang in enumerate(WORD_LANGUAGES)}


LABELS = _merged()


def label(lang: str, key: str) -> str:
    try:
        return LABELS[lang][key]
    except KeyError:
        raise MissingLabelError(f"no '{key}' label for language '{lang}': add it to {home_of(key)}") from None


def home_of(key: str) -> str:
    """The module where a missing key belongs: the one defining the most keys that share its
    longest dotted prefix (``table.lab02.sweep`` -> ``labkit/report/labels/lab02.py``)."""
    parts = key.split(".")
    for length in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:length]) + "."
        modules = [module for known, module in ORIGIN.items() if known.startswith(prefix)]
        if modules:
            module = max(set(modules), key=modules.count)
            return f"labkit/report/labels/{module}.py (beside the other '{prefix}' labels)"
    return "a module of labkit/report/labels/"
