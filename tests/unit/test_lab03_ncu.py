"""Lab 03's reading of Nsight Compute's raw page: one profiled launch per PROFILED label, units
converted (ncu scales bytes per block to Kbyte/block), stall reasons and SM activity kept."""

import csv
import io

import pytest

from labkit.labs.lab03.program import NCU_METRICS, PROFILED, ncu_launch
from labkit.profiling import ncu

LAUNCH_COLUMNS = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
                  "Grid Size", "Device", "CC"]
UNITS = {"gpu__time_duration.sum": "us", "sm__maximum_warps_per_active_cycle_pct": "%",
         "sm__warps_active.avg.pct_of_peak_sustained_active": "%", "launch__registers_per_thread": "register/thread",
         "launch__shared_mem_per_block_dynamic": "Kbyte/block", "launch__waves_per_multiprocessor": "",
         "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": "sector", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": "sector",
         "sm__cycles_active.avg": "cycle", "sm__cycles_elapsed.avg": "cycle"}


def raw_page(rows: list[dict]) -> str:
    text = io.StringIO()
    writer = csv.writer(text, quoting=csv.QUOTE_ALL)
    writer.writerow(LAUNCH_COLUMNS + list(NCU_METRICS))
    writer.writerow([""] * len(LAUNCH_COLUMNS) + [UNITS.get(m, "block" if "limit" in m else
                                                           "inst" if "ratio" in m else "%") for m in NCU_METRICS])
    for index, row in enumerate(rows):
        launch = [str(index), "9", "python3", "h200", row["name"], "1", "7", row["block"], row["grid"], "0", "9.0"]
        writer.writerow(launch + [row.get(m, "1") for m in NCU_METRICS])
    return text.getvalue()


def test_a_profiled_launch_is_read_with_its_units():
    text = raw_page([{"name": "_ZN6labkit7kernels3ilp13stream_copy_8B2v1E5ArrayIfLi1E1C7mutable7alignedE",
                      "block": "(32, 1, 1)", "grid": "(2112, 1, 1)", "launch__registers_per_thread": "48",
                      "launch__shared_mem_per_block_dynamic": "12.800000", "gpu__time_duration.sum": "512.25",
                      "sm__maximum_warps_per_active_cycle_pct": "25", "sm__warps_active.avg.pct_of_peak_sustained_active": "24.6",
                      "l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum": "0", "l1tex__t_sectors_pipe_lsu_mem_local_op_st.sum": "0",
                      "sm__cycles_active.avg": "1,000,000", "sm__cycles_elapsed.avg": "1,010,000",
                      "smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio": "35.5"}])
    (profile,) = ncu.parse_raw_csv(text)
    launch = ncu_launch(PROFILED[0], profile)
    assert launch.kernel == "stream_copy_8" and launch.threads_per_block == 32 and launch.grid_blocks == 2112
    assert launch.dynamic_shared_bytes == 12800 and launch.registers_per_thread == 48
    assert launch.duration_seconds == pytest.approx(512.25e-6)
    assert launch.theoretical_pct == 25 and launch.achieved_pct == 24.6 and launch.stall_long_scoreboard == 35.5
    assert launch.sm_active_share == pytest.approx(1 / 1.01)
    assert launch.local_sectors == 0


def test_bytes_per_block_in_an_unknown_unit_are_named():
    text = raw_page([{"name": "fma_chains_1", "block": "(128, 1, 1)", "grid": "(264, 1, 1)"}])
    text = text.replace('"Kbyte/block"', '"Gbyte/s"')
    (profile,) = ncu.parse_raw_csv(text)
    with pytest.raises(ncu.NcuError, match="launch__shared_mem_per_block_dynamic is in 'Gbyte/s', not bytes per block"):
        ncu_launch("fma", profile)
