"""Chapter 3's exercises: hide the latency with what each warp keeps in flight, and size a grid in
whole waves.

- ``03-ilp``: a copy launched with 16 warps per SM (a quarter of an SM's 64) keeps one load in
  flight per warp. Little's law says how many bytes each warp must have requested before it
  waits; the learner issues several independent loads before the first store.
- ``03-tail``: a latency-bound kernel whose grid follows from the data (32 elements per thread)
  runs 1.25 waves on an H200, and its last quarter wave costs a whole block's time. The learner
  makes the kernel grid-stride and sizes its grid in whole waves for whatever GPU runs it, with
  the chapter's occupancy calculator.

Why these numbers (what a reviewer should be able to check):

**03-ilp.** The exercise fixes the launch: as many blocks as the GPU has SMs, 512 threads each
(2 blocks of 64 threads in the simulator). The block scheduler spreads a grid of one block per SM
one to an SM, so each SM holds 16 warps, 25 % occupancy, whatever the kernel's registers: the
learner cannot add warps, only work per warp. The target is Little's law with the chapter's
example figures (section #little, ``ch03.little.*`` in labkit.course.figures), which are lab 03's
measurements on the H200, read from its record: a copy at the measured copy bandwidth C reads
C / 2, and with the measured HBM latency (the pointer chase's plateau, about a third of a
microsecond) needs (C / 2) x latency / 132 SMs of reads in flight per SM
(:func:`labkit.models.latency.bytes_in_flight_per_sm`, about 5.4 kB). For the knee
W* = W_l + 1 to fall at 16 warps, each warp must carry that over 15 warps, about 360 bytes
(:func:`ilp_target_bytes_per_warp`): three 128-byte warp loads (one float32 per lane) where the
skeleton has one. The metric reads it in the trace:
a warp's global loads issued one after another with no store between them (the store uses a
loaded value, so the warp waits there; and as ``x`` and ``out`` may overlap, neither Numba's
compiler nor ptxas moves a load above an earlier store: the sm_90 SASS of the skeleton and of
the interleaved mistake alternates LDG and STG, our solution's issues its 16 LDG then its 16 STG),
in bytes, the median over the kernel's loads (at the simulator's 9,000 elements, the remainder
loop's single loads are a minority for any unroll up to 64). Our solution keeps 16 loads in flight
per thread: 2 KiB per warp, 32 KiB per SM, more than five times the law's minimum and the bytes
lab 03 gives its copy at 25 % occupancy (the law is a minimum, and the latency grows near saturation:
section #little-memory). ptxas for sm_90 keeps them in registers (no local memory, fewer than
the 128 registers a 512-thread block may have).

On the H200 the skeleton has 16 x 128 bytes = 2 KiB of reads in flight per SM: by Little's law a
copy of 2 x 2 KiB x 132 SMs per latency, about 1.6 TB/s at the measured latency, well under the
copy ceiling lab 01 measures, so it fails ``time_ratio`` by a wide margin. Our solution is at
the roof (tests/gpu holds it within chapter 1's stop band of the copy ceiling). The law gives a
minimum: lab 03 measures the knee later than W* (the latency grows near saturation), and its copy
with one 16-byte load per thread (512 bytes per warp, above this target) stays well under C at 16
warps per SM while four such loads (2 KiB per warp) reach it. A learner at the law's minimum
(3 loads) therefore passes the simulator criterion and may still miss ``time_ratio`` on the GPU;
the chapter's exercise text and the ``time`` hint say to aim well above the minimum, and 16 loads,
like our solution, do not miss it. ``local_bytes`` catches an unroll
whose trip count is not a constant: the loaded values then go through local memory, and only as
many loads as the compiler's own runtime unroll (4 on sm_90) go out before the first local store.

**03-tail.** The kernel's resources are stated (:data:`TAIL_KERNEL`): 64 threads, at most 32
registers, and 48 KiB of dynamic shared memory per block, reserved by the launch as lab 03 does
(it stands for the tile a kernel of this kind would stage, and it is what sets the residency).
The calculator gives 4 blocks per SM on 9.0 (228 KiB / 49 KiB), 3 on 8.0, 2 on 8.9 and 7.0, 1 on
7.5. Each element costs ``rounds`` rounds of xorshift32: 6 dependent integer operations, with the
loop's bookkeeping about 12 instructions per round in sm_90 SASS. At the chapter's 4-cycle
dependent latency a round takes a warp at least 24 cycles, so with 2 warps per block and 4
blocks, 2 warps per scheduler ask at most one instruction per cycle: no scheduler is
oversubscribed, and a block runs about as fast with 4 blocks on its SM as alone. The memory
traffic is negligible (8 bytes per element per several thousand cycles). The blocks are thus of
equal duration whatever the residency, and the chapter's wave model holds (section #waves).

At the GPU size (1,351,680 elements, rounds = 256) the skeleton launches 660 blocks of 32
elements per thread for 528 slots (132 SMs x 4) on an H200: the first wave runs 528 blocks, then
132 blocks run alone for as long again. One wave (528 blocks, grid-stride) spreads the same work
over every slot, 40 elements per thread: the skeleton takes 2 x 32 / 40 = 1.6 times as long (a
few microseconds of launch aside, on some hundred). Even if a block alone on its SM ran twice as
fast (the bound for 2 warps per scheduler becoming 1), it would take (1 + 1/2) x 32 / 40 = 1.2
times as long: we declare that it fails ``time_ratio`` (at most 1.15).

The simulator criterion is the wave efficiency (labkit.models.occupancy.tail_efficiency: waves / whole
waves run, with the calculator's residency) of the learner's grid at the GPU size, the worst over
six GPUs of different SM counts and compute capabilities (:data:`GPUS`): a grid that hard-codes
the H200's 132 SMs or its 4 blocks per SM loses most of a wave on one of them. The simulator run
itself launches for a stand-in GPU of 2 SMs of compute capability 7.5 (1 block per SM): small
enough to simulate, and there too a grid of whole waves that keeps 32 elements per thread leaves
elements unwritten.
"""

from __future__ import annotations

import functools
import numbers
from pathlib import Path

import numpy as np

from labkit.chapters import page
from labkit.exercises.spec import CORRECT, Criterion, Exercise, Metric
from labkit.models import latency, occupancy
from labkit.specs import datasheets

CHAPTER = page(3)

# ----- 03-ilp -----------------------------------------------------------------------------------------
#: The copy's launch on a GPU: one block per SM, of this many threads (16 warps per SM).
ILP_THREADS = 512
#: In the simulator: this many blocks of this many threads (small: every thread runs its Python code on its own).
ILP_SIMULATOR_LAUNCH = (2, 64)
ILP_WARPS_PER_SM = ILP_THREADS // occupancy.SM90.warp_size


@functools.cache
def ilp_target_bytes_per_warp() -> float:
    """Bytes of reads a warp must keep in flight for a copy to reach its knee at 16 warps per SM,
    from the chapter's Little's-law example (section #little-memory): lab 03's measured copy
    bandwidth C and HBM latency on the H200 (labkit.labs.recorded.little_inputs). The knee is
    W* = (C / 2) x latency / (SMs x bytes per warp) + 1, so W* <= 16 asks
    (C / 2) x latency / SMs / 15 bytes of each warp."""
    from labkit.labs.recorded import little_inputs

    little = little_inputs()
    per_sm = latency.bytes_in_flight_per_sm(little.copy_gbps / 2, little.latency_seconds, little.sm_count)
    return per_sm / (ILP_WARPS_PER_SM - 1)



def _ilp_inputs(n: int, rng: np.random.Generator) -> dict[str, object]:
    return {"x": rng.standard_normal(n, dtype=np.float32), "out": np.empty(n, np.float32)}


def _ilp_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    return {"out": inputs["x"].copy()}


@functools.cache
def this_gpu() -> tuple[int, tuple[int, int]] | None:
    """The SM count and compute capability of the GPU the code runs on; None in the simulator."""
    from labkit.gpu import SIMULATED, cuda

    if SIMULATED:
        return None
    device = cuda.get_current_device()
    return int(device.MULTIPROCESSOR_COUNT), tuple(device.compute_capability)


def _launch(module, kernel: str, grid: int, threads: int, shared_bytes: int, *args) -> None:
    """``module.kernel[grid, threads, 0, shared_bytes](*args)``; a launch the driver refuses (e.g.
    more registers than a block of this size can have) is the learner's mistake, in one line."""
    from labkit.exercises.learner import LearnerError
    from labkit.gpu import SIMULATED

    if SIMULATED:
        getattr(module, kernel)[grid, threads, 0, shared_bytes](*args)
        return
    from numba.cuda.cudadrv.driver import CudaAPIError

    try:
        getattr(module, kernel)[grid, threads, 0, shared_bytes](*args)
    except CudaAPIError as exc:
        raise LearnerError(f"{Path(module.__file__).name}: the launch of `{kernel}` ({grid} blocks of {threads} "
                           f"threads) failed: {exc}") from None


def _ilp_call(module, args: dict[str, object]) -> None:
    gpu = this_gpu()
    blocks, threads = ILP_SIMULATOR_LAUNCH if gpu is None else (gpu[0], ILP_THREADS)
    _launch(module, "copy", blocks, threads, 0, args["x"], args["out"])


def bytes_in_flight_per_warp(evidence) -> float:
    """Bytes a warp requests in a row before it waits: each warp's global loads issued one after
    the other with no store between them (a store uses a loaded value: the warp waits for it
    there) form a run; each load counts its run's bytes (active lanes x width); the median over
    every global load of the run. 128 for a loop that loads then stores one float32 per lane."""
    from labkit.models.access import Op, Space

    per_load: list[int] = []
    for launch in evidence.launches:
        warps: dict[tuple, list] = {}
        for instruction in launch.trace.instructions:
            warps.setdefault((instruction.block, instruction.warp), []).append(instruction.access)
        for accesses in warps.values():
            run: list[int] = []
            for access in [*accesses, None]:
                if access is not None and access.space is Space.GLOBAL and access.op is Op.LOAD:
                    run.append(access.width_bytes * sum(a is not None for a in access.addresses))
                elif access is None or access.op is Op.STORE:
                    per_load += [sum(run)] * len(run)
                    run = []
    return float(np.median(per_load)) if per_load else 0.0


# ----- 03-tail ----------------------------------------------------------------------------------------
#: The stated resources of the tail exercise's kernel, as labkit.models.occupancy takes them.
TAIL_THREADS = 64
TAIL_REGISTERS = 32
TAIL_SHARED_BYTES = 48 * 1024
TAIL_KERNEL = occupancy.KernelLaunch(threads_per_block=TAIL_THREADS, registers_per_thread=TAIL_REGISTERS,
                                     dynamic_shared_bytes=TAIL_SHARED_BYTES)
#: The skeleton's grid: this many elements per thread.
TAIL_PER_THREAD = 32
#: GPUs the learner's grid is judged on (name, SMs, compute capability, from their datasheets):
#: different SM counts and residencies, so that neither 132 SMs nor 4 blocks per SM can be hard-coded.
GPUS = tuple((sheet.name, sheet.sm_count, sheet.compute_capability) for sheet in (
    datasheets.H200_SXM, datasheets.H100_PCIE, datasheets.A100_SXM4_40GB, datasheets.V100_SXM2, datasheets.L4,
    datasheets.T4))
#: The simulator's stand-in GPU: 2 SMs of a T4's compute capability, 7.5 (1 block per SM).
TAIL_SIMULATOR_GPU = (2, datasheets.T4.compute_capability)
#: Rounds of xorshift32 per element at the GPU size (long blocks) and in the simulator (cheap).
TAIL_GPU_ROUNDS, TAIL_SIMULATOR_ROUNDS = 256, 2
#: 1.25 H200 waves of the skeleton's blocks (660 blocks of 64 threads x 32 elements).
TAIL_GPU_ELEMENTS = 660 * TAIL_THREADS * TAIL_PER_THREAD
TAIL_SIMULATOR_ELEMENTS = 5000


def xorshift32(values: np.ndarray, rounds: int) -> np.ndarray:
    """``rounds`` rounds of Marsaglia's xorshift32 (13, 17, 5) on each uint32, as the kernel does."""
    h = values.astype(np.uint32, copy=True)
    for _ in range(rounds):
        h ^= h << np.uint32(13)
        h ^= h >> np.uint32(17)
        h ^= h << np.uint32(5)
    return h


def _tail_inputs(n: int, rng: np.random.Generator) -> dict[str, object]:
    rounds = TAIL_SIMULATOR_ROUNDS if n <= TAIL_SIMULATOR_ELEMENTS else TAIL_GPU_ROUNDS
    return {"x": rng.integers(1, 2**32, n, dtype=np.uint32), "out": np.empty(n, np.uint32), "rounds": rounds}


def _tail_expected(inputs: dict[str, object]) -> dict[str, np.ndarray]:
    return {"out": xorshift32(inputs["x"], inputs["rounds"])}


def learner_blocks(module, n: int, sm_count: int, compute_capability: tuple[int, int]) -> int:
    """The learner's ``blocks(n, sm_count, compute_capability)``: a mistake in it (an exception, or
    anything but a whole number of blocks from 1 to 2^31 - 1) is one line naming the file."""
    from labkit.exercises.learner import LearnerError, learner_code

    path = Path(module.__file__)
    with learner_code(path, path.name):
        grid = module.blocks(n, sm_count, compute_capability)
    if isinstance(grid, bool) or not isinstance(grid, numbers.Integral) or not 1 <= int(grid) < 2**31:
        raise LearnerError(f"{path.name}: blocks(n={n}, sm_count={sm_count}, compute_capability={compute_capability}) "
                           f"returned {grid!r}: a whole number of blocks, at least 1, is needed")
    return int(grid)


def _tail_call(module, args: dict[str, object]) -> None:
    sm_count, compute_capability = this_gpu() or TAIL_SIMULATOR_GPU
    grid = learner_blocks(module, args["x"].size, sm_count, compute_capability)
    _launch(module, "mix", grid, TAIL_THREADS, TAIL_SHARED_BYTES, args["x"], args["out"], args["rounds"])


def blocks_per_sm(compute_capability: tuple[int, int]) -> int:
    """The tail kernel's resident blocks per SM, from the chapter's calculator."""
    return occupancy.calculate(TAIL_KERNEL, occupancy.architecture(compute_capability)).blocks_per_sm


def wave_efficiency(evidence) -> float:
    """The worst, over :data:`GPUS`, of waves / whole waves run (labkit.models.occupancy.tail_efficiency)
    for the grid the learner's ``blocks`` gives at the GPU size: 1 for whole waves, 0.5 for one
    block more than a wave, and below 1 for a grid that leaves slots empty."""
    return min(occupancy.tail_efficiency(learner_blocks(evidence.module, TAIL_GPU_ELEMENTS, sm_count, cc),
                                         sm_count, blocks_per_sm(cc))
               for _, sm_count, cc in GPUS)


EXERCISES = [
    Exercise(
        id="03-ilp",
        chapter=CHAPTER,
        learner_file="labs/03-occupancy/exercises/ilp.py",
        solution="ilp",
        entries={"copy": ("x", "out")},
        inputs=_ilp_inputs,
        outputs=("out",),
        expected=_ilp_expected,
        floor_bytes_per_element=8,
        call=_ilp_call,
        criteria=(
            Criterion(CORRECT, "simulator", section="volkov", hint="exercise.03-ilp.hint.correct"),
            Criterion("bytes_in_flight_per_warp", "simulator", section="little-memory",
                      hint="exercise.03-ilp.hint.in_flight", at_least=ilp_target_bytes_per_warp),
            Criterion("local_bytes", "gpu", section="register-pressure", hint="exercise.03-ilp.hint.local",
                      at_most=0),
            Criterion("time_ratio", "gpu", section="little-memory", hint="exercise.03-ilp.hint.time",
                      at_most=1.2),
        ),
        shown=("gbps", "registers"),
        skeleton_fails=("bytes_in_flight_per_warp", "time_ratio"),
        own_metrics=(Metric("bytes_in_flight_per_warp", "simulator", 0, bytes_in_flight_per_warp),),
        simulator_elements=9000,
        gpu_elements=1 << 26,
        rtol=0.0,
        atol=0.0,
    ),
    Exercise(
        id="03-tail",
        chapter=CHAPTER,
        learner_file="labs/03-occupancy/exercises/tail.py",
        solution="tail",
        entries={"mix": ("x", "out", "rounds"), "blocks": ("n", "sm_count", "compute_capability")},
        inputs=_tail_inputs,
        outputs=("out",),
        expected=_tail_expected,
        call=_tail_call,
        criteria=(
            Criterion(CORRECT, "simulator", section="waves", hint="exercise.03-tail.hint.correct"),
            Criterion("wave_efficiency", "simulator", section="waves", hint="exercise.03-tail.hint.waves",
                      at_least=0.9),
            Criterion("time_ratio", "gpu", section="waves", hint="exercise.03-tail.hint.time", at_most=1.15),
        ),
        skeleton_fails=("wave_efficiency", "time_ratio"),
        own_metrics=(Metric("wave_efficiency", "simulator", 2, wave_efficiency),),
        simulator_elements=TAIL_SIMULATOR_ELEMENTS,
        gpu_elements=TAIL_GPU_ELEMENTS,
        rtol=0.0,
        atol=0.0,
    ),
]
