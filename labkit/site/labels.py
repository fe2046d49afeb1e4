"""Interface words of the site's own widgets, per language. A missing word fails loudly."""

from __future__ import annotations

#: Each language of the site: its name in the switcher and where it lives in the built site.
LANGUAGES: dict[str, dict[str, str]] = {
    "fr": {"name": "Français", "root": ""},
    "zh": {"name": "中文", "root": "zh/"},
}

LABELS: dict[str, dict[str, str]] = {
    "fr": {
        "quiz": "Auto-évaluation",
        "answer": "Réponse et explication",
        "right_option": "Bonne réponse",
        "expected": "Valeur attendue",
        "right": "Juste !",
        "wrong": "Pas tout à fait : relisez l'explication.",
        "check": "Vérifier",
    },
    "zh": {
        "quiz": "自测",
        "answer": "答案与解析",
        "right_option": "正确答案",
        "expected": "期望值",
        "right": "答对了！",
        "wrong": "不对，请看解析。",
        "check": "检查",
    },
}


def label(lang: str, key: str) -> str:
    try:
        return LABELS[lang][key]
    except KeyError:
        raise KeyError(f"no '{key}' label for language '{lang}': add it to labkit/site/labels.py") from None
