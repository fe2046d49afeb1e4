"""The ``/// lab | lab-NN`` block: a lab's recorded results, rendered into the chapter.

The Markdown inside the block introduces the lab; below it come, for each GPU the lab was
recorded on, the provenance line, the lab's tables and its figures, in the page's language.
A results file that fails its schema fails the build, naming the file and the field.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from pymdownx.blocks.block import Block

from labkit.site.block_extension import LanguageBlockExtension
from labkit.labs import load_lab
from labkit.labs.tables import format_cell
from labkit.results import load_results, recorded_files
from labkit.site.labels import label


def render_table(parent: etree.Element, table, lang: str) -> None:
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


def provenance_line(parent: etree.Element, prov: dict, lang: str) -> None:
    line = etree.SubElement(parent, "p", {"class": "lab-provenance"})
    etree.SubElement(line, "strong").text = label(lang, "lab.recorded_on") + " "
    clocks = prov["clocks_mhz"]
    text = (f"{prov['gpu']} · CC {prov['compute_capability']} · driver {prov['driver']} · "
            f"SM {clocks['sm']} MHz · mem {clocks['memory']} MHz · "
            + " · ".join(f"{k} {v}" for k, v in sorted(prov["versions"].items()))
            + f" · labkit {prov['labkit_version']} · commit {prov['git_commit'][:12]} · {prov['utc_time']}")
    etree.SubElement(line, "code").text = text


class LabBlock(Block):
    NAME = "lab"
    ARGUMENT = True

    def on_create(self, parent: etree.Element) -> etree.Element:
        return etree.SubElement(parent, "div", {"class": "lab"})

    def on_end(self, block: etree.Element) -> None:
        lang = self.config["lang"]
        lab = load_lab(self.argument.strip())
        block.set("data-lab-id", lab.LAB_ID)
        block.set("id", lab.LAB_ID)
        files = recorded_files(lab.LAB_DIR)
        if not files:
            note = etree.SubElement(block, "p", {"class": "lab-empty"})
            note.text = label(lang, "lab.no_results") + " "
            etree.SubElement(note, "code").text = f"make {lab.LAB_ID}"
            return
        for path in files:
            document = load_results(path, lab.LAB_ID, lab.RESULTS_SCHEMA)
            recorded = etree.SubElement(block, "div", {"class": "lab-recorded", "data-results": path.name})
            provenance_line(recorded, document["provenance"], lang)
            for table in lab.tables(document["results"]):
                render_table(recorded, table, lang)
            for figure in lab.figures(document["results"], lang):
                recorded.append(figure)


class LabExtension(LanguageBlockExtension):
    """Registers the lab block."""

    BLOCK = LabBlock


def makeExtension(*args, **kwargs):
    return LabExtension(*args, **kwargs)
