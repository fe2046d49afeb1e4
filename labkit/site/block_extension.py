"""A Python-Markdown extension that registers one ``pymdownx.blocks`` block for a page language,
and the error every block raises: MkDocs' PluginError (one line, no traceback, in the build).

In the site's build, the labkit plugin passes a list of problems in the blocks' context: a block's
error is then logged and added to it, and the page goes on rendering, so that one build names
every mistake of every page (the plugin fails the build at its end). Anywhere else (Markdown
rendered by a test, by a tool) the error is raised."""

from __future__ import annotations

import logging
from pathlib import Path

from mkdocs.exceptions import PluginError
from pymdownx.blocks import BlocksExtension
from pymdownx.blocks.block import Block

from labkit.errors import LabkitError
from labkit.project import Project, find_project


class BlockError(PluginError, LabkitError):
    """An authoring mistake inside a block: the message names the page (when known), the block and the fix."""


class PageBlock(Block):
    """A block that knows which page it is on (``context['page']``, set by the labkit plugin)."""

    def fail(self, message: str) -> BlockError:
        page = self.config["context"].get("page")
        return BlockError(f"{page}: {message}" if page else message)

    def project(self) -> Project:
        """The course's folder: the extension's ``project`` option, or where it is empty the one
        found from the working directory."""
        root = self.config["project"]
        return Project(Path(root)) if root else find_project()


def _collecting(block_type: type[PageBlock]) -> type[PageBlock]:
    """``block_type`` whose BlockError, in a build that collects problems, is reported, not raised."""

    class Collecting(block_type):
        def on_end(self, block):
            try:
                return super().on_end(block)
            except BlockError as exc:
                problems = self.config["context"].get("problems")
                if problems is None:
                    raise
                logging.getLogger("mkdocs.plugins.labkit").error(str(exc))
                problems.append(str(exc))

    Collecting.__name__ = Collecting.__qualname__ = block_type.__name__
    return Collecting


class LanguageBlockExtension(BlocksExtension):
    """Registers ``BLOCK``; its ``lang`` option picks the words and the number format, ``project``
    is the course's folder (empty: found from the working directory), ``context`` a dict the
    plugin updates with the page being rendered."""

    BLOCK: type[PageBlock]

    def __init__(self, *args, **kwargs):
        self.config = {"lang": ["fr", "language of the page: fr or zh"],
                       "project": ["", "the course's folder (empty: found from the working directory)"],
                       "context": [{}, "what the plugin says of the page being rendered"]}
        super().__init__(*args, **kwargs)

    def extendMarkdownBlocks(self, md, block_mgr):
        block_mgr.register(_collecting(self.BLOCK), self.getConfigs())
