"""The ``/// lab | lab-NN`` block: a lab's recorded results, rendered into the chapter.

The Markdown inside the block introduces the lab; below it come, for each GPU the lab was
recorded on: one line saying which GPU measured it and when (the date as the page's language
writes it), the lab's tables and its figures, in the page's language, then the whole provenance
(driver, clocks, library versions, commit, UTC time) folded under them.
A results file that cannot be trusted fails the build in one line naming the file, the field
and the fix.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree
from datetime import datetime
from pathlib import PurePosixPath

from labkit.commands import notebooks as notebook_service
from labkit.errors import LabkitError
from labkit.labs.base import Lab, lab
from labkit.labs.recorded import read_recorded
from labkit.project import Project
from labkit.records.files import Provenance, recorded_paths
from labkit.records.tracked import MissingRecordError, missing_message, missing_records
from labkit.report.labels import label
from labkit.report.numbers import format_number
from labkit.report.tables import Table, format_cell
from labkit.site.block_extension import LanguageBlockExtension, PageBlock


def render_table(parent: etree.Element, table: Table, lang: str) -> None:
    words = lambda key: label(lang, key)  # noqa: E731
    caption = etree.SubElement(parent, "p", {"class": "lab-table-title"})
    etree.SubElement(caption, "strong").text = words(f"table.{table.id}")
    # Material styles (and scrolls) unclassed tables inside these two wrappers.
    wrapper = etree.SubElement(etree.SubElement(parent, "div", {"class": "md-typeset__scrollwrap"}),
                               "div", {"class": "md-typeset__table"})
    html_table = etree.SubElement(wrapper, "table", {"data-table": table.id})
    head = etree.SubElement(etree.SubElement(html_table, "thead"), "tr")
    for column in table.columns:
        etree.SubElement(head, "th").text = words(f"column.{column.id}")
    body = etree.SubElement(html_table, "tbody")
    for row in table.rows:
        tr = etree.SubElement(body, "tr")
        for value, column in zip(row, table.columns):
            cell = etree.SubElement(tr, "td", {"data-column": column.id})
            cell.text = format_cell(value, column.kind, lang, words)


FRENCH_MONTHS = ("janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
                 "novembre", "décembre")


def local_date(moment: datetime, lang: str) -> str:
    """The day of a UTC time as the language writes it: 30 novembre 2026, 2026 年 11 月 30 日."""
    if lang == "fr":
        return f"{'1er' if moment.day == 1 else moment.day} {FRENCH_MONTHS[moment.month - 1]} {moment.year}"
    if lang == "zh":
        return f"{moment.year} 年 {moment.month} 月 {moment.day} 日"
    return moment.strftime("%d %B %Y").lstrip("0")


def measured_line(parent: etree.Element, prov: Provenance, lang: str) -> None:
    """The record's first line: which GPU, when, at what clock."""
    line = etree.SubElement(parent, "p", {"class": "lab-measured"})
    line.text = label(lang, "lab.measured_on").format(
        gpu=prov.gpu, date=local_date(prov.utc_time, lang), cc=prov.compute_capability,
        sm=format_number(prov.clocks_mhz.sm, 0, lang))


def provenance_details(parent: etree.Element, prov: Provenance, lang: str) -> None:
    """Everything the record says about where it comes from, folded."""
    details = etree.SubElement(parent, "details", {"class": "lab-provenance"})
    etree.SubElement(details, "summary").text = label(lang, "lab.provenance")
    clocks = prov.clocks_mhz
    text = (f"{prov.gpu} · CC {prov.compute_capability} · {label(lang, 'lab.provenance.driver')} {prov.driver} · "
            f"SM {format_number(clocks.sm, 0, lang)} MHz · {label(lang, 'lab.provenance.memory')} "
            f"{format_number(clocks.memory, 0, lang)} MHz · "
            + " · ".join(f"{k} {v}" for k, v in sorted(prov.versions.items()))
            + f" · labkit {prov.labkit_version} · commit {prov.git_commit[:12]} · {prov.utc_time.isoformat()}")
    etree.SubElement(etree.SubElement(details, "p"), "code").text = text


def notebook_link(parent: etree.Element, the_lab: Lab, lang: str) -> None:
    """A link to download the lab's notebook (.ipynb, made at build time), written relative to the
    chapter's source file as any Markdown link is: MkDocs checks it and turns it into the page's URL."""
    up = "../" * (len(PurePosixPath(the_lab.chapter).parts) - 1)
    line = etree.SubElement(parent, "p", {"class": "lab-notebook"})
    link = etree.SubElement(line, "a", {"href": up + PurePosixPath(the_lab.notebook).with_suffix(".ipynb").as_posix(),
                                        "download": ""})
    link.text = label(lang, "lab.notebook_download")
    link.tail = f" ({the_lab.id}, Jupyter)"


def colab_link(block: etree.Element, the_lab: Lab, project: Project, lang: str) -> None:
    """"Open in Colab", when the course's public repository is configured (labkit.commands.notebooks):
    a plain link, nothing is asked of Colab until a reader follows it."""
    url = notebook_service.colab_url(notebook_service.repository_url(project.root), the_lab.notebook)
    if url is None:
        return
    line = etree.SubElement(block, "p", {"class": "lab-colab"})
    link = etree.SubElement(line, "a", {"href": url, "rel": "noopener"})
    link.text = label(lang, "lab.open_in_colab")
    link.tail = f" ({label(lang, 'lab.colab_without_gpu')})"


def render_lab(block: etree.Element, the_lab: Lab, project: Project, lang: str) -> None:
    """The notebook's download link, then every GPU's record of the lab, or how to make one."""
    notebook_link(block, the_lab, lang)
    colab_link(block, the_lab, project, lang)
    for name in missing_records(project.root, the_lab.folder):   # a course record lost: never "no results yet"
        raise MissingRecordError(missing_message(the_lab.id, name, project.root))
    paths = recorded_paths(the_lab.lab_dir(project), project.relative)
    if not paths:
        note = etree.SubElement(block, "p", {"class": "lab-empty"})
        note.text = label(lang, "lab.no_results") + " "
        etree.SubElement(note, "code").text = f"make {the_lab.id}"
        return
    for path in paths:
        document = read_recorded(the_lab, path, project)
        recorded = etree.SubElement(block, "div", {"class": "lab-recorded", "data-results": path.name})
        measured_line(recorded, document.provenance, lang)
        for table in the_lab.tables(document.results):
            render_table(recorded, table, lang)
        for figure in the_lab.figures(document.results, lang):
            recorded.append(figure)
        provenance_details(recorded, document.provenance, lang)


class LabBlock(PageBlock):
    NAME = "lab"
    ARGUMENT = True

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": "lab"})

    def on_end(self, block: etree.Element) -> None:
        lab_id = self.argument.strip()
        try:
            the_lab = lab(lab_id)
            block.set("data-lab-id", the_lab.id)
            block.set("id", the_lab.id)
            render_lab(block, the_lab, self.project(), self.config["lang"])
        except LabkitError as exc:
            raise self.fail(f"lab block '{lab_id}': {exc}") from None


class LabExtension(LanguageBlockExtension):
    """Registers the lab block."""

    BLOCK = LabBlock


def makeExtension(*args, **kwargs):
    return LabExtension(*args, **kwargs)
