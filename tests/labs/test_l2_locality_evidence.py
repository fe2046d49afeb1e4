"""Why chapter 5's L2-locality item is one `labkit diagnose` never fires (docs/*/reference/diagnose.md,
"Les éléments qu'un rapport ne montre pas"): on the validation set, kernels that read from DRAM
exactly the bytes they must (a stream, nothing to reuse) have L2 hit rates from near zero to about
half, and chapter 6's naive GEMM, which reads its matrices from DRAM many times over, has one inside
that range. The hit rate does not tell them apart; only the bytes counted on paper do."""

import pytest

from labkit.course.figures import CH06_N
from labkit.labs.base import lab
from labkit.profiling import reports
from labkit.project import Project
from labkit.records.files import raw_folder
from tests.conftest import REPO_ROOT

VALIDATION = REPO_ROOT / "tests/fixtures/diagnose_validation"
#: case: (launch ID, the bytes it must read from DRAM, from its description in cases.json)
STREAMS = {
    "cupy_add_f32": (1, 2 * 2**26 * 4),      # cupy.add of two 2^26 float32 arrays
    "cupy_sin_f64": (3, 2**25 * 8),          # cupy.sin of 2^25 float64
    "cupy_sum_all": (7, 2**26 * 4),          # CUB's reduction of 2^26 float32, first pass
    "cupy_sum_axis1": (12, 8192 * 4096 * 4),
    "reduce_shuffle": (15, 2**26 * 4),
}
GEMM_RECORDS = {
    "course": lab("lab-06").lab_dir(Project(REPO_ROOT)) / "results/nvidia-h200.json",
    "first-pass": REPO_ROOT / "tests/fixtures/h200-first-pass/labs/06-matmul/results/nvidia-h200.json",
}
HIT, READ = "lts__t_sector_hit_rate.pct", "dram__bytes_read.sum"


def _launch(case: str, launch_id: int):
    return next(p for p in reports.load([VALIDATION / case / "ncu_raw.csv"]).profiles if p.id == launch_id)


@pytest.fixture(scope="module")
def stream_hit_rates():
    rates = {}
    for case, (launch_id, footprint) in STREAMS.items():
        profile = _launch(case, launch_id)
        assert profile.bytes_(READ) == pytest.approx(footprint, rel=0.02), case   # read once, nothing to reuse
        rates[case] = profile.value(HIT)
    return rates


def test_streams_with_nothing_to_reuse_range_from_no_l2_hits_to_about_half(stream_hit_rates):
    assert min(stream_hit_rates.values()) < 5 and max(stream_hit_rates.values()) > 40, stream_hit_rates


@pytest.mark.parametrize("record", sorted(GEMM_RECORDS))
def test_the_naive_gemm_rereads_its_matrices_with_a_hit_rate_a_stream_has_too(stream_hit_rates, record):
    path = GEMM_RECORDS[record]
    naive = next(p for p in reports.load([raw_folder(path) / "ncu_raw.csv"]).profiles if "gemm_naive" in p.name)
    footprint = 2 * CH06_N * CH06_N * 4                     # A and B, FP32, each needed once
    assert naive.bytes_(READ) > 50 * footprint, naive.bytes_(READ)
    assert min(stream_hit_rates.values()) < naive.value(HIT) < max(stream_hit_rates.values())
