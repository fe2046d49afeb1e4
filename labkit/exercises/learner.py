"""The learner's file: loaded as a module, its entries checked against the skeleton's, and any
mistake in it (a syntax error, a missing or renamed function, an exception in a kernel, a kernel
that does not compile) turned into one line naming the file, the line and what happened.

Rule: an exception is the learner's when its traceback passes through their file, or when it is
Numba's compiler quoting their file (``File "…/fuse.py", line 12``). Any other exception is
labkit's own and propagates as it is.
"""

from __future__ import annotations

import ast
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
#: Terminal colour codes (Numba colours its messages).
ANSI_CODE = re.compile(r"\x1b\[[0-9;]*m")
#: The simulator's prefix for an exception raised in a thread: ``tid=[31, 0, 0] ctaid=[1, 0, 0]: ``.
SIMULATED_THREAD = re.compile(r"^tid=\[(?P<tid>[^\]]*)\] ctaid=\[(?P<ctaid>[^\]]*)\]: ")


class LearnerError(LabkitError):
    """A mistake in the learner's file, said in one line: ``file:line: what happened``."""


def load(path: Path, shown_as: str, entries: Mapping[str, tuple[str, ...]]) -> ModuleType:
    """The learner's file as a module, each of ``entries`` defined with its parameters in order."""
    restore = ("check the path given to --file" if Path(shown_as).is_absolute()
               else f"put the skeleton back with `git checkout -- {shown_as}`")
    try:
        if path.exists() and not path.is_dir() and not path.is_file():   # a named pipe would block the read
            raise LearnerError(f"{shown_as}: not a regular file (a named pipe or a device): {restore}")
        source = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LearnerError(f"{shown_as}: cannot be read ({exc.__class__.__name__}): {restore}") from None
    if "\0" in source:   # compile() refuses it without a line number (a ValueError before Python 3.12)
        line = source[:source.index("\0")].count("\n") + 1
        raise LearnerError(f"{shown_as}:{line}: a NUL byte (\\0), which Python source cannot hold: delete it, or "
                           f"{restore}")
    try:
        code = compile(source, str(path), "exec")
    except SyntaxError as exc:
        raise LearnerError(f"{shown_as}:{exc.lineno}: {exc.msg}" if exc.lineno else f"{shown_as}: {exc.msg}") from None
    _array_shapes_are_constants(ast.parse(source), shown_as)
    module = ModuleType(f"labkit_learner_{path.stem}")   # any file name: .py or not (spec_from_file_location needs .py)
    module.__file__ = str(path)
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


def _array_shapes_are_constants(tree: ast.Module, shown_as: str) -> None:
    """Numba sizes a ``cuda.shared.array`` or ``cuda.local.array`` when it compiles the kernel, so
    its shape must be an integer literal or a global name bound to one (Numba freezes globals), or a
    tuple of those. An expression such as ``TILE + 1`` is typed as a run-time integer: the simulator
    accepts it, the GPU's compiler refuses it. Caught here so a learner without a GPU hears of it."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "array"
                and isinstance(node.func.value, ast.Attribute) and node.func.value.attr in ("shared", "local")):
            continue
        shape = next((k.value for k in node.keywords if k.arg == "shape"), node.args[0] if node.args else None)
        parts = shape.elts if isinstance(shape, ast.Tuple) else [shape]
        if shape is not None and not all(isinstance(part, (ast.Constant, ast.Name)) for part in parts):
            raise LearnerError(f"{shown_as}:{node.lineno}: a {node.func.value.attr} array's shape must be known when "
                               f"the kernel compiles: name it at module level (e.g. PADDED = TILE + 1) and use the "
                               f"name; Numba refuses `{ast.unparse(shape)}` on a GPU, even where the simulator "
                               f"accepts it")


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
    """Runs the body; an exception that is the learner's (any BaseException: their own, or a
    ``raise KeyboardInterrupt``) becomes one LearnerError line, and so does
    their file ending the process (``exit()``, ``sys.exit()``, ``raise SystemExit``; ``os._exit()``
    too in the check's child process, which makes it raise SystemExit)."""
    try:
        yield
    except LearnerError:
        raise
    except SystemExit as exc:
        frames = _frames_in(exc, path)
        if not frames:
            raise
        frame = frames[-1]
        raise LearnerError(_one_line(shown_as, frame.lineno, "SystemExit", "ending the process ends the check before "
                                     "it has judged your code: remove this line (the check calls your code and needs "
                                     "it to return)", frame.line or linecache.getline(str(path), frame.lineno))
                           ) from None
    except BaseException as exc:   # KeyboardInterrupt too: no Ctrl-C reaches the check's child (its own session)
        line = describe(exc, path, shown_as)
        if line is None:
            raise
        raise LearnerError(line) from None


def _frames_in(exc: BaseException, path: Path) -> list[traceback.FrameSummary]:
    """The frames of ``exc``'s traceback that are in the learner's file, outermost first."""
    target = str(path.resolve())
    return [frame for frame in traceback.extract_tb(exc.__traceback__) if _same_file(frame.filename, target)]


def describe(exc: BaseException, path: Path, shown_as: str) -> str | None:
    """``file:line: Type: message  [source line]`` when ``exc`` comes from the learner's file, else None.

    For a Numba compiler error, the line is the last place in their file that the message quotes
    (the line that did not compile, not the launch that compiled it) and the message keeps the
    signature Numba could not type (its ``>>>`` line); otherwise the deepest frame in their file
    (where their code was when it failed). Terminal colour codes are removed.
    """
    target = str(path.resolve())
    message = ANSI_CODE.sub("", str(exc)).strip()
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    first = lines[0] if lines else type(exc).__name__
    quoted = [match for match in NUMBA_LOCATION.finditer(message) if _same_file(match["file"], target)]
    if quoted:
        lineno = int(quoted[-1]["line"])
        cause = next((line for line in lines if not line.startswith("Failed in ")), first)  # past the stage
        signature = next((line[4:] for line in lines if line.startswith(">>> ")), None)
        summary = cause + (f" {signature}" if signature else "")
        return _one_line(shown_as, lineno, type(exc).__name__, summary, linecache.getline(str(path), lineno))
    frames = _frames_in(exc, path)
    if not frames:
        return None
    frame = frames[-1]
    thread = SIMULATED_THREAD.match(first)
    kind = type(exc).__name__
    if thread:
        first = first[thread.end():]
        kind += f" (thread ({thread['tid']}) of block ({thread['ctaid']}))"
    return _one_line(shown_as, frame.lineno, kind, first,
                     frame.line or linecache.getline(frame.filename, frame.lineno))


def _one_line(shown_as: str, lineno: int, kind: str, message: str, source: str) -> str:
    text = source.strip()
    return f"{shown_as}:{lineno}: {kind}: {message}" + (f"  [{text}]" if text else "")


def _same_file(name: str, target: str) -> bool:
    try:
        return str(Path(name).resolve()) == target
    except OSError:
        return False
