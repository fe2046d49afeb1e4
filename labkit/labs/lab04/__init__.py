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

import xml.etree.ElementTree as etree

from labkit.labs.base import Case, Gain, Lab, Need
from labkit.labs.lab04.results import FAULTS, PHASES, Lab04Results, NcuProfiles, SassListing, Sizes, Timeline
from labkit.profiling import checklist
from labkit.profiling.diagnosis import Diagnosis
from labkit.report.labels import label
from labkit.report.numbers import format_number
from labkit.report.tables import Column, Labelled, Table
from labkit.report.timeline_svg import timeline_svg

VERSIONS = ("faulty", "repaired")


class Lab04(Lab[Sizes, Lab04Results]):
    folder = "04-profiling"
    results_type = Lab04Results
    needs = (Need("ncu", "step 3: the profiles of the program's kernels", "step 3 skipped"),
             Need("nsys", "step 2's timeline from Nsight Systems", "the timeline from labkit's own CUDA events"),
             Need("cupy", "the timer checked against cupyx.profiler.benchmark", "that comparison skipped"))
    # Sized so that each repair saves at least 1.5 times the next on an H200 (issue 29, chapter 4;
    # tests/gpu/recorded/nvidia-h200/lab04_sizes_explored.json): a 32 MB pageable batch (about 4 ms
    # saved), 80 launches of the chain (about 2 ms), a 9216-side transpose (about 1.1 ms), the
    # per-iteration .item() (about 0.4 ms). At 16 MB, 64 launches and 8192 the transfer and the chain
    # both saved about 2 ms, and their order changed from one recording to the next.
    gpu_sizes = Sizes(batch_rows=2048, batch_cols=4096, state_side=9216, chain_elements=4096, chain_steps=80,
                      iterations=20)
    # One block per launch, each with idle threads past the data's end (the kernels' bounds checks):
    # the simulator runs every CUDA thread's Python code on its own, so threads are what it costs.
    simulator_sizes = Sizes(batch_rows=16, batch_cols=12, state_side=24, chain_elements=200, chain_steps=3,
                            iterations=2, chronometer_rounds=1, l2_set_bytes=2048, hbm_set_bytes=8192)
    adjustable = ("threads_per_block",)

    def tables(self, results: Lab04Results) -> list[Table]:
        timer, totals = results.timer, results.totals
        instrument_rows = [(Labelled(row.measurement, {"mb": row.read_bytes / row.passes / 1e6, "passes": row.passes}),
                            row.timing.median_seconds, row.gbps, row.gbps / results.hbm_peak_gbps) for row in timer.l2]
        for comparison in timer.cupyx or ():
            instrument_rows += [(f"labkit_{comparison.kernel}", comparison.labkit_median_seconds, None, None),
                                (f"cupyx_{comparison.kernel}", comparison.cupyx_median_seconds, None, None)]
        out = [
            Table("lab04.timer", (Column("measurement", "label"), Column("median_us", "us"),
                                  Column("apparent_gbps", "gbps"), Column("of_hbm_peak", "share")),
                  tuple(instrument_rows)),
            Table("lab04.totals", (Column("version", "label"), Column("ms_per_iteration", "ms"), Column("min", "ms"),
                                   Column("max", "ms"), Column("vs_repaired", "ratio")),
                  tuple((version, spread.median_seconds, spread.min_seconds, spread.max_seconds,
                         spread.median_seconds / totals.repaired.median_seconds)
                        for version, spread in (("faulty", totals.faulty), ("repaired", totals.repaired)))),
        ]
        phase_rows = []
        for row in results.phases:
            f, r = row.faulty.median_seconds, row.repaired.median_seconds
            phase_rows.append((row.phase, f, r, f / r,
                               row.faulty.gbps(row.moved_bytes) if row.moved_bytes else None,
                               row.repaired.gbps(row.moved_bytes) if row.moved_bytes else None))
        out.append(Table("lab04.phases", (Column("phase", "label"), Column("faulty_ms", "ms"),
                                          Column("repaired_ms", "ms"), Column("gain", "ratio"),
                                          Column("faulty_gbps", "gbps"), Column("repaired_gbps", "gbps")),
                         tuple(phase_rows)))
        faulty_seconds = totals.faulty.median_seconds
        ranks = results.ranks()
        # Every time column is a saving per iteration: the median, its spread, the bound (comparable).
        # By rank; faults that tie in the program's order (their medians' order is noise).
        out.append(Table("lab04.ablation", (Column("rank"), Column("fault", "label"), Column("phase", "label"),
                                            Column("saved_ms", "ms"), Column("saved_share", "share"),
                                            Column("saved_least", "ms"), Column("saved_most", "ms"),
                                            Column("saving_bound_ms", "ms")),
                         tuple((str(ranks[row.fault]), row.fault, row.phase, results.saved_seconds(row),
                                results.saved_seconds(row) / faulty_seconds, *results.saved_range_seconds(row),
                                results.saving_bound_seconds(row))
                               for row in sorted(results.ablation, key=lambda r: (ranks[r.fault], FAULTS.index(r.fault))))))
        if isinstance(results.timeline, Timeline):
            out.append(_timeline_table(results, results.timeline))
            if results.timeline.nsys_kernels:
                out.append(Table("lab04.nsys", (Column("kernel"), Column("time_pct", "pct"),
                                                Column("instances", "count"), Column("avg_us", "us")),
                                 tuple((k.name, k.time_pct, k.instances, k.avg_seconds)
                                       for k in results.timeline.nsys_kernels)))
        if isinstance(results.ncu, NcuProfiles):
            out.append(Table("lab04.ncu", (
                Column("kernel"), Column("duration_us", "us"), Column("grid_blocks", "count"),
                Column("compute_pct", "pct"), Column("memory_pct", "pct"), Column("quadrant", "label"),
                Column("busiest", "label"), Column("busiest_pct", "pct"), Column("sectors_ld", "ratio_plain"),
                Column("sectors_st", "ratio_plain"), Column("top_stall"), Column("remedy", "label"),
                Column("top_rule"), Column("speedup_pct", "pct"), Column("first_item", "label"),
                Column("item_gain_pct", "pct")),
                tuple(_ncu_row(kernel.diagnosis()) for kernel in results.ncu.kernels)))
        if isinstance(results.sass, SassListing):
            out.append(Table("lab04.sass", (Column("kernel"), Column("global_loads"), Column("wide_loads", "bool"),
                                            Column("spills", "bool"), Column("ffma", "count")),
                             tuple((name, _load_widths(facts.global_loads_by_bits), facts.wide_loads, facts.spills,
                                    facts.ffma) for name, facts in results.sass.kernels.items())))
        return out

    def gains(self, results: Lab04Results) -> list[Gain]:
        """The levers of chapter 5 this lab measured: the host synchronisation and the transfer on the
        whole program (faulty time / time with only that fault repaired), the fused chain and the
        tiled transpose on their phase alone (faulty / repaired GPU time)."""
        faulty = results.totals.faulty.median_seconds
        whole = {row.fault: faulty / row.with_only_this_repaired.median_seconds for row in results.ablation}
        phase = {row.phase: row.faulty.median_seconds / row.repaired.median_seconds for row in results.phases}
        return [Gain(item="idle-gpu", ratio=whole["host_sync"], context="gain.lab04.host_sync"),
                Gain(item="idle-gpu", ratio=whole["pageable_transfer"], context="gain.lab04.transfer"),
                Gain(item="launch", ratio=phase["normalise"], context="gain.lab04.normalise"),
                Gain(item="coalescing", ratio=phase["layer"], context="gain.lab04.layer")]

    def cases(self, results: Lab04Results) -> dict[str, Case]:
        """Three profiled kernels as chapter 5's cases: the naive transpose (its uncoalesced writes; the
        layer phase before and after), the tiled one (Compute (SM) high from instructions, the lever to
        find; no repair measured) and scale_add (a 16-block grid; the normalise phase before and after)."""
        if not isinstance(results.ncu, NcuProfiles):
            return {}
        by_name = {kernel.name: kernel for kernel in results.ncu.kernels}
        layer, normalise = results.phase("layer"), results.phase("normalise")
        return {
            "naive": Case(profile=by_name["transpose_naive"], planted="coalescing",
                          faulty_seconds=layer.faulty.median_seconds, repaired_seconds=layer.repaired.median_seconds),
            "tiled": Case(profile=by_name["transpose_tiled"], planted="instructions",
                          faulty_seconds=layer.repaired.median_seconds, repaired_seconds=None),
            "scale": Case(profile=by_name["scale_add"], planted="launch",
                          faulty_seconds=normalise.faulty.median_seconds,
                          repaired_seconds=normalise.repaired.median_seconds),
        }

    def figures(self, results: Lab04Results, lang: str) -> list[etree.Element]:
        """The timeline of both versions as an inline SVG figure, words in ``lang``."""
        if not isinstance(results.timeline, Timeline):
            return []
        rows = []
        for version in VERSIONS:
            spans = getattr(results.timeline, version).spans
            for stream in ("compute", "copy"):
                selected = [s for s in spans if s.stream == stream]
                if selected:
                    rows.append((f"{label(lang, 'value.' + version)} · {label(lang, 'lab04.stream.' + stream)}", selected))
        phase_labels = {phase: label(lang, f"value.{phase}") for phase in PHASES}
        svg = timeline_svg(rows, phase_labels, label(lang, "lab.timeline_caption"),
                           lambda seconds: format_number(seconds * 1e3, 2, lang) + (" ms" if lang != "fr" else "\u202fms"),
                           label(lang, "lab04.timeline.axis"), lambda ms: format_number(ms, 0 if ms == int(ms) else 1, lang))
        source = etree.Element("p", {"class": "lab-timeline-source"})
        source.text = label(lang, f"lab04.timeline_source.{results.timeline.source}")
        figure = etree.Element("figure", {"class": "lab-figure"})
        figure.append(svg)
        etree.SubElement(figure, "figcaption").text = label(lang, "lab.timeline_caption")
        return [source, figure]


def _timeline_table(results: Lab04Results, timeline: Timeline) -> Table:
    """Each phase's span per iteration on the GPU clock and its share of the iteration's timeline
    (spans and idle time add up to 100 %), beside the phase timed alone in step 1. The two times
    are not compared as a ratio: timed alone, a phase includes what the host waits for (the faulty
    loss's round trip of ``.item()``, a pageable copy's staging), which its span on the GPU clock
    does not, so alone may be longer than the span."""
    rows = []
    for version in VERSIONS:
        spans = getattr(timeline, version)
        per_phase = {phase: spans.phase_seconds(phase) for phase in PHASES}
        idle = spans.idle_seconds / spans.iterations
        whole = sum(per_phase.values()) + idle
        for phase in PHASES:
            rows.append((version, phase, per_phase[phase], per_phase[phase] / whole if whole > 0 else None,
                         getattr(results.phase(phase), version).median_seconds))
        rows.append((version, "idle", idle, idle / whole if whole > 0 else None, None))
    return Table("lab04.timeline", (Column("version", "label"), Column("phase", "label"), Column("span_ms", "ms"),
                                    Column("span_share", "share"), Column("alone_ms", "ms")), tuple(rows))


def _ncu_row(kernel: Diagnosis) -> tuple:
    """One kernel's diagnosis: Speed of Light, the busiest unit, coalescing, the first stall, the
    lever the decision tree points to, the first rule that concerns the kernel, and what chapter 5's
    checklist puts first (labkit diagnose), with its expected gain."""
    sol, memory, busiest = kernel.speed_of_light, kernel.memory, kernel.busiest
    stall = kernel.top_stalls[0] if kernel.top_stalls else None
    rule = kernel.leading_rule
    found = checklist.assess(kernel)
    return (kernel.kernel, sol.duration_seconds, kernel.grid_blocks, sol.compute_pct, sol.memory_pct,
            kernel.quadrant.value, f"unit.{busiest.unit}" if busiest else None, busiest.pct if busiest else None,
            memory.sectors_per_request, memory.store_sectors_per_request, stall.name if stall else None,
            kernel.remedy, rule.name if rule else None, rule.speedup_pct if rule else None, f"item.{found.verdict}",
            found.first.gain_pct if found.first else None)


def _load_widths(by_bits: dict[int, int]) -> str:
    """{32: 6, 128: 2} -> 'LDG.E ×6, LDG.E.128 ×2' (the SASS spelling of each width)."""
    names = {32: "LDG.E", 64: "LDG.E.64", 128: "LDG.E.128"}
    return ", ".join(f"{names.get(bits, f'LDG.E.{bits}')} ×{count}" for bits, count in sorted(by_bits.items())) or "—"


LAB = Lab04()
