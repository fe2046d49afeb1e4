"""The learner's file: loaded as a module, its entries checked against the skeleton's, and any
mistake in it (a syntax error, a missing or renamed function, an exception in a kernel, a kernel
that does not compile) turned into one line naming the file, the line and what happened.

Rule: an exception is the learner's when its traceback passes through their file, or when it is
Numba's compiler quoting their file (``File "…/fuse.py", line 12``). Any other exception is
labkit's own and propagates as it is.
"""

from __future__ import annotations

import importlib.util
import inspect
import linecache
import re
import traceback
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType

from labkit.errors import LabkitError

#: How Numba's compiler names a source line in its messages.
NUMBA_LOCATION = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)')
#: The simulator's prefix for an exception raised in a thread: ``tid=[31, 0, 0] ctaid=[1, 0, 0]: ``.
SIMULATED_THREAD = re.compile(r"^tid=\[(?P<tid>[^\]]*)\] ctaid=\[(?P<ctaid>[^\]]*)\]: ")


class LearnerError(LabkitError):
    """A mistake in the learner's file, said in one line: ``file:line: what happened``."""


def load(path: Path, shown_as: str, entries: Mapping[str, tuple[str, ...]]) -> ModuleType:
    """The learner's file as a module, each of ``entries`` defined with its parameters in order."""
    try:
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LearnerError(f"{shown_as}: cannot be read ({exc.__class__.__name__}): put the skeleton back with "
                           f"`git checkout -- {shown_as}`") from None
    try:
        code = compile(source, str(path), "exec")
    except SyntaxError as exc:
        raise LearnerError(f"{shown_as}:{exc.lineno}: {exc.msg}") from None
    spec = importlib.util.spec_from_file_location(f"labkit_learner_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    with learner_code(path, shown_as):
        exec(code, module.__dict__)
    for name, parameters in entries.items():
        if name not in module.__dict__:
            raise LearnerError(f"{shown_as}: defines no `{name}`; keep the skeleton's name and parameters "
                               f"`{name}({', '.join(parameters)})`")
        found = _parameters(module.__dict__[name])
        if found is not None and found != parameters:
            raise LearnerError(f"{shown_as}: `{name}` takes ({', '.join(found)}), the exercise calls it with "
                               f"({', '.join(parameters)}): keep the skeleton's parameters")
    return module


def _parameters(entry) -> tuple[str, ...] | None:
    """The parameter names of a function or of a kernel's Python function; None for anything else."""
    function = getattr(entry, "py_func", entry)
    if not callable(function):
        return None
    try:
        return tuple(inspect.signature(function).parameters)
    except (TypeError, ValueError):
        return None


@contextmanager
def learner_code(path: Path, shown_as: str) -> Iterator[None]:
    """Runs the body; an exception that is the learner's becomes one LearnerError line."""
    try:
        yield
    except LearnerError:
        raise
    except Exception as exc:
        line = describe(exc, path, shown_as)
        if line is None:
            raise
        raise LearnerError(line) from None


def describe(exc: BaseException, path: Path, shown_as: str) -> str | None:
    """``file:line: Type: message`` when ``exc`` comes from the learner's file, else None.

    The line is the deepest frame in their file (where their code was when it failed); for a
    Numba compiler error, the last place in their file that the message quotes.
    """
    target = str(path.resolve())
    frames = [frame for frame in traceback.extract_tb(exc.__traceback__) if _same_file(frame.filename, target)]
    message = str(exc).strip()
    if frames:
        frame = frames[-1]
        first = message.splitlines()[0] if message else ""
        thread = SIMULATED_THREAD.match(first)
        where = ""
        if thread:
            first = first[thread.end():]
            where = f" (thread ({thread['tid']}) of block ({thread['ctaid']}))"
        text = (frame.line or linecache.getline(frame.filename, frame.lineno)).strip()
        return f"{shown_as}:{frame.lineno}: {type(exc).__name__}{where}: {first}" + (f"  [{text}]" if text else "")
    quoted = [match for match in NUMBA_LOCATION.finditer(message) if _same_file(match["file"], target)]
    if quoted:
        first = next((line.strip() for line in message.splitlines() if line.strip()), type(exc).__name__)
        return f"{shown_as}:{quoted[-1]['line']}: {type(exc).__name__}: {first}"
    return None


def _same_file(name: str, target: str) -> bool:
    try:
        return str(Path(name).resolve()) == target
    except OSError:
        return False
