"""A block and its twin in the other language must agree where the site uses one definition for
both: the build refuses a page whose block differs from the same block (kind and id) of the same
page in another language, in one line naming both places.

- A quiz's option letters: its answer key (labkit.course.quizzes) is one for both languages, so a quiz
  with options a-d in French and a-c in Chinese grades one of them against an option it lacks.
- A block's option keys (``unit:`` makes a quiz numeric), and the values of the options that are
  not words of the page's language (every option but a quiz's ``unit``: a profile's ``metrics``, a
  diagnosis's ``after``), which select what the block shows.

- A block in one language only: every block is in both (the course's rule: both languages
  together), so a lab, quiz or exercise is not missing from one site. One line per page and twin
  names every block that one side alone has, so a renamed block is one line, not two.

The rest of the pages' parity (sections, diagrams) is labkit.site.inventory's, checked by
``labkit chapter`` and the tests.
"""

from __future__ import annotations

from pathlib import Path

from labkit.site import syntax
from labkit.site.inventory import OPTION

#: Options whose value is written in the page's language (may differ between twins): (kind, key).
TRANSLATED_OPTIONS = {("quiz", "unit")}


def twin_problems(markdown: str, first_line: int, where: str, twins: dict[str, Path]) -> list[str]:
    """Each block of ``markdown`` (the page ``where``) that disagrees with its twin in one of
    ``twins`` (the same page in each other language: its ``docs/<lang>/...`` name -> file)."""
    ours = {(block.kind, block.id): block for block in syntax.blocks(syntax.read(markdown, first_line))}
    problems = []
    for other_where, path in twins.items():
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue   # its own build names it
        theirs = {(block.kind, block.id): block for block in syntax.blocks(syntax.read_page(text))}
        presence = _presence(ours, theirs)
        if presence:
            problems.append(f"{where}: its blocks and those of its twin {other_where} differ: {presence}: every "
                            "block is in both languages: give both pages the same blocks")
        for key in ours.keys() & theirs.keys():
            difference = _difference(ours[key], theirs[key])
            if difference:
                block, here, there = ours[key], *difference
                problems.append(f"{where}, line {block.line}: {block.kind} {block.id}: {here} here, {there} in its "
                                f"twin {other_where}, line {theirs[key].line}: the site builds both from one "
                                "definition: give them the same")
    return problems


def _presence(ours: dict, theirs: dict) -> str:
    """The blocks in one page only, in one phrase ("" where both have the same): a block renamed or
    dropped in one language is one line, naming what each side alone has and where."""
    parts = []
    for label, only, blocks in (("only here", ours.keys() - theirs.keys(), ours),
                                ("only there", theirs.keys() - ours.keys(), theirs)):
        if only:
            parts.append(f"{label} " + ", ".join(f"{kind} {id_} (line {blocks[(kind, id_)].line})"
                                                 for kind, id_ in sorted(only)))
    return "; ".join(parts)


def _difference(ours: syntax.Block, theirs: syntax.Block) -> tuple[str, str] | None:
    """(what this block has, what its twin has), where they differ; None where they agree."""
    if ours.kind == "quiz":
        mine, other = OPTION.findall(ours.prose), OPTION.findall(theirs.prose)
        if mine != other:
            return f"options ({_listed(mine)})", f"({_listed(other)})"
    mine, other = _options(ours), _options(theirs)
    if sorted(mine) != sorted(other):
        return f"option lines ({_listed(sorted(mine))})", f"({_listed(sorted(other))})"
    for key in sorted(mine):
        if (ours.kind, key) not in TRANSLATED_OPTIONS and mine[key] != other[key]:
            return f"'{key}: {mine[key]}'", f"'{key}: {other[key]}'"
    return None


def _options(block: syntax.Block) -> dict[str, str]:
    return {option.text.split(":", 1)[0].strip(): option.text.split(":", 1)[1].strip() for option in block.options}


def _listed(items: list[str]) -> str:
    return ", ".join(items) or "none"
