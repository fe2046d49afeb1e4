"""Chapter 4's exercises: a fault read in a recorded profile, then repaired and profiled again.

Both start from one of lab 04's faulty kernels as Nsight Compute recorded it on our H200
(``labkit diagnose labs/04-profiling/results/nvidia-h200/ -k <kernel>``); the learner finds the
fault in the profile, repairs it, and the check counts, in the simulator, the same thing the
profile showed.

- ``04-transpose``: the layer phase, ``transpose_naive``. The profile's first lever is coalescing
  (ncu's UncoalescedGlobalAccess); ``--json`` separates the bytes used per sector of the loads
  (all 32) from those of the stores (4): the stores walk down a column. The criteria are that
  counter, sectors per request of the global stores (ncu's
  ``l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum`` over ``..._requests_...``), the same for the
  loads (a repair that moves the stride from the stores to the loads has not repaired anything),
  and the bank conflicts of a tile in shared memory (the chapter's rule: profile again after each
  fix, since a tile without padding trades one fault for another).
- ``04-chain``: the normalise phase, ``scale_add``: one launch per step of a chain of
  ``y = a·y + b``, each a few microseconds on a grid of far fewer blocks than the GPU has SMs
  (ncu's LaunchConfiguration); the repair is one launch for the whole chain (criterion: launches).

GPU targets (time_ratio: the learner's median time over ours, median of three rounds):

- ``04-transpose`` at 8192 x 8192 (lab 04's matrix), target 1.2. Ours is lab 04's tiled transpose
  (32 x 33 tile). The skeleton's every warp store touches 32 sectors and fills 4 bytes of each, so
  the L1 and the L2 handle 8 times the store sectors a coalesced write needs, and the kernel runs
  at the L2's sector rate rather than at the DRAM's bytes: several times our time (lab 04's record
  of the same two kernels at the same size agrees). A tile without padding is caught there too:
  its column reads are 32-way conflicts, each served in 32 wavefronts, and lab 05's kernel_d (the
  same 32 x 32 tile read by 32 x 8 threads) is far slower than its padded twin in the record.
- ``04-chain`` at lab 04's size (4,096 elements, 64 steps), target 1.5. Ours is one launch whose
  threads each run the 64 steps in a register: a few microseconds. The skeleton makes 64 launches,
  and each costs at least the GPU's own launch-to-completion latency, microseconds, even queued
  back to back behind the timer's hold; when Python's launch latency leaks into the timing it
  costs more. Either way tens of times ours, far above 1.5. The target is loose because ours
  lasts only microseconds, where the timer's spread is widest in relative terms.
"""

from __future__ import annotations

import numpy as np

from labkit.chapters import page
from labkit.exercises.matrices import transpose_expected, transpose_inputs
from labkit.exercises.spec import CORRECT, Criterion, Exercise
from labkit.labs.lab04 import Lab04

CHAPTER = page(4)

#: 04-transpose: the source's shape in the simulator (neither side a multiple of the 32-wide tile,
#: so the bounds tests matter; rows of 48 and 80 floats start on 32-byte sector boundaries) and on a
#: GPU (lab 04's resident matrix, its side on the H200).
TRANSPOSE_SIMULATOR_SHAPE = (48, 80)
TRANSPOSE_GPU_SIDE = Lab04.gpu_sizes.state_side



#: 04-chain: lab 04's normalise phase on a GPU (chain_elements, chain_steps); in the simulator a
#: shorter chain on a vector that does not fill its last block (every launch is traced on the CPU).
CHAIN_GPU_ELEMENTS = Lab04.gpu_sizes.chain_elements
CHAIN_GPU_STEPS = Lab04.gpu_sizes.chain_steps
CHAIN_SIMULATOR_ELEMENTS = 600
CHAIN_SIMULATOR_STEPS = 6


def _chain_inputs(n: int, rng: np.random.Generator) -> dict[str, object]:
    """The chain's coefficients drawn as lab 04 draws them (a in [0.9, 1], b in [-0.05, 0.05]), twice:
    on the device (``coefficients``, one (a, b) row per step) and on the host (``host_coefficients``,
    a tuple of float32 pairs, what the skeleton's loop of launches reads)."""
    steps = CHAIN_GPU_STEPS if n >= CHAIN_GPU_ELEMENTS else CHAIN_SIMULATOR_STEPS
    coefficients = np.stack([rng.uniform(0.9, 1.0, steps), rng.uniform(-0.05, 0.05, steps)],
                            axis=1).astype(np.float32)
    return {"x": rng.random(n, dtype=np.float32), "coefficients": coefficients,
            "host_coefficients": tuple((a, b) for a, b in coefficients), "y": np.empty(n, np.float32)}


def _chain_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    y = inputs["x"].copy()
    for a, b in inputs["coefficients"]:
        y = a * y + b
    return {"y": y}


EXERCISES = [
    Exercise(
        id="04-transpose",
        chapter=CHAPTER,
        learner_file="labs/04-profiling/exercises/transpose.py",
        solution="profile_transpose",
        entries={"transpose": ("source", "target")},
        inputs=transpose_inputs("04-transpose", TRANSPOSE_SIMULATOR_SHAPE, TRANSPOSE_GPU_SIDE),
        outputs=("target",),
        expected=transpose_expected,
        criteria=(
            Criterion(CORRECT, "simulator", section="lab", hint="exercise.04-transpose.hint.correct"),
            Criterion("store_sectors_per_request", "simulator", section="memory-workload",
                      hint="exercise.04-transpose.hint.stores", at_most=4.5),
            Criterion("load_sectors_per_request", "simulator", section="source-counters",
                      hint="exercise.04-transpose.hint.loads", at_most=4.5),
            Criterion("shared_conflicts_per_request", "simulator", section="rules",
                      hint="exercise.04-transpose.hint.conflicts", at_most=0.5),
            Criterion("time_ratio", "gpu", section="speed-of-light", hint="exercise.04-transpose.hint.time",
                      at_most=1.2),
        ),
        shown=("dram_bytes_per_element",),
        skeleton_fails=("store_sectors_per_request", "time_ratio"),
        simulator_elements=TRANSPOSE_SIMULATOR_SHAPE[0] * TRANSPOSE_SIMULATOR_SHAPE[1],
        gpu_elements=TRANSPOSE_GPU_SIDE * TRANSPOSE_GPU_SIDE,
        rtol=0.0,
        atol=0.0,
    ),
    Exercise(
        id="04-chain",
        chapter=CHAPTER,
        learner_file="labs/04-profiling/exercises/chain.py",
        solution="profile_chain",
        entries={"normalise": ("x", "coefficients", "host_coefficients", "y")},
        inputs=_chain_inputs,
        outputs=("y",),
        expected=_chain_expected,
        criteria=(
            Criterion(CORRECT, "simulator", section="lab", hint="exercise.04-chain.hint.correct"),
            Criterion("launches", "simulator", section="stall-tree", hint="exercise.04-chain.hint.launches",
                      at_most=1),
            Criterion("time_ratio", "gpu", section="four-questions", hint="exercise.04-chain.hint.time",
                      at_most=1.5),
        ),
        shown=("dram_bytes_per_element",),
        skeleton_fails=("launches", "time_ratio"),
        unread_inputs_allowed=("coefficients",),   # the skeleton's loop reads host_coefficients instead
        simulator_elements=CHAIN_SIMULATOR_ELEMENTS,
        gpu_elements=CHAIN_GPU_ELEMENTS,
        flush_l2=False,
        rtol=1e-4,
        atol=1e-5,
    ),
]
