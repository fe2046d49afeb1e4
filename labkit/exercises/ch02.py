"""Chapter 2's exercises: coalesced global accesses, conflict-free shared memory.

- ``02-transpose``: a tiled transpose whose global reads and writes are coalesced, but whose
  shared tile ``[32][32]`` is read by columns: 32 lanes on 32 words of one bank, 31 conflicts per
  read. Padding the tile to ``[32][33]`` (or the XOR swizzle) removes them; the global accesses
  must stay at 4 sectors per request.
- ``02-aos``: particles in an array of structures (8 float32 fields, 32 bytes each), one thread
  per particle: each field access is a stride of 8 floats, 32 sectors per request. The layout is
  imposed; mapping threads to the records' 4-byte words (or staging through shared memory) makes
  every access coalesced.

On a GPU (what the time ratio should show, and why; the lab 02 page measures the same effects):

``02-transpose``, skeleton against our padded tile. Per SM, a 32 x 32 tile moves 8 KiB through DRAM
(4 read, 4 written). At the H200's 4.8 TB/s over 132 SMs at up to 1.98 GHz, an SM's share of DRAM is
about 18 bytes per SM cycle, so a tile costs at least ~450 cycles of DRAM time. Shared memory serves
one wavefront per cycle per SM: our tile costs 32 row stores + 32 column loads = 64 wavefronts,
far below, so our kernel is DRAM-bound. The skeleton's 32 column loads take 32 wavefronts each:
32 + 1024 = 1056 cycles per tile, more than twice the DRAM time: shared-bound, so its time is
expected at about twice ours or more (a lower SM clock only widens the gap: fewer cycles per DRAM
byte). The target, 1.15, is met by any conflict-free tile of the same shape and failed by any tile
whose column reads still conflict 32-way (``padded_wrong_dimension`` in the tests).

``02-aos``, skeleton against our word-per-thread kernel. Both move the same DRAM bytes: every
sector of ``p`` is read once and every sector of ``out`` written whole (64 bytes per particle, the
floor; the skeleton's other 7 loads of a record find its sector in L1). What differs is the work
per byte in L1TEX and L2: per 32 particles (1 KiB each way), the skeleton issues 8 loads and 8
stores of 32 sectors in 8 lines each (512 sector accesses; L1 being write-through for global
stores, its 256 partial-sector stores all travel to L2), ours 16 loads (8 whole, 8 of the 12
position lanes) and 8 stores of 4 sectors each (96). A request of 32 sectors in 8 lines needs several L1TEX wavefronts, served one after the
other (Nsight Compute's model, forums /t/165293; the tag stage resolves 4 lines per cycle,
forums /t/312884), so the skeleton is bound by L1/L2 throughput, not DRAM: expected at about
twice our time or more. Ours is a one-word-per-thread copy with three FMAs, and runs near a Numba
copy of one float per thread (chapter 3 explains the rest of the way to the copy ceiling: more loads
in flight per thread). Its indices come from a shift and a mask; the same kernel with Python's
``//`` and ``%`` (floor division on signed integers) does a few more instructions per word and ran
about 15 % slower on the H200 (probe of batch B, beside a one-float copy), so the target, 1.25,
leaves room for that right answer and still fails the skeleton and a thread per field.
Lab 02's particle step shows the same on the chapter's drift (scalar AoS against the same bytes with
vector accesses).
"""

from __future__ import annotations

import numpy as np

from labkit.chapters import page
from labkit.exercises.matrices import transpose_expected, transpose_inputs
from labkit.exercises.spec import CORRECT, Criterion, Exercise

CHAPTER = page(2)

#: The transposed matrix (rows x cols of the source) at each size of a check. In the simulator,
#: neither side is a multiple of the 32-wide tile (edge tiles are partial) and the matrix is not
#: square (a bounds test on the wrong side shows), but both are multiples of 8 floats, so every row
#: starts on a 32-byte sector and a coalesced warp row is exactly 4 sectors. On a GPU, 8192 x 8192
#: floats: 256 MiB each way, far beyond the L2.
TRANSPOSE_SIMULATOR_SHAPE = (40, 72)
TRANSPOSE_GPU_SIDE = 8192


#: A particle record: x, y, z, vx, vy, vz, mass, charge (float32), as lab 02's drift.
FIELDS = 8
DT = np.float32(0.125)


def _aos_inputs(n: int, rng: np.random.Generator) -> dict[str, object]:
    p = np.empty((n, FIELDS), np.float32)
    p[:, 0:6] = rng.standard_normal((n, 6), dtype=np.float32)
    p[:, 6] = rng.uniform(0.5, 2.0, n).astype(np.float32)
    p[:, 7] = rng.choice(np.array([-1.0, 1.0], np.float32), n)
    return {"p": p, "dt": DT, "out": np.empty((n, FIELDS), np.float32)}


def _aos_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    p = inputs["p"]
    out = p.copy()
    out[:, 0:3] = p[:, 0:3] + p[:, 3:6] * inputs["dt"]
    return {"out": out}


EXERCISES = [
    Exercise(
        id="02-transpose",
        chapter=CHAPTER,
        learner_file="labs/02-coalescing/exercises/transpose.py",
        solution="transpose",
        entries={"run": ("source", "target")},
        inputs=transpose_inputs("02-transpose", TRANSPOSE_SIMULATOR_SHAPE, TRANSPOSE_GPU_SIDE),
        outputs=("target",),
        expected=transpose_expected,
        criteria=(
            Criterion(CORRECT, "simulator", section="transpose", hint="exercise.02-transpose.hint.correct"),
            Criterion("shared_conflicts_per_request", "simulator", section="padding-swizzle",
                      hint="exercise.02-transpose.hint.conflicts", at_most=0.0),
            Criterion("load_sectors_per_request", "simulator", section="warp-instruction",
                      hint="exercise.02-transpose.hint.loads", at_most=4.0),
            Criterion("store_sectors_per_request", "simulator", section="transpose",
                      hint="exercise.02-transpose.hint.stores", at_most=4.0),
            Criterion("time_ratio", "gpu", section="conflicts", hint="exercise.02-transpose.hint.time",
                      at_most=1.15),
        ),
        shown=("dram_bytes_per_element",),
        skeleton_fails=("shared_conflicts_per_request", "time_ratio"),
        simulator_elements=TRANSPOSE_SIMULATOR_SHAPE[0] * TRANSPOSE_SIMULATOR_SHAPE[1],
        gpu_elements=TRANSPOSE_GPU_SIDE * TRANSPOSE_GPU_SIDE,
        rtol=0.0,
        atol=0.0,
    ),
    Exercise(
        id="02-aos",
        chapter=CHAPTER,
        learner_file="labs/02-coalescing/exercises/aos.py",
        solution="aos",
        entries={"drift": ("p", "dt", "out")},
        inputs=_aos_inputs,
        outputs=("out",),
        expected=_aos_expected,
        floor_bytes_per_element=2 * FIELDS * 4,
        criteria=(
            Criterion(CORRECT, "simulator", section="aos-soa", hint="exercise.02-aos.hint.correct"),
            Criterion("load_sectors_per_request", "simulator", section="aos-soa",
                      hint="exercise.02-aos.hint.loads", at_most=4.0),
            Criterion("store_sectors_per_request", "simulator", section="warp-instruction",
                      hint="exercise.02-aos.hint.stores", at_most=4.0),
            Criterion("time_ratio", "gpu", section="aos-soa", hint="exercise.02-aos.hint.time", at_most=1.25),
        ),
        shown=("dram_bytes_per_element", "shared_conflicts_per_request", "gbps"),
        skeleton_fails=("load_sectors_per_request", "store_sectors_per_request", "time_ratio"),
        simulator_elements=250,
        gpu_elements=1 << 23,
    ),
]
