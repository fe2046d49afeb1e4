"""The validation-set script's pure parts (labkit/calibration/validation_set.py, validation_kernels.py,
sweep_probe.py): its cases, how launches are split per case by the marker kernels, the sweep
probe's sector arithmetic. What needs a GPU ran on the H200 (tests/fixtures/diagnose_validation)."""

from collections import Counter

from labkit.calibration import validation_set as vs
from labkit.calibration.sweep_probe import fetched_bytes_per_element
from labkit.calibration.validation_kernels import EXERCISE_IDS, RAW_KERNELS, SOURCE, cases
from tests.conftest import REPO_ROOT

PROBE = REPO_ROOT / "tests/fixtures/h200-probe"


def test_the_set_holds_at_least_twenty_cases_of_every_kind_in_seven_groups():
    every = cases()
    names = [c.name for c in every]
    assert len(names) == len(set(names)) >= 20
    assert Counter(c.group for c in every) == {"cupy": 16, "raw": 8, "exercises": 2 * len(EXERCISE_IDS), "apps": 5}
    assert set(map(vs.group_of, every)) == set(vs.GROUP_LIMITS)
    from labkit.exercises import exercises

    assert set(EXERCISE_IDS) == set(exercises())          # every exercise, skeleton and solution
    assert all(f'void {name}(' in SOURCE or f'{name}(' in SOURCE for name in RAW_KERNELS)


def test_marker_kernels_name_each_case():
    source = vs.marker_source(3)
    assert source.count("__global__") == 3 and "vset_case_002()" in source


def test_launches_are_split_per_case_at_each_marker(tmp_path):
    """Two launches of the probe's report renamed as markers: each case gets the launches after
    its marker, with both pages, and labkit diagnose reads the folder."""
    from labkit.profiling import reports

    names = [c.name for c in cases()]
    first, second = names.index("cupy_add_f32"), names.index("cupy_sin_f64")
    for page in ("raw", "details"):
        header, rows = vs.read_csv(PROBE / f"ncu_{page}.csv")
        at = header.index("Kernel Name")
        for row in rows:
            row[at] = {"0": f"vset_case_{first:03d}", "2": f"vset_case_{second:03d}"}.get(row[0], row[at])
        vs.write_csv(tmp_path / f"cupy_a_{page}.csv", [header, *rows])
    index = {}
    (tmp_path / "cases").mkdir()
    vs.split_group("cupy_a", tmp_path, tmp_path / "cases", index)
    assert [launch["id"] for launch in index["cupy_add_f32"]["launches"]] == ["1"]
    assert [launch["id"] for launch in index["cupy_sin_f64"]["launches"]] == ["3"]
    report = reports.load([tmp_path / "cases" / "cupy_sin_f64"])
    assert [p.id for p in report.profiles] == [3] and report.has_rules


def test_the_sweep_probe_counts_sectors_and_64_byte_fetches():
    assert fetched_bytes_per_element(4, 1, 0, 32) == 4                 # coalesced
    assert fetched_bytes_per_element(4, 2, 0, 32) == 8                 # half of each sector
    assert fetched_bytes_per_element(4, 8, 0, 32) == 32                # a sector per element
    assert fetched_bytes_per_element(4, 32, 0, 64) == 64               # DRAM fetches 64 bytes
    assert fetched_bytes_per_element(16, 1, 0, 32) == 16
    assert fetched_bytes_per_element(4, 1, 1, 32) == 5                 # one sector more per warp
