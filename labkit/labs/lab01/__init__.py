"""Lab 01: measure the roof, then put kernels under it (chapter 1).

1. Ceilings, with labkit's own kernels: HBM bandwidth (a copy, against ``cupy.copyto``), FP32
   and FP64 FMA throughput (against SMs x lanes x 2 x the SM clock read during the run).
2. The intensity sweep: one kernel whose FLOP per byte is a parameter, from 1/8 to 256.
3. Placement: chapter 1's sample kernels measured, placed, and judged by t_real / t_min.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

LAB_ID = "lab-01"
LAB_DIR = Path(__file__).resolve().parents[3] / "labs" / "01-roofline"

#: FMAs per element of each sweep point (0: one add). I = 1/8 for the add, fmas / 4 otherwise.
SWEEP_FMAS = (0, 1, 2, 4, 8, 16, 32, 48, 64, 128, 256, 512, 1024)
SAMPLE_KERNELS = ("saxpy", "reduction", "gemm_tile32", "stencil_5pt")
#: A sweep point counts as on the roof within this fraction of min(P, I x B), both measured.
ROOF_TOLERANCE = 0.10


@dataclass(frozen=True)
class Sizes:
    copy_bytes: int
    fma_blocks_per_sm: int
    fma_threads: int
    fma_trips: int
    sweep_elements: int       # a multiple of SWEEP_THREADS x SWEEP_ELEMENTS_PER_THREAD (roofline_kernels)
    vector_elements: int      # SAXPY and the reduction
    gemm_n: int
    stencil_n: int
    repeats: int


GPU_SIZES = Sizes(copy_bytes=2 << 30, fma_blocks_per_sm=8, fma_threads=256, fma_trips=1024,
                  sweep_elements=1 << 28, vector_elements=1 << 28, gemm_n=4096,
                  stencil_n=16384, repeats=20)
SIMULATOR_SIZES = Sizes(copy_bytes=8192, fma_blocks_per_sm=1, fma_threads=32, fma_trips=1, sweep_elements=4096,
                        vector_elements=1000, gemm_n=64, stencil_n=24, repeats=1)

_NUMBER = {"type": "number"}
_POSITIVE = {"type": "number", "exclusiveMinimum": 0}
RESULTS_SCHEMA = {
    "type": "object",
    "required": ["sizes", "checks", "device", "ceilings", "sweep", "placement"],
    "properties": {
        "sizes": {"type": "object", "required": list(Sizes.__dataclass_fields__)},
        "checks": {"type": "array", "items": {"type": "object", "required": ["name", "passed"],
                                              "properties": {"passed": {"const": True}}}},
        "device": {"type": "object", "required": ["sm_count", "hbm_peak_gbps", "fp32_lanes_per_sm"]},
        "ceilings": {"type": "object", "required": ["hbm", "fp32", "fp64"],
                     "properties": {name: {"type": "object", "required": ["measured", "reference", "ratio"],
                                           "properties": {"measured": _POSITIVE, "reference": _POSITIVE,
                                                          "ratio": _POSITIVE}}
                                    for name in ("hbm", "fp32", "fp64")}},
        "sweep": {"type": "array", "minItems": len(SWEEP_FMAS),
                  "items": {"type": "object", "required": ["fmas", "intensity", "gflops", "roof_gflops", "of_roof"],
                            "properties": {"intensity": _POSITIVE, "gflops": _POSITIVE, "roof_gflops": _POSITIVE,
                                           "of_roof": _NUMBER}}},
        "placement": {"type": "array", "minItems": len(SAMPLE_KERNELS),
                      "items": {"type": "object",
                                "required": ["kernel", "intensity", "t_real_seconds", "t_min_seconds", "ratio",
                                             "verdict", "bound", "gflops"],
                                "properties": {"kernel": {"enum": list(SAMPLE_KERNELS)},
                                               "verdict": {"enum": ["stop", "fine-tuning", "structural"]},
                                               "bound": {"enum": ["memory", "compute"]}}}},
    },
}


def tables(results: dict) -> list:
    """The recorded results as language-neutral tables (labkit.labs.tables)."""
    from labkit.labs.tables import Column, Table

    ceilings = results["ceilings"]
    return [
        Table("lab01.ceilings", (Column("ceiling", "label"), Column("measured", "count"), Column("reference", "count"),
                                 Column("ratio", "share"), Column("reference_is", "label")),
              tuple((name, ceilings[name]["measured"], ceilings[name]["reference"], ceilings[name]["ratio"],
                     ceilings[name]["reference_is"]) for name in ("hbm", "fp32", "fp64"))),
        Table("lab01.sweep", (Column("intensity", "intensity"), Column("gflops", "count"),
                              Column("roof_gflops", "count"), Column("of_roof", "share")),
              tuple((p["intensity"], p["gflops"], p["roof_gflops"], p["of_roof"]) for p in results["sweep"])),
        Table("lab01.placement", (Column("kernel"), Column("intensity", "intensity"), Column("bound", "label"),
                                  Column("t_real_us", "us"), Column("t_min_us", "us"), Column("t_ratio", "ratio_plain"),
                                  Column("verdict", "label")),
              tuple((p["kernel"], p["intensity"], p["bound"], p["t_real_seconds"], p["t_min_seconds"], p["ratio"],
                     p["verdict"]) for p in results["placement"])),
    ]


def figures(results: dict, lang: str) -> list:
    """The measured roofline: theoretical and measured roofs, the sweep, the placed kernels."""
    import xml.etree.ElementTree as etree

    from labkit.site.labels import label
    from labkit.site.roofline_svg import roofline_svg

    ceilings = results["ceilings"]
    svg = roofline_svg(
        measured=(ceilings["fp32"]["measured"], ceilings["hbm"]["measured"]),
        theoretical=(ceilings["fp32"]["reference"], results["device"]["hbm_peak_gbps"]),
        sweep=[(p["intensity"], p["gflops"]) for p in results["sweep"]],
        kernels=[(p["kernel"], p["intensity"], p["gflops"]) for p in results["placement"]],
        words={key: label(lang, f"lab01.plot.{key}") for key in ("x", "y", "theoretical", "measured", "sweep")},
    )
    figure = etree.Element("figure", {"class": "lab-figure"})
    figure.append(svg)
    etree.SubElement(figure, "figcaption").text = label(lang, "lab01.plot.caption")
    return [figure]
