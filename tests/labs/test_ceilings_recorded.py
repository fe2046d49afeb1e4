"""One copy ceiling for the whole course (issue 19), held on every lab's record made on the H200:

- every lab that compares with the copy measured the course's ceiling (labkit.labs.ceilings: the same
  kernel, bytes and method), and the labs' ceilings agree with each other;
- no kernel of any lab moved its bytes faster than the ceiling of its own run beyond the ceiling's
  spread (its median rate above the copy's fastest call): lab 05's control read 4 144 GB/s against
  a ceiling of 3 875 measured on arrays 16 times smaller, which is what made this test. A stream
  of reads only is held to the read-only roof of its own run instead (lab 02's sweep: a read-only
  stream passes a copy's mixed traffic, issue 29), within READ_ROOF_SPREAD: one kernel's roof,
  not the fastest read any kernel can make (the sweep's coalesced 8-byte point, eight 8-byte loads
  in flight per thread and no block reduction, ran 0.4 % above the roof's median in both H200
  recordings of 2026-12-02, its timings within 0.2 %);
- each lab's baseline reaches the roof its page claims (lab 02's coalesced sweep here; lab 01's
  copy and FMA chains, lab 03's copy curves and lab 05's control in their labs' own tests).
"""

import statistics

import pytest

from labkit.labs import ceilings
from labkit.labs.base import lab
from labkit.labs.ceilings import CopyCeiling
from labkit.project import Project
from labkit.records.files import read_results
from tests.conftest import REPO_ROOT

LABS = ("lab-01", "lab-02", "lab-03", "lab-05")
#: The labs' ceilings, measured in different runs, agree within this share of their median.
AGREEMENT = 0.03
#: How far above the read roof's fastest call a read-only stream may run (module docstring).
READ_ROOF_SPREAD = 0.01
#: Lab 02's coalesced sweep reaches this share of its run's copy ceiling at every element width.
SWEEP_BAR = 0.85


def _record(lab_id: str):
    the_lab = lab(lab_id)
    path = the_lab.lab_dir(Project(REPO_ROOT)) / "results/nvidia-h200.json"
    return read_results(path, the_lab.results_type, lab_id).results if path.exists() else None


@pytest.fixture(scope="module")
def records():
    found = {lab_id: _record(lab_id) for lab_id in LABS}
    if not any(found.values()):
        pytest.skip("no lab recorded on the H200 yet")
    return {lab_id: results for lab_id, results in found.items() if results is not None}


def ceiling_of(lab_id: str, results) -> CopyCeiling | None:
    """The course's ceiling as the lab recorded it; None where the lab measured another copy."""
    if lab_id == "lab-01":
        hbm = results.ceilings.hbm
        return CopyCeiling(copy_bytes=hbm.copy_bytes, timing=hbm.timing)
    if lab_id == "lab-02":
        return results.copy_ceiling
    if lab_id == "lab-03":
        memory = results.memory
        return (CopyCeiling(copy_bytes=memory.copy_bytes, timing=memory.reference)
                if memory.reference_is == "course_copy" else None)
    return (CopyCeiling(copy_bytes=results.copy_ceiling_bytes, timing=results.copy_ceiling)
            if results.copy_ceiling_bytes else None)


def kernel_rates(lab_id: str, results) -> list[tuple[str, float]]:
    """(what, GB/s) of every kernel of the lab whose bytes cross HBM (read + written, or useful)."""
    if lab_id == "lab-01":
        return ([(f"sweep {p.fmas} FMAs", p.timing.gbps(p.moved_bytes)) for p in results.sweep]
                + [(row.kernel, row.timing.gbps(row.moved_bytes)) for row in results.placement])
    if lab_id == "lab-02":
        return ([(p.run.launch, p.useful_gbps) for p in results.sweep]
                + [(p.run.launch, p.useful_gbps) for p in results.particles]
                + [(t.run.launch, t.gbps) for t in results.transposes])
    if lab_id == "lab-03":
        return [(f"copy, {p.loads} loads, {p.launch.warps_per_sm} warps/SM", p.gbps) for p in results.memory.points]
    control = results.pairs[[p.mystery for p in results.pairs].index("e")].faulty
    return [("kernel_e (control)", control.gbps(results.sizes.stream_bytes))]


def test_every_lab_measured_the_course_ceiling(records):
    for lab_id, results in records.items():
        ceiling = ceiling_of(lab_id, results)
        assert ceiling is not None, f"{lab_id}: recorded before the course's one ceiling: re-record it on the H200"
        assert ceiling.copy_bytes == 2 * ceilings.COPY_ARRAY_BYTES, lab_id
        timing = ceiling.timing
        assert (timing.l2_flushed, timing.warmup, timing.repeats) == (True, ceilings.WARMUP, ceilings.REPEATS), lab_id


def test_the_labs_ceilings_agree(records):
    rates = {lab_id: c.gbps for lab_id, results in records.items() if (c := ceiling_of(lab_id, results))}
    middle = statistics.median(rates.values())
    assert all(abs(rate / middle - 1) <= AGREEMENT for rate in rates.values()), rates


@pytest.mark.parametrize("lab_id", LABS)
def test_no_kernel_beats_the_ceiling_of_its_own_run(records, lab_id):
    if lab_id not in records:
        pytest.skip(f"{lab_id} not recorded")
    results = records[lab_id]
    ceiling = ceiling_of(lab_id, results)
    assert ceiling is not None, f"{lab_id}: no course ceiling in the record: re-record it on the H200"
    reads_only = read_only_rates(lab_id, results)
    above = [(what, round(rate), round(ceiling.fastest_gbps)) for what, rate in kernel_rates(lab_id, results)
             if what not in reads_only and rate > ceiling.fastest_gbps]
    assert not above, f"{lab_id}: faster than the copy's fastest call in the same run: {above}"
    if reads_only:
        roof = results.read_roof
        fastest = roof.read_bytes / roof.timing.min_seconds / 1e9
        above = [(what, round(rate), round(fastest)) for what, rate in reads_only.items()
                 if rate > (1 + READ_ROOF_SPREAD) * fastest]
        assert not above, f"{lab_id}: faster than the read roof's fastest call in the same run: {above}"


def read_only_rates(lab_id: str, results) -> dict[str, float]:
    """{what: GB/s} of the lab's kernels that only read (lab 02's sweep), held to its read roof."""
    if lab_id != "lab-02" or results.read_roof is None:
        return {}
    return {p.run.launch: p.useful_gbps for p in results.sweep}


def test_lab02s_coalesced_sweep_reaches_the_copy_at_every_width(records):
    if "lab-02" not in records:
        pytest.skip("lab-02 not recorded")
    results = records["lab-02"]
    assert results.copy_ceiling is not None, "lab-02: recorded before the course's one ceiling: re-record it"
    for width in (4, 8, 16):
        point = next(p for p in results.sweep if (p.element_bytes, p.stride, p.offset) == (width, 1, 0))
        assert results.of_ceiling(point.useful_gbps) >= SWEEP_BAR, (width, round(point.useful_gbps))
