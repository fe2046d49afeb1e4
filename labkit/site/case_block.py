"""The ``/// profile | lab-NN-key`` and ``/// diagnosis | lab-NN-key`` blocks: a kernel a lab
profiled (``Lab.cases``), shown in two steps so that the reader can guess first.

- ``profile``: what Nsight Compute shows of the kernel, for every GPU the lab was recorded on (no
  verdict, no rule: the evidence the reader judges). Every symptom the checklist reads has its row
  for every kernel, so that a row's presence gives nothing away; with ``    metrics: raw`` under the
  header, the symptoms and the busiest units are named by their ncu metrics, for the reader to
  interpret (labkit.report.diagnosis_text.card_rows);
- ``diagnosis``: folded, what `labkit diagnose` says of the same profile (the same text the
  command prints, in the page's language), the flaw that was planted, and what the repair gained.
  With ``    after: <quiz id>`` under the header, the page's script keeps it out of sight until
  that quiz is answered (without JavaScript it stays folded and readable).

Without a record, each says how to make one. Every text comes from labels and records, never from
Markdown: it is kept from Markdown's inline parsing (``__launch_bounds__`` stays as written).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree

from markdown.util import AtomicString
from pymdownx.blocks.block import type_string, type_string_in

from labkit.course.quizzes import ANSWER_KEY
from labkit.errors import LabkitError
from labkit.labs.base import Lab, lab
from labkit.labs.recorded import CaseError, recorded_cases
from labkit.models.roofline import RATIO_DECIMALS
from labkit.profiling import checklist
from labkit.project import Project
from labkit.report.diagnosis_text import card_rows, item_words, render_kernel, words
from labkit.report.labels import label
from labkit.report.numbers import format_number
from labkit.site.block_extension import LanguageBlockExtension, PageBlock

CASE_ID = re.compile(r"(lab-\d\d)-([a-z0-9_]+)")   # a case is a lab's key: tma_bf16


def _no_record(block: etree.Element, the_lab: Lab, lang: str) -> None:
    note = etree.SubElement(block, "p", {"class": "lab-empty"})
    note.text = label(lang, "lab.no_results") + " "
    etree.SubElement(note, "code").text = f"make {the_lab.id}"


def render_profile(block: etree.Element, the_lab: Lab, key: str, project: Project, lang: str,
                   options: dict | None = None) -> None:
    raw = (options or {}).get("metrics") == "raw"
    found = recorded_cases(the_lab, key, project)
    if not found:
        _no_record(block, the_lab, lang)
    for gpu, case in found:
        diagnosis = case.profile.diagnosis()
        caption = etree.SubElement(block, "p", {"class": "lab-table-title"})
        etree.SubElement(caption, "strong").text = AtomicString(
            label(lang, "profile.caption").format(kernel=case.profile.name, gpu=gpu))
        if raw:
            etree.SubElement(block, "p", {"class": "profile-raw-note"}).text = AtomicString(
                label(lang, "profile.raw_note"))
        wrapper = etree.SubElement(etree.SubElement(block, "div", {"class": "md-typeset__scrollwrap"}),
                                   "div", {"class": "md-typeset__table"})
        table = etree.SubElement(wrapper, "table", {"data-case": key, "data-metrics": "raw" if raw else "named"})
        body = etree.SubElement(table, "tbody")
        for heading, text, is_metric in card_rows(case.profile.profile(), diagnosis, lang, raw):
            row = etree.SubElement(body, "tr")
            th = etree.SubElement(row, "th")
            if is_metric:
                etree.SubElement(th, "code").text = AtomicString(heading)
            else:
                th.text = AtomicString(heading)
            etree.SubElement(row, "td").text = AtomicString(text)


def render_diagnosis(block: etree.Element, the_lab: Lab, key: str, project: Project, lang: str,
                     options: dict | None = None) -> None:
    after = (options or {}).get("after", "")
    if after:
        if after not in ANSWER_KEY:
            raise CaseError(f"'after: {after}' names no quiz: write the id of the quiz this diagnosis answers")
        block.set("data-after-quiz", after)
        etree.SubElement(block, "p", {"class": "case-locked-note"}).text = AtomicString(
            label(lang, "profile.locked"))
    found = recorded_cases(the_lab, key, project)
    if not found:
        _no_record(block, the_lab, lang)
    for gpu, case in found:
        diagnosis = case.profile.diagnosis()
        assessment = checklist.assess(diagnosis)
        details = etree.SubElement(block, "details", {"class": "case-diagnosis", "data-case": key})
        summary = "profile.summary_step" if case.step else "profile.summary"
        etree.SubElement(details, "summary").text = AtomicString(f"{label(lang, summary)} ({gpu})")
        pre = etree.SubElement(details, "pre", {"class": "diagnose-output"})
        etree.SubElement(pre, "code").text = AtomicString(f"$ labkit diagnose --lang {lang} …\n" + render_kernel(
            diagnosis, assessment, lang))
        verdict = etree.SubElement(details, "p")
        if case.step:
            verdict.text = (words(lang, "profile.next_step", title=label(lang, case.next_step))
                            if case.next_step is not None else label(lang, "profile.last_step"))
        elif case.planted is None:
            verdict.text = label(lang, "profile.control")
        else:
            verdict.text = words(lang, "profile.verdict_matches", title=item_words(lang, case.planted, "title"))
        if case.repaired_seconds is not None:
            verdict.text += " " + words(lang, "profile.twin_gain", {
                "gain_x": case.faulty_seconds / case.repaired_seconds, "faulty_us": case.faulty_seconds * 1e6,
                "repaired_us": case.repaired_seconds * 1e6})
        if case.ratio_to_min is not None:
            verdict.text += " " + label(lang, "profile.ratio_to_min").format(
                ratio=format_number(case.ratio_to_min, RATIO_DECIMALS, lang))
        verdict.text = AtomicString(verdict.text)


class _CaseBlock(PageBlock):
    ARGUMENT = True
    RENDER = staticmethod(render_profile)
    OPTIONS: dict = {}

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": f"case-{self.NAME}"})

    def on_end(self, block: etree.Element) -> None:
        argument = self.argument.strip()
        match = CASE_ID.fullmatch(argument)
        try:
            if match is None:
                raise CaseError(f"'{argument}' is not lab-NN-<case>, e.g. lab-05-a")
            project = self.project()
            self.RENDER(block, lab(match.group(1)), match.group(2), project, self.config["lang"], dict(self.options))
        except LabkitError as exc:
            raise self.fail(f"{self.NAME} block '{argument}': {exc}") from None


class ProfileBlock(_CaseBlock):
    NAME = "profile"
    RENDER = staticmethod(render_profile)
    OPTIONS = {"metrics": ["named", type_string_in(["named", "raw"])]}


class DiagnosisBlock(_CaseBlock):
    NAME = "diagnosis"
    RENDER = staticmethod(render_diagnosis)
    OPTIONS = {"after": ["", type_string]}


class ProfileExtension(LanguageBlockExtension):
    BLOCK = ProfileBlock


class DiagnosisExtension(LanguageBlockExtension):
    BLOCK = DiagnosisBlock
