"""One package per lab, ``labkit.labs.labNN``: its ``LAB`` (a :class:`labkit.labs.base.Lab`) defines it
with no GPU code, its ``program`` module runs it. :func:`labkit.labs.base.labs` finds them all.
"""
