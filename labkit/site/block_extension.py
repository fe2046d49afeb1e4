"""A Python-Markdown extension that registers one ``pymdownx.blocks`` block for a page language."""

from __future__ import annotations

from pymdownx.blocks import BlocksExtension


class LanguageBlockExtension(BlocksExtension):
    """Registers ``BLOCK``; its ``lang`` option picks the words and the number format."""

    BLOCK = None

    def __init__(self, *args, **kwargs):
        self.config = {"lang": ["fr", "language of the page: fr or zh"]}
        super().__init__(*args, **kwargs)

    def extendMarkdownBlocks(self, md, block_mgr):
        block_mgr.register(self.BLOCK, self.getConfigs())
