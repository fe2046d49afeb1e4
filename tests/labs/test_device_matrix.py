"""The labs on ten readers' GPUs (labkit.specs.profiles: T4, V100, A100 40 GB, RTX 3060 laptop 6 GB,
L4, RTX 4090, H100 PCIe, H200, B200, RTX 5090), none of which is needed here.

- Each lab's plan at full size, as a pure function of the device's facts: the H200's is the lab's
  ``gpu_sizes`` exactly; on every part the sizes validate, the buffers fit (a quarter of its memory,
  at most half with lab 04's fixed 1 GiB timer copy), every launch is one the part can run, lab 01's
  FMA ceilings fill one wave and its FP64 calls stay short on 1:64 parts, lab 03's sweep points and
  profiled launches hold the residency they claim, lab 05's walkers fill the GPU once, lab 06's
  steps run where their instructions exist (tensor-core steps from 8.0, wgmma on 9.0 only), each
  at a size its tiles divide, with its shared memory and registers, and its slowest calls short.
- Each lab's checks, measurement code (stand-in timer, 2 SMs of the part: tests/labs/stand_in.py)
  and tables in the simulator: lab 03, whose code depends most on the architecture, on every part;
  the others on the part tests/labs/conftest.py gives them (every lab on every part with
  LABKIT_DEVICE_MATRIX=all: slow, for when the labs' code changes). Results files that validate.
- The theoretical peaks of each part equal its datasheet's within the clocks' difference:
  tests/unit/test_known_gpus.py.
"""

from __future__ import annotations

import os

import pytest

from labkit.gpu.backend import select_backend
from labkit.labs.base import labs
from labkit.labs.planning import FP64_CALL_SECONDS, memory_budget_bytes
from labkit.models import occupancy
from labkit.records.files import read_results
from labkit.specs.profiles import COURSE_GPU, PROFILES
from tests.conftest import REPO_ROOT
from tests.labs.conftest import measure_in_simulator, simulated_on
from tests.labs.test_measure_in_simulator import round_trip_and_render

LABS = list(labs())
#: Registers the H200's compiler gave the kernels lab 03 sizes its launches with (its record): the
#: same source compiles to about as many on other parts.
LAB03_RECORD = "labs/03-occupancy/results/nvidia-h200.json"


def test_the_course_gpu_gets_the_course_sizes_exactly():
    for lab in labs().values():
        assert lab.sizes_for(COURSE_GPU) == lab.gpu_sizes, lab.id


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("lab_id", LABS)
def test_the_plan_fits_the_gpu_and_launches_run_there(lab_id, profile):
    lab, facts = labs()[lab_id], PROFILES[profile]
    sizes = lab.sizes_for(facts)
    assert type(sizes).model_validate(sizes.model_dump()) == sizes
    footprint = lab.footprint_bytes(sizes)
    assert footprint <= facts.memory_bytes / 2, f"{footprint >> 20} MiB on {facts.memory_bytes >> 20} MiB"
    if lab_id != "lab-04":   # lab 04's timer copies 1 GiB whatever the GPU (2 GiB held): within the half
        assert footprint <= memory_budget_bytes(facts)
    LAUNCHES.get(lab_id, lambda *args: None)(lab, sizes, facts)   # a new lab: add its launches below


def lab01_launches(lab, sizes, facts):
    from labkit.labs.lab01.sizing import fp64_call_seconds

    arch = occupancy.architecture(facts.compute_capability)
    # one wave: every FMA block resident at once (the chains' kernels need at most 32 registers)
    resident = occupancy.calculate(occupancy.KernelLaunch(sizes.fma_threads, 32), arch).blocks_per_sm
    assert sizes.fma_blocks_per_sm == min(resident, lab.gpu_sizes.fma_blocks_per_sm)
    assert fp64_call_seconds(sizes, facts) <= FP64_CALL_SECONDS
    assert sizes.copy_bytes >= 8 * facts.l2_bytes      # the copy ceiling reads DRAM, not L2


def lab02_launches(lab, sizes, facts):
    from labkit.labs.lab02 import plan

    arch = occupancy.architecture(facts.compute_capability)
    for launch in plan.launches(sizes, facts.sm_count):
        occupancy.check(occupancy.KernelLaunch(launch.block[0] * launch.block[1], 32), arch)
        assert launch.grid[0] < 2 ** 31 and launch.grid[1] < 2 ** 16


def lab03_launches(lab, sizes, facts):
    from labkit.labs.lab03 import program
    from labkit.labs.lab03.sizing import register_inputs_bytes

    record = read_results(REPO_ROOT / LAB03_RECORD, lab.results_type, lab.id).results
    arch = occupancy.architecture(facts.compute_capability)

    def points(threads_and_blocks, registers):
        """The sweep's launches at each residency: refused (None) only where the kernel's registers
        stop it below that residency, as they do on the H200; at least two points per curve."""
        kept = 0
        for threads, blocks in threads_and_blocks:
            launch = program.capped_launch(threads, blocks, registers, arch)
            resident = occupancy.calculate(occupancy.KernelLaunch(threads, registers), arch).blocks_per_sm
            assert (launch is None) == (resident < blocks), (threads, blocks, registers)
            kept += launch is not None
        assert kept >= 2

    for kernel in record.memory.kernels:
        points([program.copy_shape(w, arch) for w in sizes.stream_warps], kernel.registers_per_thread)
    for kernel in record.arithmetic.kernels:
        points([(program.FMA_THREADS, w // 4) for w in sizes.fma_warps], kernel.registers_per_thread)
    assert program.capped_launch(sizes.wave_threads, sizes.wave_blocks_per_sm, record.waves.registers_per_thread, arch)
    labels = program.profiled(arch)
    assert len(labels) == len(program.PROFILED) and (labels == program.PROFILED) == (arch.max_warps_per_sm == 64)
    assert register_inputs_bytes(sizes, facts.sm_count) <= sizes.stream_bytes
    assert max(sizes.chase_working_sets) > 4 * facts.l2_bytes   # the HBM plateau is reached


def lab04_launches(lab, sizes, facts):
    from labkit.labs.lab04.program import check_launches

    check_launches(sizes, facts)
    assert sizes.l2_set_bytes <= facts.l2_bytes / 2 < facts.l2_bytes * 4 <= sizes.hbm_set_bytes


def lab05_launches(lab, sizes, facts):
    from labkit.kernels.mysteries import STEPS
    from labkit.labs.lab05.results import THREADS

    # kernel_b's planted FP64 chain (elements x STEPS FMAs) stays short where FP64 runs at 1:64
    assert sizes.elements * STEPS * 2 / (facts.fp64_peak_gflops * 1e9) <= FP64_CALL_SECONDS

    arch = occupancy.architecture(facts.compute_capability)
    resident_blocks = occupancy.calculate(occupancy.KernelLaunch(THREADS, 32), arch).blocks_per_sm
    assert occupancy.waves(sizes.walk_blocks, facts.sm_count, resident_blocks) == pytest.approx(1.0, abs=0.01)


#: Registers per thread the H200's compilers gave lab 06's kernels (probe run 2 of labkit.calibration.gemm_probe;
#: issue 33's TMA steps: tests/gpu/tma_gemm_check.py; its Numba step on the tensor cores:
#: tests/gpu/numba_mma_check.py): the same sources compile to about as many on other parts.
LAB06_PROBES = ("tests/fixtures/h200-gemm/timings.json", "tests/fixtures/h200-tma/timings.json")
LAB06_NUMBA_MMA = "tests/gpu/recorded/nvidia-h200/numba_mma.json"
LAB06_NUMBA_PIPELINED = "tests/gpu/recorded/nvidia-h200/numba_pipelined.json"   # tests/gpu/numba_pipelined_check.py


def lab06_launches(lab, sizes, facts):
    import json

    from labkit.labs.lab06 import plan
    from labkit.labs.lab06.results import SLOW_STEPS, STEP_KEYS, step
    from labkit.labs.lab06.sizing import (CALL_SECONDS, NAIVE_SHARE_OF_FP32_PEAK, REGTILE_SHARE_OF_FP32_PEAK,
                                          SMALLEST_SIDE, call_seconds)

    cc = tuple(facts.compute_capability)
    skipped = plan.not_on(facts)
    assert all((item in skipped) == (cc != (9, 0)) for item in ("wgmma", "tma", "tma_bf16"))
    assert all((item in skipped) == (cc < (8, 0))
               for item in ("wmma", "mma", "numba_mma", "bf16", "cublas_tf32", "cublas_bf16", "triton_bf16"))
    arch = occupancy.architecture(cc)
    registers = {name: count for probe in LAB06_PROBES
                 for name, count in json.loads((REPO_ROOT / probe).read_text())["registers"].items()}
    registers["gemm_numba_mma"] = json.loads((REPO_ROOT / LAB06_NUMBA_MMA).read_text())["builds"]["lto_128_registers"][
        "registers"]
    registers["gemm_pipelined"] = json.loads((REPO_ROOT / LAB06_NUMBA_PIPELINED).read_text())["compiled"]["unrolled"][
        "registers"]
    sides = [(sizes.side, sizes.depth)] + ([(sizes.large_side, sizes.large_side)] if sizes.large_side else [])
    for key in STEP_KEYS:
        if key in skipped:
            continue
        for side, depth in sides[:1] if key in SLOW_STEPS else sides:
            assert plan.fitted_side(key, side) == side, (key, side)    # no step runs at another size on a GPU
            launch = plan.launch(key, side, depth, facts.sm_count)
            kernel = occupancy.KernelLaunch(launch.threads, registers[step(key).kernel], launch.static_shared_bytes,
                                            launch.dynamic_shared_bytes)
            occupancy.check(kernel, arch)
            assert occupancy.calculate(kernel, arch).blocks_per_sm >= 1, key
            assert launch.grid[0] < 2 ** 31 and launch.grid[1] < 2 ** 16
    # the slowest calls are short on this part, at the estimated shares of its FP32 peak
    assert sizes.side == SMALLEST_SIDE or call_seconds(sizes.side, sizes.depth, NAIVE_SHARE_OF_FP32_PEAK,
                                                       facts) <= CALL_SECONDS
    if sizes.large_side:
        assert sizes.large_side > sizes.side
        assert call_seconds(sizes.large_side, sizes.large_side, REGTILE_SHARE_OF_FP32_PEAK, facts) <= CALL_SECONDS


LAUNCHES = {"lab-01": lab01_launches, "lab-02": lab02_launches, "lab-03": lab03_launches,
            "lab-04": lab04_launches, "lab-05": lab05_launches, "lab-06": lab06_launches}


def simulated_cases():
    everything = os.environ.get("LABKIT_DEVICE_MATRIX") == "all"
    cases = []
    for lab_id in LABS:
        for profile in PROFILES:
            if profile == simulated_on(lab_id):
                continue    # measured once for the session: tests/labs/conftest.py, test_measure_in_simulator.py
            if lab_id == "lab-03" or everything:
                cases.append((lab_id, profile))
    return cases


@pytest.mark.skipif(select_backend() != "simulator", reason="runs in the Numba CUDA simulator only")
@pytest.mark.parametrize("lab_id, profile", simulated_cases())
def test_the_measurement_runs_in_the_simulator_on_the_part(lab_id, profile, tmp_path):
    lab = labs()[lab_id]
    facts, results, steps = measure_in_simulator(lab_id, profile, tmp_path)
    assert len(steps) == lab.program().steps
    round_trip_and_render(lab, facts, results, tmp_path)
