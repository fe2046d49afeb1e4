"""Lab 06: chapter 6's matrix multiply, from one thread per element to the tensor cores.

Every step (labkit.kernels.gemm_simt in Numba, labkit.kernels.gemm_cuda in CUDA C through CuPy)
is checked against NumPy, timed at 4096^3 (the fast ones at 8192^3 too) beside cuBLAS in the same
precision and the same run, and profiled by Nsight Compute in one ncu process, so that the chapter
can show, for each step, its rate against cuBLAS, its place under its roof, and what ``labkit
diagnose`` puts first.

On another GPU: sizes from its memory and its FP32 rate (sizing.py), and the steps its architecture
has (plan.py: the tensor-core steps from compute capability 8.0, wgmma on Hopper only).
"""

from __future__ import annotations

import xml.etree.ElementTree as etree

from labkit.labs.base import Case, Gain, Lab, Need
from labkit.labs.lab06.results import CUBLAS, PEERS, STEPS, Lab06Results, MmaRoof, Sizes, precision_of
from labkit.profiling import checklist
from labkit.report.labels import label
from labkit.report.roofline_svg import roofline_svg
from labkit.report.tables import CLOCK_COLUMNS, Column, Table, clock_cells

#: The per-clock roofline's intensity axis (FLOP per DRAM byte): from the naive step's few FLOP
#: per byte to the tensor-core steps' thousand or so.
ROOFLINE_X_RANGE = (1.0, 4096.0)
#: Two steps whose points lie closer than this (relative, on both axes) share one label (5b and
#: its BF16 twin 5c, 5g and 5h): labels drawn on top of each other would be unreadable.
SAME_POINT = 0.05


def _item_name(item: str) -> str:
    """'step wgmma', 'cuBLAS TF32', 'Triton BF16': how the doctor names what a GPU skips."""
    if item.startswith("cublas_") or item in PEERS:
        library = "cuBLAS" if item.startswith("cublas_") else "Triton"
        return f"{library} {precision_of(item).upper()}"
    return f"step {item}"


class Lab06(Lab[Sizes, Lab06Results]):
    folder = "06-matmul"
    results_type = Lab06Results
    needs = (Need("cupy", "the CUDA C steps (3c to 5h, compiled by NVRTC through CuPy's RawModule) and cuBLAS, "
                          "every step's reference",
                  "only the Numba steps run, with no cuBLAS to compare them with"),
             Need("nvcc", "step 5a (WMMA): its header mma.h, from a CUDA toolkit's include folder (CuPy's NVRTC "
                          "headers lack crt/mma.h)", "step 5a is skipped, the other CUDA C steps run"),
             Need("ncu", "the profile of every step, diagnosed (chapter 6's diagnosis blocks)",
                  "the steps are timed and checked, not diagnosed"),
             Need("triton", "the peer: Triton's standard GEMM timed beside cuBLAS (with PyTorch, whose tensors it "
                            "launches on)", "no peer is timed; the steps and cuBLAS are"))
    gpu_sizes = Sizes(side=4096, depth=4096, large_side=8192, check_side=512, check_depth=512, repeats=20)
    simulator_sizes = Sizes(side=32, depth=32, large_side=None, check_side=32, check_depth=32, repeats=1)

    def device_notes(self, facts) -> list[str]:
        """Each step or cuBLAS precision this GPU cannot run, and why (plan.py)."""
        from labkit.labs.lab06.plan import not_on

        return [f"skips {_item_name(item)}: {why}" for item, why in not_on(facts).items()]

    def tables(self, results: Lab06Results) -> list[Table]:
        regs = {r.kernel: r for r in results.resources}
        rows = []
        for s in STEPS:
            run = results.run(s.key)
            big = results.run(s.key, large=True)
            rows.append((f"step.lab06.{s.key}", f"language.lab06.{s.language}", f"precision.lab06.{s.precision}",
                         run.timing.median_seconds if run else None, run.tflops if run else None,
                         results.versus_cublas(s.key), results.of_peak(s.key), *clock_cells(run.timing if run else None),
                         big.tflops if big else None, results.versus_cublas(s.key, large=True),
                         big.timing.peak_clock_mhz if big else None, big.timing.throttled_repeats if big else None,
                         regs[s.key].registers if s.key in regs else None,
                         regs[s.key].local_bytes if s.key in regs else None, results.why_not_run(s.key)))
        out = [Table("lab06.steps", (
            Column("step", "label"), Column("language", "label"), Column("precision", "label"),
            Column("t_ms", "ms"), Column("tflops", "decimal2"), Column("vs_cublas", "share"), Column("units_peak", "share"),
            *CLOCK_COLUMNS, Column("tflops_large", "decimal2"), Column("vs_cublas_large", "share"),
            Column("clock_large_mhz", "count"), Column("throttled_large", "count"), Column("registers", "count"),
            Column("local_bytes", "count"), Column("unavailable")), tuple(rows))]
        cublas_rows = []
        for p in CUBLAS:
            run, big = results.cublas(p), results.cublas(p, large=True)
            cublas_rows.append((f"precision.lab06.{p}", run.tflops if run else None,
                                big.tflops if big else None, results.cublas_of_peak(p),
                                *clock_cells(run.timing if run else None),
                                big.timing.peak_clock_mhz if big else None,
                                big.timing.throttled_repeats if big else None,
                                results.unavailable.get(f"cublas_{p}")))
        out.append(Table("lab06.cublas", (Column("precision", "label"), Column("tflops", "decimal2"),
                                          Column("tflops_large", "decimal2"), Column("units_peak", "share"),
                                          *CLOCK_COLUMNS, Column("clock_large_mhz", "count"),
                                          Column("throttled_large", "count"), Column("unavailable")),
                         tuple(cublas_rows)))
        configs = {(c.kernel, c.side): c for c in results.peer_configs}
        peer_rows = []
        for item in PEERS:
            if item in results.absent_items():
                continue
            run, big = results.run(item), results.run(item, large=True)
            config, config_large = (configs.get((item, r.side)) if r else None for r in (run, big))
            peer_rows.append((f"precision.lab06.{precision_of(item)}", run.tflops if run else None,
                              results.versus_cublas(item), *clock_cells(run.timing if run else None),
                              big.tflops if big else None, results.versus_cublas(item, large=True),
                              big.timing.peak_clock_mhz if big else None,
                              f"{config.version} · {config.summary}" if config else None,
                              config_large.summary if config_large else None,
                              results.why_not_run(item) or results.unavailable_large.get(item)))
        if peer_rows:
            out.append(Table("lab06.peers", (
                Column("precision", "label"), Column("tflops", "decimal2"), Column("vs_cublas", "share"),
                *CLOCK_COLUMNS, Column("tflops_large", "decimal2"), Column("vs_cublas_large", "share"),
                Column("clock_large_mhz", "count"), Column("peer_config"), Column("peer_config_large"),
                Column("unavailable")), tuple(peer_rows)))
        roof = results.mma_roof
        if isinstance(roof, MmaRoof):
            dense = results.dense_flops_per_clock_per_sm()
            out.append(Table("lab06.mma_roof", (
                Column("mma_warps_per_sm", "count"), Column("tflops", "decimal2"), Column("flop_per_clock_sm", "count"),
                Column("dense_share", "share"), *CLOCK_COLUMNS),
                tuple((p.warps_per_sm, p.timing.gflops(p.flops) / 1e3, results.mma_roof_point_flops_per_clock(p),
                       None if not dense or results.mma_roof_point_flops_per_clock(p) is None
                       else results.mma_roof_point_flops_per_clock(p) / dense,
                       *clock_cells(p.timing)) for p in roof.points)))
        if any(results.profile(s.key) for s in STEPS):
            ncu_rows = []
            for s in STEPS:
                profile = results.profile(s.key)
                if profile is None:
                    continue
                diagnosis = profile.diagnosis()
                found = checklist.assess(diagnosis)
                busiest = diagnosis.busiest
                sol = diagnosis.speed_of_light
                ncu_rows.append((f"step.lab06.{s.key}", sol.duration_seconds, sol.compute_pct, sol.memory_pct,
                                 f"unit.{busiest.unit}" if busiest else None, busiest.pct if busiest else None,
                                 f"item.{found.verdict}", found.first.gain_pct if found.first else None))
            out.append(Table("lab06.ncu", (
                Column("step", "label"), Column("duration_us", "us"), Column("compute_pct", "pct"),
                Column("memory_pct", "pct"), Column("busiest", "label"), Column("busiest_pct", "pct"),
                Column("first_item", "label"), Column("item_gain_pct", "pct")), tuple(ncu_rows)))
        return out

    def figures(self, results: Lab06Results, lang: str) -> list[etree.Element]:
        """Every profiled step on one roofline per SM per clock, so that the clock each ran at cancels:
        its FLOP per clock per SM (at the SM clock measured while it ran) against its FLOP per DRAM
        byte (its profile); the FP32 FMA roof (2 x FP32 lanes), mma.sync's measured roof, the tensor
        cores' dense FP16 rate, and the DRAM roof in bytes per clock per SM at the GPU's maximum clock
        (the datasheet's bandwidth: at a lower clock a clock holds more bytes, so this roof is the
        lowest the DRAM can be). The shared-memory roof has no place on this axis (see chapter 6)."""
        from labkit.specs.datasheets import datasheet_for

        sheet = datasheet_for(results.device.name)
        dense = results.dense_flops_per_clock_per_sm("fp16")
        points = [(s.key, results.dram_intensity(s.key), results.step_flops_per_clock(s.key)) for s in STEPS]
        points = [p for p in points if p[1] is not None and p[2] is not None]
        if sheet is None or not dense or not points:
            return []
        dram_per_clock = sheet.hbm_gbps * 1e9 / (results.device.sm_count * results.device.max_sm_clock_mhz * 1e6)
        fp32_per_clock = 2.0 * results.device.fp32_lanes_per_sm
        named: list[tuple[str, float, float]] = []
        for key, intensity, rate in points:
            name = label(lang, f"value.step.lab06.{key}").split(" · ")[0]
            twin = next((i for i, (_, x, y) in enumerate(named) if abs(x / intensity - 1) < SAME_POINT
                         and abs(y / rate - 1) < SAME_POINT), None)
            if twin is None:
                named.append((name, intensity, rate))
            else:
                named[twin] = (f"{named[twin][0]} · {name}", *named[twin][1:])
        roof = results.mma_roof_flops_per_clock()
        svg = roofline_svg(measured=(dense, dram_per_clock), theoretical=(fp32_per_clock, dram_per_clock), sweep=[],
                           kernels=named, words={key: label(lang, f"lab06.plot.{key}")
                                                 for key in ("x", "y", "theoretical", "measured", "extra")},
                           extra_roofs=[("mma.sync", roof)] if roof else [], x_range=ROOFLINE_X_RANGE)
        figure = etree.Element("figure", {"class": "lab-figure"})
        figure.append(svg)
        etree.SubElement(figure, "figcaption").text = label(lang, "lab06.plot.caption")
        return [figure]

    def gains(self, results: Lab06Results) -> list[Gain]:
        """The checklist's levers measured here: the A tile's padding (bank conflicts); the same register
        tile in CUDA C (step 3 -> 3c: the instructions item, which `labkit diagnose` puts first on step
        3; the CUDA C kernel issues about half the instructions, and its register bound also gives it
        two blocks per SM where the Numba kernel has one, which the label says); and the tensor cores
        twice, through cuBLAS (SGEMM -> TF32 on the same FP32 data) and in the course's own kernels
        (the best FP32 SIMT step -> the FP16 mma.sync step). Step 3c -> 4 is not one: it changes the
        loads' width and double-buffers at once."""
        simt = results.best("fp32")
        pairs = (("bank-conflicts", "padding", results.run("shared"), results.run("padded")),
                 ("instructions", "cuda_c", results.run("regtile"), results.run("ctile")),
                 ("tensor-cores", "cublas_tf32", results.cublas("fp32"), results.cublas("tf32")),
                 ("tensor-cores", "mma", simt and results.run(simt), results.run("mma")))
        return [Gain(item=item, ratio=before.timing.median_seconds / after.timing.median_seconds,
                     context=f"gain.lab06.{context}") for item, context, before, after in pairs if before and after]

    def cases(self, results: Lab06Results) -> dict[str, Case]:
        """Each profiled step, for chapter 6's profile and diagnosis blocks (``lab-06-<step key>``)."""
        out = {}
        for position, s in enumerate(STEPS):
            profile, run = results.profile(s.key), results.run(s.key)
            if profile is not None and run is not None:
                after = STEPS[position + 1].key if position + 1 < len(STEPS) else None
                out[s.key] = Case(profile=profile, planted=None, faulty_seconds=run.timing.median_seconds,
                                  repaired_seconds=None, step=True,
                                  next_step=None if after is None else f"value.step.lab06.{after}")
        return out


LAB = Lab06()
