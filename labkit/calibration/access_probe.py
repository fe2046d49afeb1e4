"""Calibrate the access analyzer (:mod:`labkit.models.access`) against Nsight Compute on a GPU.

``python -m labkit.calibration.access_probe OUTDIR`` builds a deterministic plan of about 450 warp
access patterns for every space (global, shared), direction (load, store) and width (1, 2, 4,
8, 16 bytes): strides (0..40 for 4-byte shared loads, where every gcd with 32 shows; 0..16 and a
few up to 40 for the other shared widths; up to 65536 elements in global memory), misaligned
starts, broadcasts, two addresses in one bank, permutations, random addresses within 4 lines,
partly inactive warps, and the pairing and forum cases the analyzer cites. At 0.1-0.4 s per
profiled launch, ncu takes 1 to 3 minutes. Each pattern is one
launch of one warp of a CUDA C probe kernel (CuPy ``RawModule``, NVRTC) that executes exactly
ONE warp-level memory instruction: lane i's byte offset comes from ``__constant__ c_offsets[i]``
(no global load to fetch it), -1 leaves the lane out; a load feeds a store guarded by a sentinel
comparison that is never true, so the compiler keeps it; a shared store is kept alive by a
load that never runs. One ``ncu --metrics ... --csv --page raw`` process profiles a child Python
process that launches every pattern once, in plan order (rows map back to patterns by launch
order, checked against each row's kernel name). The result, ``OUTDIR/access_calibration.json``
(a results envelope with provenance), holds each pattern with the analyzer's prediction and
ncu's counts, and a summary of mismatches; the folder ``OUTDIR/access_calibration/`` beside it
keeps the plan, the device, ncu's CSV and its log.

Only :func:`launch_plan` and :func:`main` need a GPU; the plan, the CUDA source, the ncu command
and the comparison are pure and tested on the CPU.
"""

from __future__ import annotations

import json
import random
import statistics
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from labkit.calibration import run_or_launch
from labkit.models.access import DRAM_READ_METRIC, NCU_METRICS, WARP_LANES, WIDTHS_BYTES, Op, Space, WarpAccess, total

INACTIVE = -1
SEED = 20261201
#: The probe kernels' static shared tile; shared patterns stay inside it.
SHARED_TILE_BYTES = 40 * 1024
GLOBAL_BUFFER_BYTES = 64 << 20
#: Loads compare with it (the buffer holds zeros and the stores' values: never equal).
SENTINEL = 0xDEADBEEF
#: What stores write; the shared-store kernel's keep-alive load runs only for 0xFFFFFFFF.
STORE_VALUE = 0x01020304
KERNEL_PREFIX = "probe_"
#: The counters that must equal the analyzer's, and the DRAM bytes that must reach its floor.
COUNTER_METRICS = tuple(NCU_METRICS)
METRICS = COUNTER_METRICS + (DRAM_READ_METRIC,)
CALIBRATION_FILE = "access_calibration.json"

_OP_SUFFIX = {Op.LOAD: "ld", Op.STORE: "st"}
_TYPES = {1: "unsigned char", 2: "unsigned short", 4: "unsigned int", 8: "uint2", 16: "uint4"}
_FOLD = {1: "(unsigned int)v", 2: "(unsigned int)v", 4: "v", 8: "(v.x ^ v.y)", 16: "(v.x ^ v.y ^ v.z ^ v.w)"}
_MAKE = {1: "(unsigned char)x", 2: "(unsigned short)x", 4: "x", 8: "make_uint2(x, x)", 16: "make_uint4(x, x, x, x)"}


class ProbeError(RuntimeError):
    """The probe's launches and ncu's rows do not line up, or the plan is unusable (one line)."""


@dataclass(frozen=True)
class Pattern:
    """One probe launch: a warp access pattern as 32 byte offsets (-1: the lane does not access)."""

    name: str
    family: str
    space: Space
    op: Op
    width_bytes: int
    offsets: tuple[int, ...]

    @property
    def kernel(self) -> str:
        return kernel_name(self.space, self.op, self.width_bytes)

    def access(self) -> WarpAccess:
        return WarpAccess(tuple(None if o == INACTIVE else o for o in self.offsets), self.width_bytes, self.op, self.space)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "family": self.family, "space": self.space.value, "op": self.op.value,
                "width_bytes": self.width_bytes, "offsets": list(self.offsets)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Pattern:
        return cls(data["name"], data["family"], Space(data["space"]), Op(data["op"]), data["width_bytes"],
                   tuple(data["offsets"]))


def kernel_name(space: Space, op: Op, width_bytes: int) -> str:
    """``probe_shared_ld_16``: one probe kernel per space, direction and width."""
    return f"{KERNEL_PREFIX}{space.value}_{_OP_SUFFIX[op]}_{width_bytes}"


def combinations() -> list[tuple[Space, Op, int]]:
    return [(space, op, width) for space in Space for op in Op for width in WIDTHS_BYTES]


def patterns(seed: int = SEED) -> list[Pattern]:
    """The calibration plan: the same list for the same seed (stdlib ``random``, one stream)."""
    rng = random.Random(seed)
    plan: list[Pattern] = []
    for space, op, width in combinations():
        for family, detail, offsets in _combination_patterns(space, op, width, rng):
            plan.append(Pattern(f"{space.value}-{op.value}-{width}B-{family}-{detail}", family, space, op, width,
                                tuple(offsets)))
    names = [p.name for p in plan]
    if len(set(names)) != len(names):
        raise ProbeError("the calibration plan has two patterns of one name")
    return plan


def _strides(space: Space, op: Op, width: int) -> tuple[int, ...]:
    """Strides in elements: 0..40 where the bank rules are least certain, fewer elsewhere."""
    if space is Space.SHARED:
        if width == 4 and op is Op.LOAD:
            return tuple(range(41))
        if width > 4 and op is Op.LOAD:
            return (*range(17), 24, 31, 32, 33, 40)
        if width >= 4:
            return (*range(10), 16, 17, 32, 33)
        return (0, 1, 2, 3, 4, 8, 33, 128)
    if width == 4:
        return (*range(10), 16, 31, 32, 33, 1000, 65536)
    return (0, 1, 2, 5, 33, 1000)


def _combination_patterns(space: Space, op: Op, width: int, rng: random.Random):
    """(family, detail, 32 offsets) for one space, direction and width."""
    lanes = range(WARP_LANES)
    for stride in _strides(space, op, width):
        yield "stride", str(stride), [lane * stride * width for lane in lanes]
    if width >= 4:
        for start in (width, 32, 128 - width):
            yield "misaligned", str(start), [start + lane * width for lane in lanes]
        far = 128 if space is Space.SHARED else 4096  # shared: same bank, another word
        yield "halves", str(far), [0 if lane < 16 else far for lane in lanes]
    yield "broadcast", "64", [64] * WARP_LANES
    permutation = rng.sample(range(WARP_LANES), WARP_LANES)
    yield "permutation", "0", [permutation[lane] * width for lane in lanes]
    for draw in range(2 if space is Space.SHARED else 1):
        yield "random", f"{draw}", [rng.randrange(0, 4 * 128, width) for _ in lanes]
    first = {16: 8, 8: 16}.get(width, 17)  # one quarter, one half, or one lane past a half
    yield "inactive", f"first-{first}", [lane * width if lane < first else INACTIVE for lane in lanes]
    yield "inactive", "evens", [lane * width if lane % 2 == 0 else INACTIVE for lane in lanes]
    if space is Space.SHARED:
        yield "inactive", "random", [lane * width if rng.random() < 0.5 else INACTIVE for lane in lanes]
    yield "inactive", "all", [INACTIVE] * WARP_LANES
    if space is Space.SHARED and width in (8, 16):
        yield from _pairing_patterns(width)


def _pairing_patterns(width: int):
    """The cases that tell the pairing and phase rules apart (see labkit.models.access's docstring)."""
    lanes = range(WARP_LANES)
    yield "pairs", "n^1", [width * (lane // 2) for lane in lanes]
    yield "pairs", "n^2", [width * (2 * (lane // 4) + lane % 2) for lane in lanes]
    yield "pairs", "n+16", [width * (lane % 16) for lane in lanes]
    yield "pairs", "evens-partner-inactive", [width * (lane // 2) if lane % 2 == 0 else INACTIVE for lane in lanes]
    if width == 16:
        # forums /t/373160 patterns 1 and 2, /t/77228 before and after pairing.
        yield "forum", "373160-1", [32 * (lane % 16) for lane in lanes]
        yield "forum", "373160-2", [0 if lane < 16 else 32 for lane in lanes]
        yield "forum", "77228-before", [16 * (lane % 4) for lane in lanes]
        yield "forum", "77228-after", [16 * ((lane // 2) % 8) for lane in lanes]


def check_plan(plan: list[Pattern]) -> None:
    """Every pattern is a valid access within its buffer; raises ProbeError naming the first that is not."""
    for pattern in plan:
        limit = SHARED_TILE_BYTES if pattern.space is Space.SHARED else GLOBAL_BUFFER_BYTES
        try:
            pattern.access()
        except ValueError as error:
            raise ProbeError(f"pattern {pattern.name}: {error}") from None
        if max(pattern.offsets) + pattern.width_bytes > limit:
            raise ProbeError(f"pattern {pattern.name} reaches past its {limit}-byte {pattern.space.value} buffer")


def predict(pattern: Pattern) -> dict[str, int]:
    """The analyzer's value of every metric for a kernel whose only access is this pattern."""
    return total([pattern.access()]).ncu_metrics()


def cuda_source() -> str:
    """The probe kernels: ``probe_<space>_<ld|st>_<width>(buffer, out, x)``, one warp each.

    ``x`` is the sentinel for loads, the value stored for stores. Only the pattern's access
    reaches the L1TEX counters: the offset comes from constant memory, the sentinel-guarded
    store and the keep-alive shared load never run.
    """
    kernels = [
        f"__constant__ int c_offsets[{WARP_LANES}];",
        f"#define TILE_BYTES {SHARED_TILE_BYTES}",
    ]
    for space, op, width in combinations():
        kind, fold, make = _TYPES[width], _FOLD[width], _MAKE[width]
        base = "tile" if space is Space.SHARED else "buffer"
        lines = [f'extern "C" __global__ void {kernel_name(space, op, width)}'
                 "(unsigned char* buffer, unsigned int* out, unsigned int x) {"]
        if space is Space.SHARED:
            lines.append("    __shared__ __align__(1024) unsigned char tile[TILE_BYTES];")
            if op is Op.LOAD:  # never runs (x is the sentinel): the tile is not undefined to the compiler
                lines.append("    if (x == 0u) { for (int i = threadIdx.x; i < TILE_BYTES; i += 32) tile[i] = buffer[i]; "
                             "__syncthreads(); }")
        lines.append("    const int offset = c_offsets[threadIdx.x];")
        if op is Op.LOAD:
            lines += [f"    if (offset >= 0) {{ const {kind} v = *reinterpret_cast<const {kind}*>({base} + offset);",
                      f"        if ({fold} == x) out[threadIdx.x] = {fold}; }}"]
        else:
            lines.append(f"    if (offset >= 0) *reinterpret_cast<{kind}*>({base} + offset) = {make};")
            if space is Space.SHARED:
                lines += ["    __syncthreads();",
                          "    if (x == 0xFFFFFFFFu) out[threadIdx.x] = "
                          "*reinterpret_cast<const unsigned int*>(tile + 4 * threadIdx.x);"]
        lines.append("}")
        kernels.append("\n".join(lines))
    return "\n\n".join(kernels) + "\n"


def ncu_command(ncu: str, child: list[str]) -> list[str]:
    """One ncu process over the child: the metrics only, clocks untouched, caches flushed per pass."""
    return [ncu, "--clock-control", "none", "--cache-control", "all", "--metrics", ",".join(METRICS),
            "-k", f"regex:^{KERNEL_PREFIX}", "--csv", "--page", "raw", *child]


def compare(plan: list[Pattern], profiles: list) -> list[dict[str, Any]]:
    """Each pattern with its prediction, ncu's values and the counters that differ.

    Rows map to patterns by launch order; a row whose kernel is not the pattern's is an error.
    DRAM bytes are converted to bytes whatever unit ncu chose.
    """
    if len(profiles) != len(plan):
        raise ProbeError(f"ncu profiled {len(profiles)} launches, the plan has {len(plan)} patterns")
    rows = []
    for pattern, profile in zip(plan, sorted(profiles, key=lambda p: p.id)):
        if profile.name != pattern.kernel:
            raise ProbeError(f"launch {profile.id} ran {profile.name}, the plan expects {pattern.kernel} "
                             f"({pattern.name})")
        predicted = predict(pattern)
        measured = {metric: profile.value(metric) for metric in COUNTER_METRICS}
        measured[DRAM_READ_METRIC] = profile.bytes_(DRAM_READ_METRIC)
        rows.append({
            **pattern.to_dict(),
            "predicted": predicted,
            "measured": measured,
            "mismatches": [m for m in COUNTER_METRICS if measured[m] != predicted[m]],
        })
    return rows


def dram_below_floor(rows: list[dict[str, Any]]) -> list[str]:
    """Global-load patterns whose measured DRAM bytes are below the analyzer's floor."""
    return [row["name"] for row in rows if row["space"] == "global" and row["op"] == "load"
            and row["measured"][DRAM_READ_METRIC] < row["predicted"][DRAM_READ_METRIC]]


def summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How many patterns differ, per metric and per family; the DRAM floor's standing."""
    mismatched = [row for row in rows if row["mismatches"]]
    loads = [row for row in rows if row["space"] == "global" and row["op"] == "load"]
    excess = [row["measured"][DRAM_READ_METRIC] - row["predicted"][DRAM_READ_METRIC] for row in loads]
    return {
        "patterns": len(rows),
        "mismatched": len(mismatched),
        "mismatches_by_metric": dict(Counter(m for row in mismatched for m in row["mismatches"])),
        "mismatches_by_family": dict(Counter(
            f"{row['space']}-{row['op']}-{row['width_bytes']}B-{row['family']}" for row in mismatched)),
        "first_mismatches": [row["name"] for row in mismatched[:20]],
        "dram": {
            "global_load_patterns": len(loads),
            "below_floor": dram_below_floor(rows),
            "excess_bytes": {"min": min(excess), "median": statistics.median(excess), "max": max(excess)}
            if excess else None,
        },
    }


# GPU side: the child that launches the plan, and the parent that runs it under ncu.

def launch_plan(plan_path: Path, device_path: Path) -> None:
    """Compile the probe kernels, launch each pattern once on one warp, in plan order.

    Runs under ncu: prints nothing on stdout (ncu's CSV goes there); writes the device's
    name, compute capability and driver version to ``device_path``.
    """
    import cupy

    plan = [Pattern.from_dict(p) for p in json.loads(plan_path.read_text())]
    module = cupy.RawModule(code=cuda_source(), options=("-lineinfo",))
    offsets = cupy.ndarray((WARP_LANES,), cupy.int32, module.get_global("c_offsets"))
    buffer = cupy.zeros(GLOBAL_BUFFER_BYTES, dtype=cupy.uint8)
    out = cupy.zeros(WARP_LANES, dtype=cupy.uint32)
    kernels = {name: module.get_function(name) for name in {p.kernel for p in plan}}
    for pattern in plan:
        offsets.set(np.asarray(pattern.offsets, dtype=np.int32))  # a copy, not a kernel
        x = np.uint32(SENTINEL if pattern.op is Op.LOAD else STORE_VALUE)
        kernels[pattern.kernel]((1,), (WARP_LANES,), (buffer, out, x))
    cupy.cuda.Device().synchronize()
    properties = cupy.cuda.runtime.getDeviceProperties(0)
    name = properties["name"]
    device_path.write_text(json.dumps({
        "gpu": name.decode() if isinstance(name, bytes) else name,
        "compute_capability": [properties["major"], properties["minor"]],
        "driver": str(cupy.cuda.runtime.driverGetVersion()),
    }))


def run(outdir: Path) -> Path:
    """Profile the whole plan in one ncu process; write the calibration, and beside it a folder of
    the same name with the plan, the device, ncu's CSV and its log (as lab 04 keeps its raw files)."""
    from labkit.calibration import (device_provenance, find_ncu_or_fail, ncu_run_facts, probe_child, profile_child,
        write_calibration)
    from labkit.profiling import ncu

    ncu_path = find_ncu_or_fail()
    raw = outdir / Path(CALIBRATION_FILE).stem
    raw.mkdir(parents=True, exist_ok=True)
    plan = patterns()
    check_plan(plan)
    plan_path, device_path = raw / "plan.json", raw / "device.json"
    plan_path.write_text(json.dumps([p.to_dict() for p in plan]) + "\n")
    command = ncu_command(ncu_path, probe_child("labkit.calibration.access_probe", str(plan_path), str(device_path)))
    print(f"profiling {len(plan)} probe launches with ncu (one process) ...", file=sys.stderr)
    csv, seconds = profile_child(command, raw, timeout_seconds=900)
    rows = compare(plan, ncu.parse_raw_csv(csv))
    results = {"patterns": rows, "summary": summary(rows), "ncu": ncu_run_facts(ncu_path, command, seconds)}
    prov = device_provenance(device_path)
    return write_calibration(outdir / CALIBRATION_FILE, "lab-02", prov, results)


def main(argv: list[str] | None = None) -> int:
    """``access_probe OUTDIR`` (on a GPU, with ncu), or ``access_probe --launch PLAN DEVICE`` (ncu's child)."""
    path = run_or_launch("access_probe", sys.argv[1:] if argv is None else argv, run, launch_plan, 2)
    if isinstance(path, int):
        return path
    found = json.loads(path.read_text())["results"]
    stats = found["summary"]
    by_metric = f" {stats['mismatches_by_metric']}" if stats["mismatched"] else ""
    print(f"{stats['patterns']} patterns, {stats['mismatched']} differ from the analyzer{by_metric}; "
          f"DRAM below the floor: {len(stats['dram']['below_floor'])}; ncu {found['ncu']['seconds']} s; wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
