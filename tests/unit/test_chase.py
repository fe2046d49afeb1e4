"""The pointer chase's working set (labkit.kernels.chase): one random cycle through every slot."""

import numpy as np
import pytest

from labkit.kernels import chase


def follow_indices(words, start, steps):
    p = start
    for _ in range(steps):
        p = int(words[p])
    return p


@pytest.mark.parametrize("working_set", [256, 4096, 3 * 4096, 1 << 20])
def test_the_chain_is_one_cycle_through_every_slot(working_set):
    order = chase.cycle_order(chase.slots(working_set), np.random.default_rng(7))
    words = chase.chain_words(order, None)
    assert words.size * chase.WORD_BYTES == working_set
    per_slot = chase.STRIDE_BYTES // chase.WORD_BYTES
    p, seen = chase.start_of(order, None), set()
    for _ in range(len(order)):
        assert p % per_slot == 0 and p not in seen
        seen.add(p)
        p = int(words[p])
    assert p == chase.start_of(order, None) and len(seen) == len(order)


def test_the_end_of_a_chase():
    order = chase.cycle_order(40, np.random.default_rng(1))
    words = chase.chain_words(order, None)
    for steps in (0, 1, 39, 40, 41, 1000):
        assert follow_indices(words, chase.start_of(order, None), steps) == chase.end_reference(order, steps, None)


def test_on_a_gpu_the_words_hold_addresses():
    order = chase.cycle_order(16, np.random.default_rng(2))
    base = 0x7F0000000000
    addresses, indices = chase.chain_words(order, base), chase.chain_words(order, None)
    used = indices != 0
    used[order[-1] * 16] = True  # the slot that points back to slot 0 holds index 0
    assert np.array_equal(addresses[used], base + indices[used] * chase.WORD_BYTES)
    assert chase.start_of(order, base) == base + chase.start_of(order, None) * chase.WORD_BYTES
    assert chase.end_reference(order, 5, base) == base + chase.end_reference(order, 5, None) * chase.WORD_BYTES


@pytest.mark.parametrize("working_set", [100, 128, 0])
def test_a_working_set_of_fewer_than_two_whole_slots_is_refused(working_set):
    with pytest.raises(ValueError, match="multiple of 128, at least two slots"):
        chase.slots(working_set)
