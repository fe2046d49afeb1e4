"""Issue 29's new measurements of labs 03 and 06 on a real GPU, before a recording relies on them:
the register-only mma.sync loop right against NumPy and under the tensor cores' dense rate at the
clock it ran at, and the FMA kernels' SASS read for where their FFMAs' sources come from.

Run on the H200: ``pytest -m gpu tests/gpu/test_issue29_roofs_gpu.py`` (seconds).
"""

from __future__ import annotations

import pytest

from labkit.gpu.device import read_device_facts
from labkit.gpu.timing import time_gpu
from labkit.labs.lab03.program import sass_step
from labkit.labs.lab03.results import SassStep
from labkit.labs.lab06.program import mma_roof_step
from labkit.labs.lab06.results import MmaRoof, Sizes
from labkit.models.tensor_cores import dense_flops_per_clock_per_sm

pytestmark = pytest.mark.gpu


def test_mma_syncs_register_only_loop_is_right_and_under_the_dense_rate(record):
    facts = read_device_facts()
    sizes = Sizes(side=4096, depth=4096, large_side=None, check_side=512, check_depth=512, repeats=10)
    roof = mma_roof_step(time_gpu, sizes, facts)
    assert isinstance(roof, MmaRoof), roof
    assert roof.check.passed
    dense = dense_flops_per_clock_per_sm(facts.compute_capability, "fp16")
    rates = {p.warps_per_sm: p.flops / p.timing.median_seconds / (p.timing.peak_clock_mhz * 1e6) / facts.sm_count
             for p in roof.points}
    record("mma_roof", {"flop_per_clock_per_sm": rates,
                        "clock_ran_mhz": {p.warps_per_sm: p.timing.sm_clock_ran_mhz for p in roof.points}})
    assert all(0 < rate <= dense for rate in rates.values())


def test_the_fma_kernels_sass_says_where_their_ffma_sources_come_from(tmp_path, record):
    step = sass_step(tmp_path)   # it compiles the three kernels itself, as the lab launches them
    assert isinstance(step, SassStep), step
    found = {k.kernel: k for k in step.kernels}
    record("fma_sass", {name: k.model_dump() for name, k in found.items()})
    assert found["fma_chains_1_imm"].three_register == 0 < found["fma_chains_1_imm"].ffma
    assert found["fma_chains_1"].three_register == found["fma_chains_1"].ffma
    assert {p.name for p in tmp_path.iterdir()} == {f"sass_{name}.txt" for name in found}
