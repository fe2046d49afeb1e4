"""labkit.kernels.mma_roof's host side: the sum its check compares does not depend on which lane holds
which element, which this test shows on the fragment layout the PTX ISA gives for m16n8k16."""

import numpy as np
import pytest

from labkit.kernels import mma_roof


def by_fragments(blocks: int, iterations: int) -> np.ndarray:
    """Each warp's output sum computed from A and B as the PTX ISA lays out m16n8k16's f16 fragments
    (a0..a7, b0..b3 and c0..c3 by lane: groupID = lane >> 2, threadID_in_group = lane % 4)."""
    threads = blocks * mma_roof.THREADS
    t = np.arange(threads, dtype=np.uint64)
    words = np.stack([(mma_roof.A_BASE | ((t * mma_roof.A_STEP + i) & mma_roof.A_MASK)).astype(np.uint32)
                      for i in range(4)], axis=1)
    a = words.view(np.float16).astype(np.float64)          # per thread a0..a7
    sums = []
    for warp in range(threads // 32):
        matrix_a, matrix_b = np.zeros((16, 16)), np.ones((16, 8))
        for lane in range(32):
            group, pair = lane >> 2, lane % 4
            for index, value in enumerate(a[32 * warp + lane]):
                matrix_a[group + 8 * ((index // 2) % 2), 2 * pair + index % 2 + 8 * (index // 4)] = value
        d = iterations * (matrix_a @ matrix_b)
        per_lane = [d[g, 2 * p] + d[g, 2 * p + 1] + d[g + 8, 2 * p] + d[g + 8, 2 * p + 1]
                    for g, p in ((lane >> 2, lane % 4) for lane in range(32))]
        sums.append(mma_roof.ACCUMULATORS * sum(per_lane))
    return np.array(sums)


@pytest.mark.parametrize("blocks, iterations", [(1, 1), (2, 3)])
def test_the_checked_warp_sums_are_the_fragments_product(blocks, iterations):
    assert np.allclose(mma_roof.warp_sums_reference(blocks, iterations), by_fragments(blocks, iterations))


def test_a_values_are_finite_fp16_in_half_to_one_and_flops_count_4096_per_mma():
    t = np.arange(4096, dtype=np.uint64)
    words = (mma_roof.A_BASE | ((t * mma_roof.A_STEP) & mma_roof.A_MASK)).astype(np.uint32)
    values = words.view(np.float16).astype(np.float64)
    assert values.min() >= 0.5 and values.max() < 1.0
    assert mma_roof.flops(132, 10) == 132 * 4 * 10 * mma_roof.ACCUMULATORS * 4096
    assert f"#define ACC {mma_roof.ACCUMULATORS}" in mma_roof.SOURCE and "mma.sync.aligned.m16n8k16" in mma_roof.SOURCE
