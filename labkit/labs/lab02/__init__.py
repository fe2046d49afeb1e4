"""Lab 02: coalescing and bank conflicts, predicted exactly by the access analyzer, measured on the GPU.

1. Global stride and offset sweep (4-, 8- and 16-byte elements, reads only): bandwidth, sectors
   per request (analyzer and ncu), DRAM bytes (ncu against the 64-byte fetch model), against a
   read-only roof measured in the same run (coalesced 16-byte loads over the sweep's span).
2. Particles: array of structures against structure of arrays, scalar (Numba) against vector
   (CUDA C) accesses, with the SASS load and store widths.
3. Shared-memory stride sweep (1-64, 4-, 8- and 16-byte elements): SM cycles per warp-level load
   against the wavefronts the analyzer predicts, and ncu's wavefront and bank-conflict counters.
4. Transposing a float32 matrix: naive, tiled, padded, swizzled, against the lab's copy of the
   same bytes and cupy.copyto, with sectors per request and bank conflicts.

For every launch, the analyzer's counts (simulator trace, scaled to the grid) are shown beside
ncu's: equal exactly for the global counters, the executed shared instructions and ncu's
instruction-level shared counters; ncu's hardware shared counters add only what the L1TEX data
stage lost to arbitration (labkit.labs.lab02.results, module docstring).
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from labkit.labs.base import Lab, Need
from labkit.labs.lab02.results import SHARED_OPS, Lab02Results, SassListing, Sizes
from labkit.report.chart_svg import REFERENCE, SERIES, Axis, Series, figure, line_chart
from labkit.report.labels import label
from labkit.report.numbers import format_bytes, format_number
from labkit.report.tables import Column, Table

STEPS = ("sweep", "particles", "shared", "transpose")
_TILES = {"transpose_tiled": "tiled", "transpose_padded": "padded", "transpose_swizzled": "swizzled"}


class Lab02(Lab[Sizes, Lab02Results]):
    folder = "02-coalescing"
    results_type = Lab02Results
    needs = (Need("cupy", "the CUDA C kernels (vector accesses, shared-memory sweep, transposes), launched "
                  "through CuPy", "the lab cannot run: install the gpu extra"),
             Need("ncu", "the hardware counters beside the analyzer's predictions",
                  "the predictions are shown alone, unverified (its ncu columns empty)"),
             Need("nvcc", "the SASS of the CUDA C kernels (load and store widths)", "no SASS listing"))
    gpu_sizes = Sizes(sweep_elements=1 << 29, particles=1 << 24)
    simulator_sizes = Sizes(sweep_elements=16384, sweep_span_bytes=1 << 20, particles=1024, repeats=1, matrix_side=128, shared_iterations=2,
                            shared_blocks_per_sm=1, shared_strides=(1, 2, 32),
                            sweep_points=((4, 1, 0), (4, 2, 0), (4, 32, 0), (4, 1, 1), (8, 2, 0), (16, 1, 0)))

    def tables(self, results: Lab02Results) -> list[Table]:
        agreement = []
        for step in STEPS:
            runs = [r for r in results.runs() if r.launch.split(".")[0] == step]
            holds = [r.counters_agree for r in runs]
            shares = [share for r in runs for op in SHARED_OPS if (share := r.excess_share(op)) is not None]
            within = None
            if step == "sweep":
                errors = [p.dram_error for p in results.sweep]
                within = None if None in errors else f"{sum(abs(e) <= 0.05 for e in errors)}/{len(errors)}"
            agreement.append((step, len(runs), None if None in holds else f"{sum(holds)}/{len(holds)}",
                              100 * max(shares) if shares else None, within))
        tables = [Table("lab02.agreement", (Column("step", "label"), Column("launches", "count"),
                                            Column("claim_holds"), Column("hardware_excess_max", "pct"),
                                            Column("dram_within")), tuple(agreement))]
        sweep_rows = []
        for p in results.sweep:
            measured = p.run.measured
            sweep_rows.append((p.element_bytes, p.stride, p.offset * p.element_bytes,
                               p.run.predicted.ld_sectors_per_request,
                               measured.ld_sectors_per_request if measured else None, p.useful_gbps,
                               (p.run.predicted.dram_read_bytes or 0) / 1e6,
                               measured.dram_read_bytes / 1e6 if measured else None,
                               100 * p.dram_error if p.dram_error is not None else None, p.run.timing.median_seconds,
                               results.of_read_roof(p.useful_gbps), results.dram_share_of_read_roof(p)))
        tables.append(Table("lab02.sweep", (
            Column("element_bytes", "count"), Column("stride", "count"), Column("offset_bytes", "count"),
            Column("spr_analyzer", "ratio_plain"), Column("spr_ncu", "ratio_plain"), Column("useful_gbps", "gbps"),
            Column("dram_predicted_mb", "count"), Column("dram_ncu_mb", "count"), Column("dram_error", "pct"),
            Column("median_time_us", "us"), Column("of_read_roof", "share"), Column("dram_of_read_roof", "share")),
            tuple(sweep_rows)))
        if results.read_roofs:
            roof_rows = [("read_roof", roof.read_bytes / 1e6, roof.timing.median_seconds, roof.gbps,
                          results.of_ceiling(roof.gbps)) for roof in results.read_roofs]
            if results.copy_ceiling is not None:
                copy = results.copy_ceiling
                roof_rows.append(("copy_ceiling", copy.copy_bytes / 1e6, copy.timing.median_seconds, copy.gbps, 1.0))
            tables.append(Table("lab02.roofs", (
                Column("roof", "label"), Column("moved_mb", "count"), Column("median_time_us", "us"),
                Column("gbps_moved", "gbps"), Column("of_ceiling", "share")), tuple(roof_rows)))
        sass = results.sass.kernels if isinstance(results.sass, SassListing) else {}
        tables.append(Table("lab02.particles", (
            Column("layout", "label"), Column("access", "label"), Column("source", "label"),
            Column("sass_memory"), Column("spr_ld", "ratio_plain"), Column("spr_st", "ratio_plain"),
            Column("dram_predicted_mb", "count"), Column("dram_ncu_mb", "count"),
            Column("dram_write_ncu_mb", "count"), Column("l1tex_pct", "pct"), Column("lsu_pct", "pct"),
            Column("useful_gbps", "gbps"), Column("median_time_us", "us")), tuple(
            (p.layout, p.access, p.run.source, _memory_widths(sass.get(p.run.kernel)),
             p.run.predicted.ld_sectors_per_request, p.run.predicted.st_sectors_per_request,
             (p.run.predicted.dram_read_bytes or 0) / 1e6,
             p.run.measured.dram_read_bytes / 1e6 if p.run.measured else None,
             *_profile_cells(p.run.measured), p.useful_gbps,
             p.run.timing.median_seconds) for p in results.particles)))
        tables.append(Table("lab02.shared", (
            Column("element_bytes", "count"), Column("stride", "count"), Column("loads_ncu", "count"),
            Column("wavefronts_analyzer", "ratio_plain"), Column("wavefronts_sass", "ratio_plain"),
            Column("conflicts_sass", "ratio_plain"), Column("hardware_excess", "pct"),
            Column("cycles_per_access", "ratio_plain")), tuple(
            (p.element_bytes, p.stride, p.run.measured.shared_ld_instructions if p.run.measured else None,
             p.predicted_wavefronts_per_access,
             p.run.measured_sass.shared_ld_wavefronts / p.warp_accesses if p.run.measured_sass else None,
             p.run.instruction_conflicts("ld") / p.warp_accesses if p.run.measured_sass else None,
             _percent(p.run.excess_share("ld")), results.cycles_per_warp_access(p)) for p in results.shared)))
        transpose_rows = []
        for t in results.transposes:
            counts = t.run.measured or t.run.predicted
            transpose_rows.append((t.kernel, _tile(t.kernel, results.tile), counts.ld_sectors_per_request,
                                   counts.st_sectors_per_request, t.run.predicted.shared_ld_conflicts,
                                   t.run.instruction_conflicts("ld"),
                                   t.run.measured.shared_ld_conflicts if t.run.measured else None,
                                   _percent(t.run.excess_share("ld")), _percent(t.run.excess_share("st")), t.gbps,
                                   results.vs_copy(t.kernel)))
        if results.cupy_copyto is not None:
            copy = results.transpose("tile_copy")
            transpose_rows.append(("cupy_copyto_same", "—", None, None, None, None, None, None, None,
                                   results.cupy_copyto.gbps(copy.moved_bytes), 1 / results.copy_vs_cupy))
        tables.append(Table("lab02.transposes", (
            Column("kernel", "label"), Column("shared_tile"), Column("spr_ld", "ratio_plain"),
            Column("spr_st", "ratio_plain"), Column("conflicts_analyzer", "count"),
            Column("conflicts_sass_total", "count"), Column("conflicts_hardware", "count"),
            Column("hardware_excess_ld", "pct"), Column("hardware_excess_st", "pct"),
            Column("gbps_moved", "gbps"), Column("vs_copy", "share")), tuple(transpose_rows)))
        return tables

    def figures(self, results: Lab02Results, lang: str) -> list[etree.Element]:
        words = {key: label(lang, f"lab02.plot.{key}") for key in (
            "sweep_caption", "sectors_caption", "stride", "useful_gbps", "sectors", "analyzer", "ncu", "shared_caption",
            "wavefronts", "cycles")}
        number = lambda value: format_number(value, 0, lang)  # noqa: E731
        f32 = [p for p in results.sweep if p.element_bytes == 4 and p.offset == 0]
        strides = Axis(words["stride"], 0, max(p.stride for p in f32), format_tick=number)
        bandwidth = line_chart([Series(words["useful_gbps"], tuple((p.stride, p.useful_gbps) for p in f32), SERIES[0])],
                               strides, Axis(words["useful_gbps"], 0, max(p.useful_gbps for p in f32) * 1.1,
                                             format_tick=number), words["sweep_caption"])
        sectors = [Series(words["analyzer"],
                          tuple((p.stride, p.run.predicted.ld_sectors_per_request or 0) for p in f32), SERIES[0])]
        if all(p.run.measured for p in f32):
            sectors.append(Series(words["ncu"], tuple(
                (p.stride, p.run.measured.ld_sectors_per_request or 0) for p in f32), SERIES[1], line=False,
                marker="cross"))
        top_sectors = max(b for one in sectors for _, b in one.points) * 1.1
        shared = [Series(format_bytes(width, lang), tuple((p.predicted_wavefronts_per_access, results.cycles_per_warp_access(p))
                                              for p in results.shared if p.element_bytes == width), SERIES[index],
                         line=False)
                  for index, width in enumerate((4, 8, 16))]
        top = max((p.predicted_wavefronts_per_access for p in results.shared), default=1)
        shared.append(Series("y = x", ((0, 0), (top, top)), REFERENCE, marker="none", dashed=True))
        top_cycles = max([top] + [b for one in shared for _, b in one.points]) * 1.1
        return [figure(bandwidth, words["sweep_caption"]),
                figure(line_chart(sectors, strides, Axis(words["sectors"], 0, top_sectors, format_tick=number),
                                  words["sectors_caption"]), words["sectors_caption"]),
                figure(line_chart(shared, Axis(words["wavefronts"], 0, top * 1.05, format_tick=number),
                                  Axis(words["cycles"], 0, top_cycles, format_tick=number), words["shared_caption"]),
                       words["shared_caption"])]


def _percent(share: float | None) -> float | None:
    return None if share is None else 100 * share


def _tile(kernel: str, tile: int) -> str:
    from labkit.kernels.coalescing_cuda import tile_shape

    return tile_shape(_TILES.get(kernel, ""), tile)


def _memory_widths(facts) -> str:
    """'LDG.E.128 ×1, LDG.E.64 ×1 / STG.E.128 ×1' from a kernel's SASS facts."""
    if facts is None:
        return "—"

    def spelled(root: str, by_bits: dict[int, int]) -> str:
        return ", ".join(f"{root}.E{'' if bits == 32 else f'.{bits}'} ×{count}" for bits, count in sorted(by_bits.items()))

    return f"{spelled('LDG', facts.global_loads_by_bits)} / {spelled('STG', facts.global_stores_by_bits)}"


LAB = Lab02()


def _profile_cells(measured) -> tuple[float | None, float | None, float | None]:
    """DRAM MB written, L1TEX and LSU throughput (%) as ncu measured them (issue 29); dashes in a
    record from before it, or without ncu."""
    if measured is None or measured.dram_write_bytes is None:
        return None, None, None
    return measured.dram_write_bytes / 1e6, measured.l1tex_throughput_pct, measured.lsu_pipe_pct
