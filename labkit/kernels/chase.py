"""The pointer chase: one thread follows a random cycle through a working set, each load's address
being the previous load's value, so nothing overlaps and each step costs one load's latency.

The working set is cut into slots of STRIDE_BYTES (one 128-byte line each); the cycle visits every
slot once, in a random order (a random cyclic permutation), so no stride pattern can be prefetched
and, once the working set exceeds a cache, the cache cannot hold what the next step needs. The
first 8-byte word of each slot holds the next slot's address (on a GPU: the chase is then
``p = *p``, no arithmetic between loads) or, in the simulator, its word index.

The kernel warms the working set up with ``warm_steps`` steps (untimed), then times
``timed_steps`` steps with the SM's cycle counter (``clock64``) and the GPU's nanosecond timer
(``globaltimer``), both read in the kernel.
"""

from __future__ import annotations

import numpy as np
from numba import uint64

from labkit.kernels.intrinsics import clock64, follow, globaltimer
from labkit.kernels.jit import kernel

#: Bytes per slot: one 128-byte cache line, of which a step reads one 8-byte word.
STRIDE_BYTES = 128
WORD_BYTES = 8


@kernel
def chase(chain, start, warm_steps, timed_steps, out):
    """Launch with one block of one thread. out = [cycles, nanoseconds, where the chase ended]."""
    p = uint64(start)
    for _ in range(warm_steps):
        p = follow(chain, p)
    # the cycles are counted within the nanoseconds' interval (read after, and stopped before): the
    # clock they imply can be below the SM's, never above (in the simulator both are one wall clock,
    # and a pause of the process between two reads would otherwise make the SM look faster than it is)
    nanoseconds = globaltimer()
    cycles = clock64()
    for _ in range(timed_steps):
        p = follow(chain, p)
    out[2] = p  # the store reads p: it waits for the last load, so the clocks below come after it
    out[0] = clock64() - cycles
    out[1] = globaltimer() - nanoseconds


def slots(working_set_bytes: int, stride_bytes: int = STRIDE_BYTES) -> int:
    """Slots in a working set: working set / stride (a whole number, at least 2)."""
    if working_set_bytes % stride_bytes or working_set_bytes < 2 * stride_bytes:
        raise ValueError(f"working set {working_set_bytes} bytes: a multiple of {stride_bytes}, at least two slots")
    return working_set_bytes // stride_bytes


def cycle_order(slot_count: int, rng: np.random.Generator) -> np.ndarray:
    """The order the chase visits the slots: a random permutation (the cycle is order[0] ->
    order[1] -> ... -> order[-1] -> order[0])."""
    return rng.permutation(slot_count).astype(np.uint64)


def chain_words(order: np.ndarray, base_address: int | None, stride_bytes: int = STRIDE_BYTES) -> np.ndarray:
    """The working set's 8-byte words: slot order[i]'s first word holds the next slot's first word,
    as an address (``base_address`` = where the array lives on the GPU) or, with None, as a word
    index (the simulator). The other words are zero."""
    words_per_slot = stride_bytes // WORD_BYTES
    words = np.zeros(len(order) * words_per_slot, dtype=np.uint64)
    following = np.roll(order, -1) * np.uint64(words_per_slot)
    words[order * np.uint64(words_per_slot)] = (following if base_address is None
                                                else np.uint64(base_address) + following * np.uint64(WORD_BYTES))
    return words


def start_of(order: np.ndarray, base_address: int | None, stride_bytes: int = STRIDE_BYTES) -> int:
    """Where the chase starts: slot order[0]'s first word (its address, or its word index)."""
    index = int(order[0]) * (stride_bytes // WORD_BYTES)
    return index if base_address is None else base_address + index * WORD_BYTES


def end_reference(order: np.ndarray, steps: int, base_address: int | None,
                  stride_bytes: int = STRIDE_BYTES) -> int:
    """Where a chase of ``steps`` steps from start_of(order) ends: slot order[steps mod slots]."""
    return start_of(np.roll(order, -(steps % len(order))), base_address, stride_bytes)
