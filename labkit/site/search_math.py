"""Formulas in the search index as text a reader can read: Material's search shows each section's
text as written, and the index holds arithmatex's TeX source (``\\(t_\\text{réel} / t_{\\min}\\)``),
which no search snippet renders. The plugin rewrites the index after Material writes it: each
formula becomes its plain-text reading (``t_réel / t_min``), so that a snippet shows no TeX.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

#: TeX commands and what they read as.
SYMBOLS = {
    "times": "×", "cdot": "·", "le": "≤", "leq": "≤", "ge": "≥", "geq": "≥", "approx": "≈", "ne": "≠",
    "neq": "≠", "oplus": "⊕", "bmod": " mod ", "mod": " mod ", "leftarrow": "←", "rightarrow": "→", "to": "→",
    "iff": "⟺", "infty": "∞", "ell": "ℓ", "lambda": "λ", "eta": "η", "gamma": "γ", "alpha": "α", "beta": "β",
    "mu": "μ", "sigma": "σ", "pi": "π", "Delta": "Δ", "sum": "Σ", "pm": "±", "ldots": "…", "cdots": "…",
    "lceil": "⌈", "rceil": "⌉", "lfloor": "⌊", "rfloor": "⌋", "sqrt": "√", "left": "", "right": "",
    ",": " ", ";": " ", ":": " ", "!": "", " ": " ", "quad": " ", "qquad": " ", "%": "%", "{": "{", "}": "}",
}
_FORMULA = re.compile(r"\\\((.*?)\\\)|\\\[(.*?)\\\]", re.S)
_TEXT = re.compile(r"\\(?:text|mathrm|textrm|mathbf|mathit|operatorname)\s*\{([^{}]*)\}")
_FRACTION = re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_COMMAND = re.compile(r"\\([A-Za-z]+|[^A-Za-z])")
_GROUP = re.compile(r"([_^])\{([^{}]*)\}")


def _operand(text: str) -> str:
    return text if re.fullmatch(r"[\w.]+", text) else f"({text})"


def math_as_text(tex: str) -> str:
    """A formula's TeX as plain text: \\text{..} its words, \\frac{a}{b} a/b, symbols as Unicode,
    subscripts after an underscore (t_réel), other commands by their name (\\min: min)."""
    text = tex
    for _ in range(4):   # nested groups, innermost first
        text = _TEXT.sub(r"\1", text)
        text = _FRACTION.sub(lambda m: f"{_operand(m.group(1).strip())}/{_operand(m.group(2).strip())}", text)
    text = _COMMAND.sub(lambda m: SYMBOLS.get(m.group(1), m.group(1)), text)
    for _ in range(2):
        text = _GROUP.sub(lambda m: m.group(1) + (m.group(2) if re.fullmatch(r"\w+", m.group(2)) else f"({m.group(2)})"),
                          text)
    text = text.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


def readable_formulas(text: str) -> str:
    """``text`` with each ``\\(..\\)`` and ``\\[..\\]`` formula as its plain-text reading."""
    return _FORMULA.sub(lambda m: math_as_text(m.group(1) if m.group(1) is not None else m.group(2)), text)


def rewrite_search_index(index: Path) -> None:
    """Material's search index with every formula of its titles and texts readable."""
    data = json.loads(index.read_text(encoding="utf-8"))
    for doc in data["docs"]:
        doc["title"], doc["text"] = readable_formulas(doc["title"]), readable_formulas(doc["text"])
    index.write_text(json.dumps(data, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
