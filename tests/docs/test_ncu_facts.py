"""What chapters 1 and 4 say about Nsight Compute, held to what ncu 2025.3.1 printed on the H200
(tests/fixtures/h200-ch14): its defaults, its sets, the breakdown of a throughput, and where the
source counters of the naive matrix product land. Each test reads the recorded output and the
chapters' words in both languages."""

import csv
import re
from collections import defaultdict

import pytest

from tests.conftest import DOCS, REPO_ROOT

FIXTURE = REPO_ROOT / "tests/fixtures/h200-ch14"
VERSION = "2025.3.1"
LANGS = ("fr", "zh")


def chapter(lang: str, page: str) -> str:
    return (DOCS / lang / "performance" / page).read_text(encoding="utf-8")


def test_the_fixture_is_ncu_2025_3_1_on_an_h200():
    assert f"Version {VERSION}" in (FIXTURE / "ncu-version.txt").read_text()
    assert "NVIDIA H200" in (FIXTURE / "smi.txt").read_text()


@pytest.mark.parametrize("lang", LANGS)
def test_the_clock_and_cache_defaults_are_the_ones_ncu_states(lang):
    clock = (FIXTURE / "help-clock-control.txt").read_text()
    cache = (FIXTURE / "help-cache-control.txt").read_text()
    assert re.search(r"--clock-control arg \(=base\)", clock)
    assert re.findall(r"^ +(\w+)$", clock.split("--pipeline-boost-state")[0], re.M) == ["base", "none", "reset"]
    assert re.search(r"--cache-control arg \(=all\)", cache)
    section = chapter(lang, "04-profiling.md").split("{#nsight-compute}")[1].split("{#intrusive}")[0]
    assert VERSION in section and "`--clock-control base`" in section and "`--cache-control all`" in section
    assert "boost" not in section, "a clock default ncu 2025.3.1 does not have"


def _sets() -> dict[str, set[str]]:
    """ncu --list-sets: each set's sections, its wrapped column joined."""
    lines = (FIXTURE / "list-sets.txt").read_text().splitlines()
    header = next(line for line in lines if line.startswith("Identifier"))
    start, end = header.index("Sections"), header.index("Enabled")
    joined: dict[str, str] = {}
    current = None
    for line in lines[lines.index(header) + 2:]:
        current = line[:start].strip() or current
        joined[current] = joined.get(current, "") + line[start:end].strip()
    return {name: {s for s in text.replace(" ", "").split(",") if s} for name, text in joined.items()}


@pytest.mark.parametrize("lang", LANGS)
def test_set_full_already_holds_the_hierarchical_rooflines(lang):
    sets = _sets()
    hierarchical = {s for s in sets["roofline"] if s.startswith("SpeedOfLight_Hierarchical")}
    assert len(hierarchical) == 4 and hierarchical <= sets["full"] and sets["roofline"] <= sets["full"]
    assert not hierarchical & sets["detailed"]
    hierarchy = chapter(lang, "01-roofline.md").split("{#hierarchy}")[1].split("{#lab}")[0]
    assert VERSION in hierarchy and "`--set full`" in hierarchy and "`--set roofline`" in hierarchy


def test_a_throughput_is_the_largest_of_its_breakdown():
    """Memory Throughput is the busiest of its sub-metrics (here L1's load/store wavefronts, DRAM
    nearly idle), Compute (SM) the busiest of the SM's."""
    rows = list(csv.DictReader(line for line in (FIXTURE / "breakdown.csv").open() if line.startswith('"')))
    values = {row["Metric Name"]: float(row["Metric Value"]) for row in rows}
    memory = values.pop("gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed")
    compute = values.pop("sm__throughput.avg.pct_of_peak_sustained_elapsed")
    sm_side = {name: v for name, v in values.items() if name.startswith(("sm__", "idc__"))}
    memory_side = {name: v for name, v in values.items() if name not in sm_side}
    assert max(memory_side.values()) == memory and max(sm_side.values()) == compute
    assert max(memory_side, key=memory_side.get).startswith("l1tex__data_pipe_lsu_wavefronts")
    assert memory_side["dram__cycles_active.avg.pct_of_peak_sustained_elapsed"] < 1


def _source_lines() -> dict[str, dict[str, float]]:
    """ncu's source page summed per CUDA line, keyed by the line's code (program.py's SOURCE)."""
    namespace: dict = {}
    exec((FIXTURE / "program.py").read_text().split("def run")[0], namespace)
    code = namespace["SOURCE"].split("\n")
    rows = [row for row in csv.reader(line for line in (FIXTURE / "source-cuda-sass.csv").open()
                                      if line.startswith('"'))]
    header = next(row for row in rows if row[0] == "Line No")
    column = {name: header.index(name) for name in ("stall_long_sb", "stall_lg", "L2 Theoretical Sectors Global Excessive")}
    out: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for row in rows[rows.index(header) + 1:]:
        if row[0].isdigit():
            for name, index in column.items():
                out[code[int(row[0]) - 1].strip()][name] += float(row[index].replace(",", "") or 0)
    return out


def test_long_scoreboard_lands_on_the_consumer_and_excess_sectors_on_the_strided_load():
    lines = _source_lines()
    a, b, fma = lines["float a = A[i * N + k];"], lines["float b = B[k * N + j];"], lines["acc += a * b;"]
    long_sb = sum(line["stall_long_sb"] for line in lines.values())
    assert fma["stall_long_sb"] > 0.9 * long_sb and a["stall_long_sb"] == 0 and b["stall_long_sb"] < 0.05 * long_sb
    excess = "L2 Theoretical Sectors Global Excessive"
    assert a[excess] > 0 and b[excess] == 0 and fma[excess] == 0
    assert lines["C[i * N + j] = acc;"][excess] > 0              # the store is strided the same way
    lg = sum(line["stall_lg"] for line in lines.values())
    assert a["stall_lg"] + b["stall_lg"] > 0.9 * lg and fma["stall_lg"] == 0   # the loads wait to be issued


@pytest.mark.parametrize("lang", LANGS)
def test_the_chapter_table_says_so(lang):
    section = chapter(lang, "04-profiling.md").split("{#source-counters}")[1].split("{#occupancy}")[0]
    rows = {row.split("|")[1].strip(): [cell.strip() for cell in row.split("|")[2:-1]]
            for row in section.splitlines() if row.startswith("| `")}
    none, many = ("aucun", "beaucoup") if lang == "fr" else ("没有", "很多")
    a, b, fma = rows["`float a = A[i * N + k];`"], rows["`float b = B[k * N + j];`"], rows["`acc += a * b;`"]
    assert a[0] == none and fma[0].startswith(f"**{many}**")        # Long Scoreboard
    assert a[1] == many and b[1] == many and fma[1] == none         # LG Throttle
    assert a[2].startswith(f"**{many}**") and b[2] == none and fma[2] == none   # excess sectors
    assert VERSION in section
