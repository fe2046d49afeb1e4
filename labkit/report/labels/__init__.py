"""Interface words: the site's widgets (French, Chinese) and the labs' tables (those two and
English, for the terminal). Each module of this package holds ``WORDS = {key: (en, fr, zh)}`` for
one part of the course (the site, a lab, the diagnosis); they are merged here, and a key defined
twice, or a word missing, fails loudly naming the module, the language and the key. A new lab adds
its own module.
"""

from __future__ import annotations

import importlib
import pkgutil

#: Each language of the site: its name in the switcher and where it lives in the built site.
LANGUAGES: dict[str, dict[str, str]] = {
    "fr": {"name": "Français", "root": ""},
    "zh": {"name": "中文", "root": "zh/"},
}
#: The languages of every word, in the order of the tuples: the terminal's, then the site's.
WORD_LANGUAGES = ("en", "fr", "zh")


def _merged() -> dict[str, dict[str, str]]:
    words: dict[str, tuple[str, str, str]] = {}
    origin: dict[str, str] = {}
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
        raise KeyError(f"no '{key}' label for language '{lang}': add it to a module of labkit/report/labels/") from None
