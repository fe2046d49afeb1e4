"""Lab 05: chapter 5's checklist on eight mystery kernels (labkit.kernels.mysteries).

Seven kernels each carry one planted flaw and have a repaired twin; the eighth is already at the
DRAM roof, the negative control. The lab checks every kernel against NumPy, times each mystery
against its twin (and lab 01's copy, the ceiling the control is judged against), and profiles all
of them with Nsight Compute in one ncu process. ``labkit diagnose`` must name the planted flaw first
for every mystery and call the control at the roof: the chapter's quizzes ask the reader to do it
first, from the same profiles.
"""

from __future__ import annotations

from labkit.labs.base import Case, Gain, Lab, Need
from labkit.labs.lab05.results import CONTROL, MYSTERIES, PLANTED, PROFILED_KERNELS, Lab05Results, Sizes
from labkit.models.roofline import verdict
from labkit.profiling import checklist
from labkit.profiling.diagnosis import StoredProfile
from labkit.report.tables import Column, Table


def assessed(profile: StoredProfile) -> checklist.Assessment:
    return checklist.assess(profile.diagnosis())


class Lab05(Lab[Sizes, Lab05Results]):
    folder = "05-checklist"
    results_type = Lab05Results
    needs = (Need("ncu", "the profile of every mystery kernel, diagnosed with the checklist",
                  "the times are measured, the diagnoses are not: labkit diagnose has nothing to read"),)
    gpu_sizes = Sizes(matrix_side=4096, elements=1 << 24, slices=64, slice_elements=4096, stream_elements=1 << 25,
                      hist_threads=1 << 18, list_nodes=1 << 20, walk_warps=8448, walk_steps=100)
    simulator_sizes = Sizes(matrix_side=64, elements=256, slices=2, slice_elements=128, stream_elements=2048,
                            hist_threads=256, list_nodes=256, walk_warps=8, walk_steps=4, repeats=2)

    def device_notes(self, facts) -> list[str]:
        from labkit.gpu.device import fp64_ratio

        ratio = fp64_ratio(facts.compute_capability)
        if ratio >= 0.5:
            return []
        return [f"FP64 runs at 1:{round(1 / ratio)} of FP32 here: kernel_b's planted FP64 costs far more than on "
                "the H200 (1:2), so its repair gains more"]

    def tables(self, results: Lab05Results) -> list[Table]:
        rows = []
        for pair in results.pairs:
            profile = results.profile(f"kernel_{pair.mystery}")
            found = assessed(profile) if profile else None
            first = found.first if found else None
            planted = PLANTED[pair.mystery]
            matches = None if found is None else (found.at_roof if planted is None else bool(first and first.item == planted))
            rows.append((f"kernel_{pair.mystery}", f"item.{planted}" if planted else "item.control",
                         f"item.{found.verdict}" if found else None, first.gain_pct if first else None,
                         pair.faulty.median_seconds, pair.repaired.median_seconds if pair.repaired else None,
                         pair.gain, matches))
        out = [Table("lab05.kernels", (Column("mystery"), Column("planted", "label"), Column("first_item", "label"),
                                       Column("item_gain_pct", "pct"), Column("faulty_us", "us"),
                                       Column("repaired_us", "us"), Column("gain", "ratio"),
                                       Column("matches", "bool")), tuple(rows))]
        control = results.pair(CONTROL).faulty
        ratio = results.control_ratio_to_min
        out.append(Table("lab05.control", (Column("ceiling_gbps", "gbps"), Column("control_gbps", "gbps"),
                                           Column("of_hbm_peak", "share"), Column("t_ratio", "verdict_ratio"),
                                           Column("verdict", "label")),
                         ((results.ceiling_gbps, control.gbps(results.sizes.stream_bytes),
                           control.gbps(results.sizes.stream_bytes) / results.hbm_peak_gbps, ratio,
                           verdict(ratio, 1.0).value),)))
        if results.profile(PROFILED_KERNELS[0]) is not None:
            ncu_rows = []
            for name in PROFILED_KERNELS:
                diagnosis = results.profile(name).diagnosis()
                found = checklist.assess(diagnosis)
                busiest = diagnosis.busiest
                sol = diagnosis.speed_of_light
                ncu_rows.append((name, sol.duration_seconds, diagnosis.grid_blocks, sol.compute_pct, sol.memory_pct,
                                 diagnosis.quadrant.value, f"unit.{busiest.unit}" if busiest else None,
                                 busiest.pct if busiest else None, f"item.{found.verdict}",
                                 found.first.gain_pct if found.first else None))
            out.append(Table("lab05.ncu", (
                Column("kernel"), Column("duration_us", "us"), Column("grid_blocks", "count"),
                Column("compute_pct", "pct"), Column("memory_pct", "pct"), Column("quadrant", "label"),
                Column("busiest", "label"), Column("busiest_pct", "pct"), Column("first_item", "label"),
                Column("item_gain_pct", "pct")), tuple(ncu_rows)))
        return out

    def gains(self, results: Lab05Results) -> list[Gain]:
        """Each repaired twin against its mystery: the gain of the lever of its planted flaw."""
        return [Gain(item=PLANTED[p.mystery], ratio=p.gain, context=f"gain.lab05.{p.mystery}")
                for p in results.pairs if p.gain is not None]

    def cases(self, results: Lab05Results) -> dict[str, Case]:
        """The mysteries, for chapter 5's profile cards and quizzes (none without ncu's profiles)."""
        if results.profile(PROFILED_KERNELS[0]) is None:
            return {}
        return {mystery: Case(profile=results.profile(f"kernel_{mystery}"), planted=PLANTED[mystery],
                              faulty_seconds=results.pair(mystery).faulty.median_seconds,
                              repaired_seconds=(results.pair(mystery).repaired.median_seconds
                                                if results.pair(mystery).repaired else None),
                              ratio_to_min=results.control_ratio_to_min if mystery == CONTROL else None)
                for mystery in MYSTERIES}


LAB = Lab05()
