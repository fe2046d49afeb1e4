"""SASS, the machine code the GPU runs: dumping it for a Numba kernel, and the few facts the
chapter reads in it (tensor cores, asynchronous copies, local memory, load width, FFMA count).

Only instruction lines count: ``/*0160*/  [@P0] OPCODE.MOD... operands ;`` as nvdisasm and
cuobjdump print them. Section headers, labels and directives (``.section``, ``.string``) do not.
"""

from __future__ import annotations

import re
from collections import Counter

from labkit.errors import LabkitError
from labkit.records import Count, Record

#: Tensor-core MMA instructions: Volta-Ampere (HMMA, IMMA, DMMA, BMMA), Ada and consumer
#: Blackwell (QMMA, OMMA), Hopper warpgroup (HGMMA, IGMMA, QGMMA, BGMMA), Blackwell tcgen05
#: (UTC*MMA).
TENSOR_CORE = frozenset({
    "HMMA", "IMMA", "DMMA", "BMMA", "QMMA", "OMMA",
    "HGMMA", "IGMMA", "QGMMA", "BGMMA",
    "UTCHMMA", "UTCIMMA", "UTCQMMA", "UTCOMMA", "UTCMXQMMA",
})

#: Asynchronous global-to-shared copies: LDGSTS (Ampere cp.async), UTMALDG (Hopper TMA),
#: UBLKCP (bulk copy).
ASYNC_COPY = frozenset({"LDGSTS", "UTMALDG", "UBLKCP"})

#: Width modifiers of a load; a load without one moves 32 bits per thread (``LDG.E``).
_WIDTH_BITS = {"U8": 8, "S8": 8, "U16": 16, "S16": 16, "64": 64, "128": 128, "256": 256}

_INSTRUCTION = re.compile(
    r"^\s*/\*[0-9a-fA-F]+\*/\s+(?:\{\s*)?(?:@!?\w+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)"
)


class SassError(LabkitError, RuntimeError):
    """SASS could not be obtained (one-line message)."""


class SassFacts(Record):
    """What the chapter's SASS table asks, counted over every instruction of the text.

    ``global_loads_by_bits`` maps bits per thread to LDG count (LDG.E: 32, LDG.E.64: 64, ...).
    ``spills`` is the chapter's LDL/STL test: local memory in use, for spilled registers or for
    a per-thread array the compiler could not keep in registers.
    """

    instructions: Count
    global_loads_by_bits: dict[int, Count]
    local_loads: Count
    local_stores: Count
    ffma: Count
    tensor_core: Count
    async_copies: Count

    @property
    def wide_loads(self) -> bool:
        """Any 128-bit (or wider) global load: vectorised accesses."""
        return any(bits >= 128 for bits in self.global_loads_by_bits)

    @property
    def spills(self) -> bool:
        return self.local_loads + self.local_stores > 0


def dump_sass(dispatcher) -> str:
    """The SASS of a compiled Numba kernel (``dispatcher.inspect_sass()``), all signatures joined.

    Needs nvdisasm (CUDA toolkit) and a real GPU: the simulator compiles nothing.
    """
    if not hasattr(dispatcher, "inspect_sass"):
        raise SassError("this kernel has no SASS: it runs in the CUDA simulator, which compiles "
                        "nothing")
    try:
        sass = dispatcher.inspect_sass()
    except (RuntimeError, FileNotFoundError) as error:
        if "nvdisasm" in str(error):
            raise SassError(
                "nvdisasm not found: install the CUDA toolkit (or the cuda-toolkit wheel with its "
                "nvdisasm extra) to read SASS; the rest of the lab does not need it"
            ) from None
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise SassError(f"could not read the SASS: {first_line}") from None
    if isinstance(sass, dict):
        if not sass:
            raise SassError("the kernel is not compiled yet: launch it before reading its SASS")
        sass = "\n".join(sass.values())
    return sass


def opcodes(text: str) -> list[str]:
    """The opcode with its modifiers (``LDG.E.64``) of every instruction line, in order."""
    return [m.group(1) for line in text.splitlines() if (m := _INSTRUCTION.match(line))]


class MemoryWidths(Record):
    """Chapter 2's question: how wide is each load and store? Bits per thread -> instruction count
    (``LDG.E``: 32, ``LDG.E.64``: 64, ``LDS.128``: 128...), global and shared."""

    global_loads_by_bits: dict[int, Count]
    global_stores_by_bits: dict[int, Count]
    shared_loads_by_bits: dict[int, Count]
    shared_stores_by_bits: dict[int, Count]


def read_memory_widths(text: str) -> MemoryWidths:
    """LDG, STG, LDS and STS of the text, by width."""
    ops = opcodes(text)
    return MemoryWidths(global_loads_by_bits=_widths(ops, "LDG"), global_stores_by_bits=_widths(ops, "STG"),
                        shared_loads_by_bits=_widths(ops, "LDS"), shared_stores_by_bits=_widths(ops, "STS"))


def _widths(ops: list[str], root: str) -> dict[int, int]:
    return dict(sorted(Counter(_load_bits(op) for op in ops if op.split(".")[0] == root).items()))


def read_sass(text: str) -> SassFacts:
    """Count what the chapter looks for: LDG by width, LDL/STL, FFMA, MMA, async copies."""
    ops = opcodes(text)
    roots = Counter(op.split(".")[0] for op in ops)
    return SassFacts(
        instructions=len(ops),
        global_loads_by_bits=_widths(ops, "LDG"),
        local_loads=roots["LDL"],
        local_stores=roots["STL"],
        ffma=roots["FFMA"],
        tensor_core=sum(roots[op] for op in TENSOR_CORE),
        async_copies=sum(roots[op] for op in ASYNC_COPY),
    )


class FfmaOperands(Record):
    """Where an FFMA's three sources come from, over every FFMA of a text: ``three_register``
    counts those whose sources are all registers (``FFMA R6, R6, R4, R5``: three register-file
    reads unless the reuse cache holds one), ``reused`` those with a source marked ``.reuse`` (kept
    in the operand reuse cache for the same warp's next instruction)."""

    ffma: Count
    three_register: Count
    reused: Count


_REGISTER = re.compile(r"^-?\|?R\d+")


def read_ffma_operands(text: str) -> FfmaOperands:
    """FfmaOperands of the text's FFMA lines (``RZ``, immediates and ``c[..][..]`` are not registers)."""
    ffma = three = reused = 0
    for line in text.splitlines():
        match = _INSTRUCTION.match(line)
        if not match or match.group(1).split(".")[0] != "FFMA":
            continue
        operands = line[match.end():].split(";")[0].split(",")
        sources = [o.strip() for o in operands[1:4]]
        ffma += 1
        three += len(sources) == 3 and all(_REGISTER.match(o) for o in sources)
        reused += any(".reuse" in o for o in sources)
    return FfmaOperands(ffma=ffma, three_register=three, reused=reused)


def cubin_sass(cubin_path: str) -> dict[str, str]:
    """Each kernel's SASS in a cubin (``cuobjdump -sass``), by function name."""
    from labkit.gpu.tools import find_tool, run_tool

    tool = find_tool("cuobjdump")
    if tool is None:
        raise SassError("cuobjdump not found: install the CUDA toolkit to read the SASS of CUDA C kernels")
    done = run_tool([tool, "-sass", str(cubin_path)], 120, SassError)
    if done.returncode != 0:
        raise SassError(f"cuobjdump failed: {(done.stderr.strip().splitlines() or ['no output'])[-1]}")
    kernels: dict[str, str] = {}
    name = None
    for line in done.stdout.splitlines():
        match = re.match(r"\s*Function : (\S+)", line)
        if match:
            name = match.group(1)
            kernels[name] = ""
        elif name is not None:
            kernels[name] += line + "\n"
    return kernels


def _load_bits(opcode: str) -> int:
    for modifier in opcode.split(".")[1:]:
        if modifier in _WIDTH_BITS:
            return _WIDTH_BITS[modifier]
    return 32
