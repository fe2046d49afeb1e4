"""Lab 04: chapter 4's profiling workflow, run for real on a program with four faults.

Every iteration of the program runs four phases, each an NVTX range:

=========  ==========================  =============================================  ==========================================
phase      work                        fault (faulty version)                         repair
=========  ==========================  =============================================  ==========================================
transfer   copy a batch host -> device pageable memory, synchronous, not overlapped   pinned memory, a copy stream, one ahead
normalise  a chain of y = a*y + b      one tiny kernel per step: launch-bound          one fused kernel
layer      transpose a resident matrix strided (uncoalesced) writes                   tiled through shared memory (32 x 33)
loss       sum of squares of the batch read back every iteration, as ``.item()``      kept on the device, read once at the end
=========  ==========================  =============================================  ==========================================

The lab then walks the chapter's four steps: chronometer, timeline, Nsight Compute, SASS.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LAB_ID = "lab-04"
LAB_DIR = Path(__file__).resolve().parents[3] / "labs" / "04-profiling"

FAULTS = ("pageable_transfer", "tiny_kernels", "uncoalesced", "host_sync")
PHASES = ("transfer", "normalise", "layer", "loss")
#: Which phase each fault lives in.
FAULT_PHASE = {"pageable_transfer": "transfer", "tiny_kernels": "normalise", "uncoalesced": "layer",
               "host_sync": "loss"}
#: The kernels Nsight Compute and the SASS step look at.
PROFILED_KERNELS = ("transpose_naive", "transpose_tiled", "scale_add", "fused_chain", "sum_squares")


@dataclass(frozen=True)
class Sizes:
    batch_rows: int
    batch_cols: int
    state_side: int          # the resident square matrix the layer transposes
    chain_elements: int
    chain_steps: int
    iterations: int
    threads_per_block: int = 256   # of the normalise kernels (``labkit run lab-04 --threads N``)

    @property
    def batch_bytes(self) -> int:
        return self.batch_rows * self.batch_cols * 4

    @property
    def layer_bytes(self) -> int:
        """Bytes a transpose must move: read the matrix once, write it once."""
        return 2 * self.state_side * self.state_side * 4


GPU_SIZES = Sizes(batch_rows=2048, batch_cols=2048, state_side=8192, chain_elements=4096, chain_steps=64,
                  iterations=20)
SIMULATOR_SIZES = Sizes(batch_rows=16, batch_cols=24, state_side=40, chain_elements=300, chain_steps=3,
                        iterations=2)


# ----- the schema of what this lab records -------------------------------------------------------
_TIMING = {"type": "object", "required": ["median_seconds", "min_seconds", "max_seconds"],
           "properties": {k: {"type": "number", "minimum": 0} for k in ("median_seconds", "min_seconds", "max_seconds")}}
_SPAN = {"type": "object", "required": ["phase", "iteration", "stream", "start_seconds", "end_seconds"],
         "properties": {"phase": {"enum": list(PHASES)}, "stream": {"enum": ["compute", "copy"]},
                        "iteration": {"type": "integer"}, "start_seconds": {"type": "number"},
                        "end_seconds": {"type": "number"}}}
_VERSION_TIMELINE = {"type": "object", "required": ["iterations", "spans", "phase_seconds", "idle_gaps", "idle_seconds",
                                                  "busy_fraction", "wall_seconds"],
                     "properties": {"spans": {"type": "array", "items": _SPAN, "minItems": 1},
                                    "busy_fraction": {"type": "number", "minimum": 0, "maximum": 1}}}
RESULTS_SCHEMA = {
    "type": "object",
    "required": ["sizes", "checks", "timer", "totals", "phases", "ablation", "timeline", "ncu", "sass"],
    "properties": {
        "sizes": {"type": "object", "required": list(Sizes.__dataclass_fields__)},
        "checks": {"type": "array", "items": {"type": "object", "required": ["name", "passed"],
                                              "properties": {"passed": {"const": True}}}},
        "timer": {"type": "object", "required": ["hbm_peak_gbps", "l2", "cupyx"],
                  "properties": {"l2": {"type": "array", "minItems": 4,
                                        "items": {"type": "object", "required": ["measurement", "gbps", "of_hbm_peak"]}},
                                 "cupyx": {"type": ["array", "null"],
                                           "items": {"type": "object",
                                                     "required": ["kernel", "labkit_median_seconds",
                                                                  "cupyx_median_seconds", "ratio"],
                                                     "properties": {"kernel": {"enum": ["fma_chains", "copy_1gib"]}}}}}},
        "totals": {"type": "object", "required": ["faulty", "repaired", "speedup"],
                   "properties": {"faulty": _TIMING, "repaired": _TIMING, "speedup": {"type": "number"}}},
        "phases": {"type": "array", "minItems": len(PHASES),
                   "items": {"type": "object", "required": ["phase", "faulty", "repaired"],
                             "properties": {"phase": {"enum": list(PHASES)}, "faulty": _TIMING,
                                            "repaired": _TIMING}}},
        "ablation": {"type": "array", "minItems": len(FAULTS),
                     "items": {"type": "object", "required": ["fault", "phase", "saved_seconds", "saved_share"],
                               "properties": {"fault": {"enum": list(FAULTS)}}}},
        "timeline": {"type": "object", "required": ["source", "faulty", "repaired"],
                     "properties": {"source": {"enum": ["labkit-events", "nsys"]},
                                    "faulty": _VERSION_TIMELINE, "repaired": _VERSION_TIMELINE}},
        "ncu": {"type": "object", "required": ["status"],
                "properties": {"status": {"enum": ["ok", "unavailable"]}}},
        "sass": {"type": "object"},
    },
}


# ----- what the CLI and the chapter show -------------------------------------------------------
def tables(results: dict) -> list:
    """The recorded results as language-neutral tables (labkit.labs.tables)."""
    from labkit.labs.tables import Column, Table

    timer = results["timer"]
    instrument_rows = [(row["measurement"], row["timing"]["median_seconds"], row["gbps"], row["of_hbm_peak"])
                       for row in timer["l2"]]
    for comparison in timer["cupyx"] or ():
        instrument_rows += [(f"labkit_{comparison['kernel']}", comparison["labkit_median_seconds"], None, None),
                            (f"cupyx_{comparison['kernel']}", comparison["cupyx_median_seconds"], None, None)]
    totals = results["totals"]
    repaired_seconds = totals["repaired"]["median_seconds"]
    out = [
        Table("lab04.timer", (Column("measurement", "label"), Column("median_us", "us"), Column("apparent_gbps", "gbps"),
                              Column("of_hbm_peak", "share")), tuple(instrument_rows)),
        Table("lab04.totals", (Column("version", "label"), Column("ms_per_iteration", "ms"), Column("min", "ms"),
                               Column("max", "ms"), Column("vs_repaired", "ratio")),
              tuple((version, totals[version]["median_seconds"], totals[version]["min_seconds"],
                     totals[version]["max_seconds"], totals[version]["median_seconds"] / repaired_seconds)
                    for version in ("faulty", "repaired"))),
    ]
    phase_rows = []
    for row in results["phases"]:
        f, r = row["faulty"]["median_seconds"], row["repaired"]["median_seconds"]
        phase_rows.append((row["phase"], f, r, f / r,
                           row["bytes"] / f / 1e9 if row.get("bytes") else None,
                           row["bytes"] / r / 1e9 if row.get("bytes") else None))
    out.append(Table("lab04.phases", (Column("phase", "label"), Column("faulty_ms", "ms"), Column("repaired_ms", "ms"),
                                      Column("gain", "ratio"), Column("faulty_gbps", "gbps"),
                                      Column("repaired_gbps", "gbps")), tuple(phase_rows)))
    out.append(Table("lab04.ablation", (Column("fault", "label"), Column("phase", "label"),
                                        Column("saved_ms", "ms"), Column("saved_share", "share")),
                     tuple((row["fault"], row["phase"], row["saved_seconds"], row["saved_share"])
                           for row in sorted(results["ablation"], key=lambda r: -r["saved_seconds"]))))
    timeline = results["timeline"]
    gpu_work = {row["phase"]: row for row in results["phases"]}
    timeline_rows = []
    for version in ("faulty", "repaired"):
        for phase in PHASES:
            span = timeline[version]["phase_seconds"][phase]
            work = gpu_work[phase][version]["median_seconds"]
            timeline_rows.append((version, phase, span, work, min(1.0, work / span) if span > 0 else None))
        timeline_rows.append((version, "idle", timeline[version]["idle_seconds"] / timeline[version]["iterations"],
                              0.0, 0.0))
    out.append(Table("lab04.timeline", (Column("version", "label"), Column("phase", "label"),
                                        Column("span_ms", "ms"), Column("work_ms", "ms"), Column("busy", "share")),
                     tuple(timeline_rows)))
    if timeline.get("nsys_kernels"):
        out.append(Table("lab04.nsys", (Column("kernel"), Column("time_pct", "pct"), Column("instances", "count"),
                                        Column("avg_us", "us")),
                         tuple((k["name"], k["time_pct"], k["instances"], k["avg_seconds"])
                               for k in timeline["nsys_kernels"])))
    if results["ncu"]["status"] == "ok":
        out.append(Table("lab04.ncu", (
            Column("kernel"), Column("duration_us", "us"), Column("compute_pct", "pct"), Column("memory_pct", "pct"),
            Column("quadrant", "label"), Column("sectors_ld", "ratio_plain"), Column("sectors_st", "ratio_plain"),
            Column("top_stall"),
            Column("remedy", "label"), Column("top_rule"), Column("speedup_pct", "pct")),
            tuple(_ncu_row(kernel) for kernel in results["ncu"]["kernels"])))
    sass = results["sass"]
    out.append(Table("lab04.sass", (Column("kernel"), Column("global_loads"), Column("wide_loads", "bool"),
                                    Column("spills", "bool"), Column("ffma", "count")),
                     tuple((name, _load_widths(facts["global_loads_by_bits"]), facts["wide_loads"], facts["spills"],
                            facts["ffma"]) for name, facts in sass.items())))
    return out


def _ncu_row(kernel: dict) -> tuple:
    """One kernel's diagnosis: Speed of Light, quadrant, coalescing, first stall and first rule."""
    sol, memory = kernel["speed_of_light"], kernel["memory"]
    stall = kernel["top_stalls"][0] if kernel["top_stalls"] else None
    rule = next((r for r in kernel["rules"] if r["speedup_pct"] is not None), None)
    return (kernel["kernel"], sol["duration_seconds"], sol["compute_pct"], sol["memory_pct"], kernel["quadrant"],
            memory["sectors_per_request"], memory.get("store_sectors_per_request"), stall["name"] if stall else None,
            stall["remedy"]["id"] if stall else None, rule["name"] if rule else None,
            rule["speedup_pct"] if rule else None)


def _load_widths(by_bits: dict) -> str:
    """{'32': 6, '128': 2} -> 'LDG.E ×6, LDG.E.128 ×2' (the SASS spelling of each width)."""
    names = {"32": "LDG.E", "64": "LDG.E.64", "128": "LDG.E.128"}
    return ", ".join(f"{names.get(bits, 'LDG.E.' + bits)} ×{count}" for bits, count in sorted(
        by_bits.items(), key=lambda item: int(item[0]))) or "—"


def figures(results: dict, lang: str) -> list:
    """The timeline of both versions as an inline SVG figure, words in ``lang``."""
    import xml.etree.ElementTree as etree

    from labkit.figures import format_number
    from labkit.site.labels import label
    from labkit.site.timeline_svg import timeline_svg

    rows = []
    for version in ("faulty", "repaired"):
        spans = results["timeline"][version]["spans"]
        for stream in ("compute", "copy"):
            selected = [s for s in spans if s["stream"] == stream]
            if selected:
                rows.append((f"{label(lang, 'value.' + version)} · {stream}", selected))
    phase_labels = {phase: label(lang, f"value.{phase}") for phase in PHASES}
    svg = timeline_svg(rows, phase_labels, label(lang, "lab.timeline_caption"),
                       lambda seconds: format_number(seconds * 1e3, 2, lang) + " ms")
    source = etree.Element("p", {"class": "lab-timeline-source"})
    source.text = label(lang, f"lab04.timeline_source.{results['timeline']['source']}")
    figure = etree.Element("figure", {"class": "lab-figure"})
    figure.append(svg)
    etree.SubElement(figure, "figcaption").text = label(lang, "lab.timeline_caption")
    return [source, figure]
