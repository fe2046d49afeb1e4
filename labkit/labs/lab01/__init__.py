"""Lab 01: measure the roof, then put kernels under it (chapter 1).

1. Ceilings, with labkit's own kernels: HBM bandwidth (a copy, against ``cupy.copyto``), FP32
   and FP64 FMA throughput (against SMs x lanes x 2 x the SM clock read during the run).
2. The intensity sweep: one kernel whose FLOP per byte is a parameter, from 1/8 to 256.
3. Placement: chapter 1's sample kernels measured, placed, and judged by t_real / t_min.
4. What DRAM moved for each placed kernel (ncu): bytes in excess of the minimum, or time in excess.
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from labkit.labs.base import Lab, Need
from labkit.labs.ceilings import COPY_ARRAY_BYTES
from labkit.labs.lab01.results import Lab01Results, Sizes
from labkit.report.labels import label
from labkit.report.roofline_svg import roofline_svg
from labkit.report.tables import CLOCK_COLUMNS, Column, Table, clock_cells


class Lab01(Lab[Sizes, Lab01Results]):
    folder = "01-roofline"
    results_type = Lab01Results
    needs = (Need("cupy", "the copy ceiling's reference, cupy.copyto",
                  "the copy is compared with the theoretical peak instead"),
             Need("ncu", "the DRAM bytes each placed kernel really moved (excess traffic or excess time)",
                  "the placement shows times alone, its DRAM columns empty"))
    gpu_sizes = Sizes(copy_bytes=COPY_ARRAY_BYTES, fma_blocks_per_sm=8, fma_threads=256, fma_trips=1024,
                      sweep_elements=1 << 28, vector_elements=1 << 28, gemm_n=4096, stencil_n=16384, repeats=20)
    simulator_sizes = Sizes(copy_bytes=8192, fma_blocks_per_sm=1, fma_threads=32, fma_trips=1, sweep_elements=4096,
                            vector_elements=1000, gemm_n=64, stencil_n=24, repeats=1, sweep_fmas=(0, 1, 3))

    def device_notes(self, facts) -> list[str]:
        from labkit.gpu.device import fp64_lanes_per_sm, fp64_ratio

        ratio = fp64_ratio(facts.compute_capability)
        if ratio >= 0.5:
            return []
        trips = self.sizes_for(facts).fma_trips
        shortened = (f", and the FMA chains run {trips} trips ({self.gpu_sizes.fma_trips} on the H200) to keep "
                     "each call short") if trips != self.gpu_sizes.fma_trips else ""
        return [f"FP64 runs at 1:{round(1 / ratio)} of FP32 here ({fp64_lanes_per_sm(facts.compute_capability)} lanes "
                f"per SM): the FP64 ceiling is {facts.fp64_peak_gflops:.0f} GFLOP/s at most{shortened}"]

    def tables(self, results: Lab01Results) -> list[Table]:
        hbm = results.ceilings.hbm
        ceilings = [("hbm", hbm.gbps, hbm.reference_gbps, hbm.gbps / hbm.reference_gbps, hbm.reference_is,
                     *clock_cells(hbm.timing))]
        for precision in ("fp32", "fp64"):
            ceiling = getattr(results.ceilings, precision)
            measured, reference = ceiling.gflops, results.reference_gflops(precision)
            ceilings.append((precision, measured, reference, measured / reference, "theoretical_at_clock",
                             ceiling.timing.sm_clock_ran_mhz, ceiling.sm_clock_mhz))
        tensor_rows = []
        for ceiling in results.tensor:
            reference = results.tensor_reference_gflops(ceiling)
            measured = ceiling.gflops
            top = results.device.tensor_peak_gflops(ceiling.precision)
            tensor_rows.append((f"tensor.{ceiling.precision}", ceiling.library, measured, reference,
                                measured / reference if measured and reference else None,
                                results.ridge(measured) if measured else None,
                                top / results.device.hbm_peak_gbps if top else None,
                                *clock_cells(ceiling.timing), ceiling.unavailable))
        tensor = ([Table("lab01.tensor", (Column("ceiling", "label"), Column("library"), Column("measured", "count"),
                                          Column("reference", "count"), Column("ratio", "share"),
                                          Column("ridge_measured", "intensity"), Column("ridge_theoretical", "intensity"),
                                          *CLOCK_COLUMNS, Column("unavailable")), tuple(tensor_rows))]
                  if tensor_rows else [])
        return [
            Table("lab01.ceilings", (Column("ceiling", "label"), Column("measured", "count"),
                                     Column("reference", "count"), Column("ratio", "share"),
                                     Column("reference_is", "label"), *CLOCK_COLUMNS), tuple(ceilings)),
            Table("lab01.sweep", (Column("intensity", "intensity"), Column("gflops", "count"),
                                  Column("roof_gflops", "count"), Column("of_roof", "share")),
                  tuple((p.intensity, p.gflops, results.roof_gflops(p.intensity), results.of_roof(p))
                        for p in results.sweep)),
            Table("lab01.placement", (Column("kernel"), Column("intensity", "intensity"), Column("bound", "label"),
                                      Column("t_real_us", "us"), Column("t_min_us", "us"),
                                      Column("t_ratio", "verdict_ratio"), Column("verdict", "label"),
                                      Column("dram_moved_ncu_mb", "count"), Column("dram_over_minimum", "decimal2"),
                                      Column("dram_of_copy_roof", "share")),
                  tuple((k.kernel, k.intensity, f"bound.{results.bound(k).value}", k.t_real_seconds, results.t_min_seconds(k),
                         results.t_ratio(k), results.verdict(k).value, *_traffic_cells(results, k))
                        for k in results.placement)),
        ] + tensor

    def figures(self, results: Lab01Results, lang: str) -> list[etree.Element]:
        """The measured roofline: theoretical and measured roofs, the tensor cores' measured roofs (each
        named by its precision; the table gives their accumulation), the sweep, the placed kernels."""
        svg = roofline_svg(
            measured=(results.peak_gflops, results.bandwidth_gbps),
            theoretical=(results.reference_gflops("fp32"), results.device.hbm_peak_gbps),
            sweep=[(p.intensity, p.gflops) for p in results.sweep],
            kernels=[(k.kernel, k.intensity, k.gflops) for k in results.placement],
            words={key: label(lang, f"lab01.plot.{key}") for key in ("x", "y", "theoretical", "measured", "sweep", "extra")},
            extra_roofs=[(c.precision.upper(), c.gflops) for c in results.tensor if c.gflops is not None],
        )
        figure = etree.Element("figure", {"class": "lab-figure"})
        figure.append(svg)
        etree.SubElement(figure, "figcaption").text = label(lang, "lab01.plot.caption")
        return [figure]


def _traffic_cells(results: Lab01Results, kernel) -> tuple[float | None, float | None, float | None]:
    """DRAM MB read + written (ncu), over the kernel's minimum bytes, and per second over the copy
    roof; dashes without ncu or in a record from before issue 29."""
    traffic = results.traffic_of(kernel.kernel)
    if traffic is None:
        return None, None, None
    return traffic.dram_bytes / 1e6, results.dram_over_minimum(kernel), results.dram_share_of_roof(kernel)


LAB = Lab01()
