"""labkit.models.occupancy against NVIDIA's own calculator, ``cuda_occupancy.h`` (CUDA 13.5), launch for
launch, on every compute capability labkit knows (7.0 to 12.1).

Always: the table the header answered (tests/fixtures/occupancy_header/table.csv.gz, 2 000 random
launches per compute capability, made by generate.py beside it). Where g++ and the header (the
``nvidia-cuda-runtime`` wheel of the test extra) are both here: the header compiled now, on 2 000
fresh random launches per compute capability (a new seed each run, named if one differs).
Compared: resident blocks per SM, the limit each resource sets (warps, registers, shared memory,
blocks), the limiting resources, and the registers and shared memory a block is allocated.
"""

from __future__ import annotations

import collections
import random

import pytest

from labkit.models.occupancy import ARCHITECTURES, LIMITERS, calculate
from tests.fixtures.occupancy_header import generate

#: cudaOccLimitingFactor bits of the four resources labkit names (barriers, 0x10, and virtual
#: resources, 0x20, are the header's limits labkit does not model: see labkit.models.occupancy.calculate).
FACTOR_BITS = {"warps": 0x01, "registers": 0x02, "shared_memory": 0x04, "blocks": 0x08}


def difference(answer: generate.HeaderAnswer) -> str | None:
    """What labkit answers differently from the header for one launch, or None."""
    ours = calculate(answer.launch, ARCHITECTURES[answer.compute_capability])
    header = {"status": answer.status, "blocks_per_sm": answer.blocks, "warps": answer.limit_warps,
              "registers": answer.limit_registers, "shared_memory": answer.limit_shared, "blocks": answer.limit_blocks,
              "limiters": answer.limiting_factors & 0x0F, "registers_per_block": answer.registers_per_block,
              "shared_bytes_per_block": answer.shared_bytes_per_block}
    labkit = {"status": 0, "blocks_per_sm": ours.blocks_per_sm, **{n: getattr(ours.limits, n) for n in LIMITERS},
              "limiters": sum(FACTOR_BITS[n] for n in ours.limiters), "registers_per_block": ours.registers_per_block,
              "shared_bytes_per_block": ours.shared_bytes_per_block}
    unmodelled = answer.limit_barriers is not None and answer.limit_barriers < answer.blocks
    if labkit != header or unmodelled:
        return (f"compute capability {answer.compute_capability}, {answer.launch}:\n  header {header} "
                f"(barriers {answer.limit_barriers})\n  labkit {labkit}")
    return None


def assert_equal(answers: list[generate.HeaderAnswer], seed: str) -> None:
    differences = [d for d in map(difference, answers) if d]
    assert not differences, f"{len(differences)} of {len(answers)} launches differ ({seed}); first: {differences[0]}"


def test_the_table_covers_every_compute_capability_and_every_answer():
    answers = generate.read_table()
    per_cc = collections.Counter(a.compute_capability for a in answers)
    assert per_cc == {cc: generate.LAUNCHES_PER_ARCHITECTURE for cc in ARCHITECTURES}
    for cc in ARCHITECTURES:
        mine = [a for a in answers if a.compute_capability == cc]
        # each resource binds somewhere, some launches cannot run, carve-outs and attributes vary
        for name, bit in FACTOR_BITS.items():
            assert any(a.limiting_factors & bit and a.blocks > 0 for a in mine), (cc, name)
        assert any(a.blocks == 0 for a in mine) and any(a.blocks >= 8 for a in mine), cc
        assert {a.launch.carveout_percent is None for a in mine} == {True, False}


def test_labkit_equals_the_header_on_its_table():
    assert_equal(generate.read_table(), f"table {generate.TABLE.name}")


def test_a_difference_would_be_named():
    answer = generate.read_table()[0]
    wrong = generate.HeaderAnswer(**{**answer.__dict__, "blocks": answer.blocks + 1})
    assert difference(answer) is None
    assert "blocks_per_sm" in difference(wrong) and str(answer.compute_capability) in difference(wrong)


@pytest.mark.skipif(generate.compiler() is None or generate.header_path() is None,
                    reason="needs g++ and cuda_occupancy.h (the nvidia-cuda-runtime wheel of the test extra)")
def test_labkit_equals_the_compiled_header_on_fresh_random_launches():
    seed = random.SystemRandom().randrange(1 << 32)
    launches = generate.random_launches(seed)
    answers = generate.run_header(launches, generate.header_path(), generate.compiler())
    assert len(answers) == generate.LAUNCHES_PER_ARCHITECTURE * len(ARCHITECTURES)
    assert_equal(answers, f"seed {seed}: generate.random_launches({seed}) reproduces them")
