"""One package per lab, ``labkit.labs.labNN``: its ``LAB`` (a :class:`labkit.lab.Lab`) defines it
with no GPU code, its ``program`` module runs it. :func:`labkit.lab.labs` finds them all.
"""
