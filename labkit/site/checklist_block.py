"""The ``/// checklist | course`` block: chapter 5's checklist (labkit.profiling.checklist) as a
table, in the chapter's order, each item with its symptom, its lever, the sections to read, and the
gains its lever gave in this course's labs, read from every lab's recorded results (``Lab.gains``).

A section of a chapter not yet in the site is named, not linked ("coming"); a gain comes from a
results file or is not shown. The labels' text is kept from Markdown's inline parsing, so that an
identifier such as ``__launch_bounds__`` is shown as written, not as bold "launch_bounds".
"""

from __future__ import annotations

import posixpath
import xml.etree.ElementTree as etree
from collections import defaultdict
from pathlib import Path

from markdown.util import AtomicString

from labkit.chapters import page
from labkit.errors import LabkitError
from labkit.labs.base import labs
from labkit.labs.recorded import read_recorded
from labkit.profiling.checklist import ITEMS, Reading
from labkit.project import Project
from labkit.records.files import recorded_paths
from labkit.report.diagnosis_text import item_words
from labkit.report.labels import label
from labkit.report.numbers import format_number
from labkit.site.block_extension import LanguageBlockExtension, PageBlock

#: Where the chapter that holds the block lives, relative to docs/<lang>/ (links are made from there).
CHAPTER = page(5)


def gain_decimals(ratio: float) -> int:
    """Decimals of a gain: two under 2× (a few percent stays visible), one above."""
    return 2 if ratio < 2 else 1


def measured_gains(project: Project) -> dict[str, list[tuple[float, str, str]]]:
    """Item id -> [(ratio, context label key, GPU)] from every lab's records, in lab order."""
    found: dict[str, list[tuple[float, str, str]]] = defaultdict(list)
    for the_lab in labs().values():
        for path in recorded_paths(the_lab.lab_dir(project), project.relative):
            document = read_recorded(the_lab, path, project)
            for gain in the_lab.gains(document.results):
                found[gain.item].append((gain.ratio, gain.context, document.provenance.gpu))
    return found


def reading_link(parent: etree.Element, reading: Reading, docs: Path, lang: str) -> None:
    """A link to the section where its page exists in this language; its name and "(coming)" otherwise."""
    text = AtomicString(label(lang, reading.key))
    if (docs / lang / reading.page).is_file():
        href = posixpath.relpath(reading.page, posixpath.dirname(CHAPTER))
        link = etree.SubElement(parent, "a", {"href": href + (f"#{reading.anchor}" if reading.anchor else "")})
        link.text = text
    else:
        etree.SubElement(parent, "span", {"class": "checklist-coming"}).text = AtomicString(label(lang, "checklist.coming").format(
            section=text))


def render_checklist(block: etree.Element, project: Project, lang: str) -> None:
    gains = measured_gains(project)
    wrapper = etree.SubElement(etree.SubElement(block, "div", {"class": "md-typeset__scrollwrap"}),
                               "div", {"class": "md-typeset__table"})
    table = etree.SubElement(wrapper, "table", {"data-checklist": "course"})
    head = etree.SubElement(etree.SubElement(table, "thead"), "tr")
    for column in ("number", "item", "symptom", "lever", "read", "measured_gain"):
        etree.SubElement(head, "th").text = AtomicString(label(lang, f"column.{column}"))
    body = etree.SubElement(table, "tbody")
    level = None
    for number, entry in enumerate(ITEMS, start=1):
        if entry.level != level:
            level = entry.level
            row = etree.SubElement(body, "tr", {"class": "checklist-level"})
            etree.SubElement(row, "td", {"colspan": "6"}).text = AtomicString(
                f"{level.value} · {label(lang, f'level.{level.value}')}")
        row = etree.SubElement(body, "tr", {"data-item": entry.id})
        etree.SubElement(row, "td").text = str(number)
        title = etree.SubElement(row, "td")
        link = etree.SubElement(title, "a", {"href": f"#{entry.id}"})
        link.text = AtomicString(item_words(lang, entry.id, "title"))
        if not entry.in_reports:
            etree.SubElement(title, "br").tail = AtomicString(label(lang, "checklist.not_in_reports"))
        etree.SubElement(row, "td").text = AtomicString(item_words(lang, entry.id, "symptom"))
        etree.SubElement(row, "td").text = AtomicString(item_words(lang, entry.id, "lever"))
        reads = etree.SubElement(row, "td")
        for position, reading in enumerate(entry.readings):
            if position:
                etree.SubElement(reads, "br")
            reading_link(reads, reading, project.docs_dir, lang)
        cell = etree.SubElement(row, "td", {"data-column": "measured_gain"})
        measured = gains.get(entry.id, [])
        if not measured:
            cell.text = AtomicString(label(lang, "checklist.no_gain_yet"))
        for position, (ratio, context, gpu) in enumerate(measured):
            if position:
                etree.SubElement(cell, "br")
            strong = etree.SubElement(cell, "strong")
            strong.text = format_number(ratio, gain_decimals(ratio), lang) + "×"
            strong.tail = AtomicString(f" {label(lang, context)} ({gpu})")


class ChecklistBlock(PageBlock):
    NAME = "checklist"
    ARGUMENT = True

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": "checklist"})

    def on_end(self, block: etree.Element) -> None:
        if self.argument.strip() != "course":
            raise self.fail(f"checklist block '{self.argument.strip()}': the only checklist is '/// checklist | course'")
        try:
            render_checklist(block, self.project(), self.config["lang"])
        except LabkitError as exc:
            raise self.fail(f"checklist block: {exc}") from None


class ChecklistExtension(LanguageBlockExtension):
    BLOCK = ChecklistBlock


def makeExtension(*args, **kwargs):
    return ChecklistExtension(*args, **kwargs)
