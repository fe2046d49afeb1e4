"""The one exception family a user sees: a mistake they can fix, said in one line.

Every ``LabkitError`` message names what is wrong (the file, and its line, field or block)
and the fix. The command line prints it as one line and exits with status 1; the site build
turns it into MkDocs' ``PluginError`` (one line, no traceback). ``LABKIT_DEBUG=1`` shows the
traceback instead.
"""

from __future__ import annotations


class LabkitError(Exception):
    """A mistake a user can fix; the message is one line naming the file and the fix."""


#: Set to anything to see tracebacks instead of one-line messages.
DEBUG_ENV = "LABKIT_DEBUG"

#: The command line's exit statuses: a mistake said in one line (or a check that failed), and an
#: interrupted command (128 + SIGINT, as a shell reports it).
EXIT_ERROR = 1
EXIT_INTERRUPTED = 130
