"""Lab 03: occupancy and latency (chapter 3).

1. Latency by pointer chase: one thread, a random cycle through working sets from 4 KiB to 1 GiB,
   cycles (clock64) and nanoseconds (globaltimer) per step: the L1, L2 and HBM plateaus.
2. Little's law for memory: a copy with 1 to 16 loads of 16 bytes in flight per thread, against
   the warps resident per SM (one wave of persistent blocks, residency set by the launch's
   dynamic shared memory), beside Little's law's curve from the measured HBM latency and copy
   bandwidth; Volkov's point: at low occupancy, enough loads in flight reach the copy's bandwidth.
3. Little's law for arithmetic: FP32 FMA with 1 to 8 independent chains per thread against the
   warps per SM, beside the knee the measured dependent-FMA latency predicts.
4. Register pressure: one kernel compiled at several register limits: registers, spills,
   occupancy, time.
5. Waves: time against grid size around whole waves of (SMs x resident blocks per SM).
6. Nsight Compute's achieved occupancy beside the calculator's theoretical one, stall reasons.
7. labkit's occupancy calculator against the CUDA driver on the probe's compiled kernels.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as etree

from labkit.labs.base import Gain, Lab, Need
from labkit.labs.lab03.results import LEVELS, LOW_OCCUPANCY, DriverStep, Lab03Results, NcuStep, SassStep, Sizes
from labkit.models import occupancy
from labkit.report.chart_svg import REFERENCE, SERIES, Axis, Guide, SecondAxis, Series, line_chart
from labkit.report.labels import label
from labkit.report.numbers import format_bytes, format_number, format_percent
from labkit.report.tables import Column, Table

#: Extra working sets every 4 MiB from 24 to 60 MiB (issue 29): the L2 plateau of an H200 ends near
#: half its 60 MiB (two partitions; a line held in the far one costs more), and the points between
#: 24 and 60 MiB show where and how the latency climbs from L2 to HBM.
L2_PARTITION_SETS = tuple(mib << 20 for mib in range(28, 61, 4) if mib not in (32, 48))


def _working_sets() -> tuple[int, ...]:
    """4 KiB to 1 GiB: each power of two and one and a half times it, and L2_PARTITION_SETS."""
    sizes = set(L2_PARTITION_SETS)
    for power in range(12, 31):
        sizes.add(1 << power)
        if power < 30:
            sizes.add(3 << (power - 1))
    return tuple(sorted(sizes))


class Lab03(Lab[Sizes, Lab03Results]):
    folder = "03-occupancy"
    results_type = Lab03Results
    needs = (Need("cupy", "cupy.copyto as the copy's reference, and the calculator against the driver (step 7)",
                  "labkit's own copy as the reference; step 7 skipped"),
             Need("ncu", "achieved occupancy and stall reasons (step 6)", "step 6 skipped"))
    gpu_sizes = Sizes(
        chase_working_sets=_working_sets(), chase_steps=8192, chase_warm_steps=1 << 18,
        stream_bytes=1 << 30, stream_loads=(1, 2, 4, 8, 16),
        stream_warps=(1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64),
        fma_chains=(1, 2, 4, 8), fma_warps=(4, 8, 12, 16, 24, 32, 48, 64), fma_trips=4096, fma_latency_trips=4096,
        register_caps=(None, 72, 64, 56, 48, 40, 32), register_threads=256, register_blocks_per_sm=120,
        register_rounds=128,
        wave_threads=128, wave_blocks_per_sm=2, wave_trips=1536,
        wave_grids=((1, 0), (2, 0), (3, 0), (4, 0), (4, 1), (5, 0), (6, 0), (7, 0), (8, 0), (8, 1), (10, 0), (12, 0),
                    (12, 1), (14, 0), (16, 0), (16, 1), (18, 0)),
        repeats=7)
    simulator_sizes = Sizes(
        chase_working_sets=(4096, 8192), chase_steps=20, chase_warm_steps=16,
        stream_bytes=1 << 16, stream_loads=(1, 2), stream_warps=(1, 2),
        fma_chains=(1, 2), fma_warps=(4, 8), fma_trips=1, fma_latency_trips=1,
        register_caps=(None, 32), register_threads=32, register_blocks_per_sm=1, register_rounds=1,
        wave_threads=128, wave_blocks_per_sm=2, wave_trips=1, wave_grids=((2, 0), (4, 0), (4, 1)),
        repeats=1)

    def device_notes(self, facts) -> list[str]:
        from labkit.models.occupancy import architecture

        arch = architecture(facts.compute_capability)
        if arch.max_warps_per_sm == 64:
            return []
        return [f"an SM holds {arch.max_warps_per_sm} warps here (64 on the H200): the occupancy sweeps stop at "
                f"{arch.max_warps_per_sm} warps per SM, and the profiled copy at full occupancy has "
                f"{arch.max_warps_per_sm}"]

    def gains(self, results: Lab03Results) -> list[Gain]:
        """Chapter 5's latency lever, more bytes in flight per thread, measured at Volkov's point:
        the copy's best bandwidth at LOW_OCCUPANCY theoretical occupancy or less with several 16-byte
        loads in flight per thread (the best of the curves), over the same with one load."""
        def best_low(loads: int) -> float | None:
            return max((p.gbps for p in results.low_occupancy_points(loads)), default=None)

        one = best_low(1) if 1 in results.sizes.stream_loads else None
        several = [gbps for loads in results.sizes.stream_loads if loads > 1
                   if (gbps := best_low(loads)) is not None]
        if not one or not several:
            return []
        return [Gain(item="latency", ratio=max(several) / one, context="gain.lab03.loads_in_flight")]

    # ----- tables --------------------------------------------------------------------------------
    def tables(self, results: Lab03Results) -> list[Table]:
        out = [self._latency_table(results), self._little_table(results), self._memory_table(results),
               self._round_trip_table(results), self._volkov_table(results), self._arithmetic_table(results),
               self._register_table(results), self._waves_table(results)]
        if isinstance(results.ncu, NcuStep):
            arch = results.device.arch
            out.append(Table("lab03.ncu", (
                Column("launch", "label"), Column("kernel"), Column("registers", "count"),
                Column("dynamic_shared", "bytes"), Column("theoretical_calculator", "share"),
                Column("theoretical_ncu", "pct"), Column("achieved_ncu", "pct"), Column("waves", "decimal2"),
                Column("sm_busy", "share"), Column("issue_active", "pct"), Column("stall_long_scoreboard", "decimal2"),
                Column("stall_wait", "decimal2"), Column("stall_not_selected", "decimal2"),
                Column("local_sectors", "count")),
                tuple((launch.label, launch.kernel, launch.registers_per_thread, launch.dynamic_shared_bytes,
                       launch.calculated(arch).occupancy, launch.theoretical_pct, launch.achieved_pct,
                       launch.waves_per_sm, launch.sm_active_share, launch.issue_active_pct,
                       launch.stall_long_scoreboard, launch.stall_wait, launch.stall_not_selected,
                       launch.local_sectors) for launch in results.ncu.launches)))
        operands = self._operand_table(results)
        if operands is not None:
            out.append(operands)
        if isinstance(results.driver, DriverStep):
            driver = results.driver
            out.append(Table("lab03.driver", (
                Column("kernels", "count"), Column("configurations", "count"), Column("equal", "count"),
                Column("edge_cases", "count"), Column("edge_cases_agreeing", "count"),
                Column("edge_cases_not_modelled", "count")),
                ((driver.kernels, driver.configurations, driver.equal, driver.edge_cases, driver.edge_cases_agreeing,
                  driver.edge_cases_not_modelled),)))
        return out

    def _latency_table(self, results: Lab03Results) -> Table:
        rows = []
        for level in LEVELS:
            plateau = results.plateau(level)
            if plateau is not None:
                low, high = results.latency.window(level, results.device.l2_bytes)
                rows.append((f"level_{level}", low if low else None, high if math.isfinite(high) else None, plateau.points,
                             plateau.cycles, plateau.ns))
        return Table("lab03.latency", (Column("level", "label"), Column("from", "bytes"), Column("to", "bytes"),
                                       Column("points", "count"), Column("cycles", "ratio_plain"),
                                       Column("ns", "ratio_plain")), tuple(rows))

    def _little_table(self, results: Lab03Results) -> Table:
        """Little's law's inputs, as measured, and what they say is needed in flight."""
        rows = [("copy_bandwidth", results.memory.copy_gbps, "unit_gbps"),
                ("reference_" + results.memory.reference_is, None, "unit_none")]
        hbm = results.hbm_latency_seconds
        if hbm is not None:
            needed = results.memory.copy_gbps / 2 * 1e9 * hbm / results.device.sm_count
            rows += [("hbm_latency", hbm * 1e9, "unit_ns"), ("reads_in_flight_per_sm", needed / 1024, "unit_kib")]
        arithmetic = results.arithmetic
        rows += [("fma_latency", arithmetic.fma_latency_cycles, "unit_cycles"),
                 ("fma_in_flight_per_scheduler",
                  arithmetic.fma_latency_cycles * results.device.fma_issue_per_cycle, "unit_instructions")]
        return Table("lab03.little", (Column("quantity", "label"), Column("value", "ratio_plain"),
                                      Column("unit", "label")), tuple(rows))

    def _memory_table(self, results: Lab03Results) -> Table:
        copy = results.memory.copy_gbps
        rows = tuple((curve.loads, curve.registers_per_thread, curve.max_warps_per_sm, curve.latency_warps,
                      curve.predicted_knee, curve.knee.x if curve.knee.within else None, f"knee_{curve.knee.side}",
                      curve.knee_ratio, curve.knee.plateau / copy) for curve in results.memory_curves())
        return Table("lab03.memory", (
            Column("loads", "count"), Column("registers", "count"), Column("warps_max", "count"),
            Column("knee_latency_only", "decimal2"), Column("knee_predicted", "decimal2"),
            Column("knee_measured", "decimal2"), Column("knee_where", "label"), Column("knee_ratio", "decimal2"),
            Column("plateau_of_copy", "share")), rows)

    def _volkov_table(self, results: Lab03Results) -> Table:
        """Each curve's best point at LOW_OCCUPANCY theoretical occupancy or less (Volkov's bar)."""
        copy = results.memory.copy_gbps
        rows = []
        for loads in results.sizes.stream_loads:
            low = results.low_occupancy_points(loads)
            best = max(low, key=lambda p: p.gbps, default=None)
            rows.append((loads, None if best is None else best.launch.warps_per_sm,
                         None if best is None else best.gbps, None if best is None else best.gbps / copy))
        return Table("lab03.volkov", (Column("loads", "count"), Column("best_low_warps", "count"),
                                      Column("best_low_gbps", "gbps"), Column("best_low_of_copy", "share")),
                     tuple(rows))

    def _round_trip_table(self, results: Lab03Results) -> Table:
        """A warp's round trip at the fewest warps measured: the model's latency + transfer beside
        Little's law applied to the measurement."""
        rows = []
        for curve in results.memory_curves():
            model = curve.round_trip_model_seconds
            latency_ns = None if results.hbm_latency_seconds is None else results.hbm_latency_seconds * 1e9
            rows.append((curve.loads, curve.first_warps_per_sm, latency_ns,
                         None if model is None else model * 1e9 - latency_ns,
                         None if model is None else model * 1e9, curve.first_round_trip_seconds * 1e9,
                         None if model is None else curve.first_round_trip_seconds / model))
        return Table("lab03.round_trip", (
            Column("loads", "count"), Column("first_warps", "count"), Column("trip_latency_ns", "ratio_plain"),
            Column("trip_transfer_ns", "ratio_plain"), Column("trip_model_ns", "ratio_plain"),
            Column("trip_measured_ns", "ratio_plain"), Column("trip_measured_over_model", "decimal2")), tuple(rows))

    def _arithmetic_table(self, results: Lab03Results) -> Table:
        peak = results.fp32_peak_gflops()
        rows = []
        for chains in results.sizes.fma_chains:
            knee, predicted = results.fma_knee(chains), results.predicted_fma_knee(chains)
            best = max(p.gflops for p in results.arithmetic.curve(chains))
            rows.append((chains, results.arithmetic.kernel(chains).registers_per_thread, predicted,
                         knee.x if knee.within else None, f"knee_{knee.side}",
                         predicted / knee.x if knee.within else None, best, best / peak))
        return Table("lab03.arithmetic", (
            Column("chains", "count"), Column("registers", "count"), Column("knee_predicted", "ratio_plain"),
            Column("knee_measured", "ratio_plain"), Column("knee_where", "label"), Column("knee_ratio", "decimal2"),
            Column("best_gflops", "count"), Column("of_peak", "share")), tuple(rows))

    def _operand_table(self, results: Lab03Results) -> Table | None:
        """The one-chain FMA kernel with ``a`` in a register and as an immediate operand, side by side at
        the most warps per SM: where its FFMAs' sources come from (SASS), its share of the FP32 peak,
        and what Nsight Compute sees of its issue (None in a record from before issue 29)."""
        immediate = results.arithmetic.immediate_curve()
        if not immediate:
            return None
        sass = results.sass if isinstance(results.sass, SassStep) else None
        launches = {launch.label: launch for launch in results.ncu.launches} if isinstance(results.ncu, NcuStep) else {}
        full = results.device.arch.max_warps_per_sm
        peak = results.fp32_peak_gflops()
        rows = []
        for key, kernel, curve, label_ in (
                ("fma_operand_register", "fma_chains_1", results.arithmetic.curve(1), f"fma_1_chain_{full}_warps"),
                ("fma_operand_immediate", "fma_chains_1_imm", immediate, f"fma_1_chain_imm_{full}_warps")):
            code = sass.kernel(kernel) if sass else None
            launch = launches.get(label_)
            rows.append((key, code.ffma if code else None, code.three_register if code else None,
                         code.reused if code else None, curve[-1].launch.warps_per_sm, curve[-1].gflops / peak,
                         launch.issue_active_pct if launch else None, launch.ffma_share if launch else None,
                         launch.eligible_warps if launch else None, launch.stall_wait if launch else None,
                         launch.stall_dispatch if launch else None, launch.stall_not_selected if launch else None))
        return Table("lab03.fma_operands", (
            Column("fma_kernel", "label"), Column("sass_ffma", "count"), Column("sass_ffma_three_registers", "count"),
            Column("sass_ffma_reused", "count"), Column("warps_per_sm", "count"), Column("of_peak", "share"),
            Column("issue_active", "pct"), Column("ffma_share", "share"), Column("eligible_warps", "decimal2"),
            Column("stall_wait", "decimal2"), Column("stall_dispatch", "decimal2"),
            Column("stall_not_selected", "decimal2")), tuple(rows))

    def _register_table(self, results: Lab03Results) -> Table:
        fastest = results.fastest_register_variant().timing.median_seconds
        rows = []
        for variant in results.registers.variants:
            calculated = results.register_occupancy(variant)
            rows.append(("none" if variant.max_registers is None else str(variant.max_registers),
                         variant.registers_per_thread, variant.local_bytes_per_thread,
                         None if calculated is None else calculated.blocks_per_sm,
                         None if calculated is None else calculated.occupancy, variant.timing.median_seconds,
                         variant.timing.median_seconds / fastest))
        return Table("lab03.registers", (
            Column("max_registers"), Column("registers", "count"), Column("local_bytes", "count"),
            Column("blocks_per_sm", "count"), Column("occupancy", "share"), Column("time_ms", "ms"),
            Column("vs_fastest", "decimal2")), tuple(rows))

    def _waves_table(self, results: Lab03Results) -> Table:
        sms, resident = results.device.sm_count, results.waves.launch.blocks_per_sm
        rows = tuple((p.grid_blocks, occupancy.waves(p.grid_blocks, sms, resident),
                      occupancy.tail_efficiency(p.grid_blocks, sms, resident), p.timing.median_seconds,
                      results.predicted_wave_seconds(p.grid_blocks),
                      p.timing.median_seconds / results.predicted_wave_seconds(p.grid_blocks))
                     for p in results.waves.points)
        return Table("lab03.waves", (Column("grid_blocks", "count"), Column("waves", "decimal3"),
                                     Column("tail_efficiency", "share"), Column("time_us", "us"),
                                     Column("predicted_us", "us"), Column("measured_over_predicted", "decimal2")),
                     rows)

    # ----- figures ---------------------------------------------------------------------------------
    def figures(self, results: Lab03Results, lang: str) -> list[etree.Element]:
        charts = [self._latency_chart(results, lang), self._memory_chart(results, lang),
                  self._arithmetic_chart(results, lang), self._waves_chart(results, lang)]
        out = []
        for key, svg in charts:
            figure = etree.Element("figure", {"class": "lab-figure"})
            figure.append(svg)
            etree.SubElement(figure, "figcaption").text = label(lang, f"lab03.plot.{key}.caption")
            out.append(figure)
        return out

    @staticmethod
    def _words(lang: str, key: str) -> str:
        return label(lang, f"lab03.plot.{key}")

    def _latency_chart(self, results: Lab03Results, lang: str):
        points = results.latency.points
        clock_mhz = sorted(p.clock_mhz for p in points)[len(points) // 2]
        cycles = [p.cycles_per_step for p in points]
        x = Axis(self._words(lang, "latency.x"), points[0].working_set_bytes, points[-1].working_set_bytes, log=True,
                 base=2, format_tick=lambda value: format_bytes(value, lang),
                 ticks=tuple(float(1 << p) for p in range(12, 31, 3)))
        y = Axis(self._words(lang, "latency.y"), min(cycles) / 1.5, max(cycles) * 1.5, log=True,
                 format_tick=lambda value: format_number(value, 0, lang))
        guides = [Guide(f"L2 {format_bytes(results.device.l2_bytes, lang)}", results.device.l2_bytes, vertical=True)]
        guides += [Guide(label(lang, f"value.level_{level}"), plateau.cycles) for level in LEVELS
                   if (plateau := results.plateau(level)) is not None]
        series = [Series(self._words(lang, "latency.series"), tuple((p.working_set_bytes, p.cycles_per_step)
                                                                   for p in points), SERIES[0])]
        second = SecondAxis(self._words(lang, "latency.y2"), 1e3 / clock_mhz,
                            lambda value: format_number(value, 0, lang))
        return "latency", line_chart(series, x, y, self._words(lang, "latency.caption"), tuple(guides), second)

    def _warps_axes(self, lang: str, chart: str, points, top: float) -> tuple[list[int], Axis, Axis]:
        """The warps per SM the ``points`` were measured at, and a chart's axes: those warps on a
        base-2 log scale from the fewest to the most, and 0 to 1.1 x ``top``."""
        warps = sorted({p.launch.warps_per_sm for p in points})
        x = Axis(self._words(lang, f"{chart}.x"), warps[0], warps[-1], log=True, base=2,
                 format_tick=lambda value: format_number(value, 0, lang))
        return warps, x, Axis(self._words(lang, f"{chart}.y"), 0, top * 1.1,
                              format_tick=lambda value: format_number(value, 0, lang))

    def _memory_chart(self, results: Lab03Results, lang: str):
        copy = results.memory.copy_gbps
        top = max([copy] + [p.gbps for p in results.memory.points])
        warps, x, y = self._warps_axes(lang, "memory", results.memory.points, top)
        series = []
        for index, loads in enumerate(results.sizes.stream_loads):
            colour = SERIES[index % len(SERIES)]
            curve = results.memory.curve(loads)
            series.append(Series(self._words(lang, "memory.series").format(loads=loads),
                                 tuple((p.launch.warps_per_sm, p.gbps) for p in curve), colour))
            if results.predicted_copy_gbps(loads, 1) is not None:
                grid = _geometric(warps[0], warps[-1])
                series.append(Series("", tuple((w, results.predicted_copy_gbps(loads, w)) for w in grid), colour,
                                     dashed=True, marker="none", legend=False))
        series.append(Series(self._words(lang, "little"), (), REFERENCE, dashed=True, marker="none"))
        arch = results.device.arch
        guides = (Guide(self._words(lang, "memory.copy"), copy),
                  Guide(format_percent(100 * LOW_OCCUPANCY, 0, lang), LOW_OCCUPANCY * arch.max_warps_per_sm,
                        vertical=True))
        return "memory", line_chart(series, x, y, self._words(lang, "memory.caption"), guides)

    def _arithmetic_chart(self, results: Lab03Results, lang: str):
        peak = results.fp32_peak_gflops() / 1e3
        warps, x, y = self._warps_axes(lang, "arithmetic", results.arithmetic.points, peak)
        series = []
        for index, chains in enumerate(results.sizes.fma_chains):
            colour = SERIES[index % len(SERIES)]
            series.append(Series(self._words(lang, "arithmetic.series").format(chains=chains),
                                 tuple((p.launch.warps_per_sm, p.gflops / 1e3) for p in results.arithmetic.curve(chains)),
                                 colour))
            series.append(Series("", tuple((w, results.predicted_fma_gflops(chains, w) / 1e3)
                                           for w in _geometric(warps[0], warps[-1])),
                                 colour, dashed=True, marker="none", legend=False))
        series.append(Series(self._words(lang, "little"), (), REFERENCE, dashed=True, marker="none"))
        return "arithmetic", line_chart(series, x, y, self._words(lang, "arithmetic.caption"),
                                        (Guide(self._words(lang, "arithmetic.peak"), peak),))

    def _waves_chart(self, results: Lab03Results, lang: str):
        points = results.waves.points
        slots = results.wave_slots()
        top_grid = points[-1].grid_blocks
        x = Axis(self._words(lang, "waves.x"), 0, top_grid * 1.02, format_tick=lambda value: format_number(value, 0, lang),
                 ticks=tuple(float(k * slots) for k in range(0, top_grid // slots + 1)))
        top = max(max(p.timing.median_seconds for p in points), results.predicted_wave_seconds(top_grid)) * 1e6
        y = Axis(self._words(lang, "waves.y"), 0, top * 1.1, format_tick=lambda value: format_number(value, 0, lang))
        one_wave = results.one_wave_seconds() * 1e6
        whole = math.ceil(top_grid / slots)
        staircase = [(0.0, one_wave)] + [(float(k * slots), (k + 1) * one_wave) for k in range(1, whole)]
        staircase.append((float(top_grid), whole * one_wave))
        series = [Series(self._words(lang, "waves.predicted"), tuple(staircase), SERIES[1], dashed=True,
                         marker="none", steps=True),
                  Series(self._words(lang, "waves.measured"),
                         tuple((p.grid_blocks, p.timing.median_seconds * 1e6) for p in points), SERIES[0])]
        return "waves", line_chart(series, x, y, self._words(lang, "waves.caption"))


def _geometric(low: float, high: float, per_octave: int = 8) -> list[float]:
    """Points from low to high, evenly spaced on a log scale (for drawing a model's curve)."""
    count = max(1, round(math.log2(high / low) * per_octave))
    return [low * (high / low) ** (k / count) for k in range(count + 1)]


LAB = Lab03()
