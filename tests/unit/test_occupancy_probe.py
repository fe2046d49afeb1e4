"""The occupancy probe's plan and record, on the CPU: a fake driver stands in for CuPy and the GPU."""

import dataclasses
import json
import re

import pytest

from labkit.calibration import occupancy_probe as probe
from labkit.calibration import write_calibration
from labkit.models import occupancy
from labkit.models.occupancy import SM90, KernelLaunch
from labkit.records.files import provenance

H200_PROPERTIES = {
    "name": b"NVIDIA H200", "major": 9, "minor": 0, "multiProcessorCount": 132, "warpSize": 32,
    "maxThreadsPerBlock": 1024, "maxThreadsPerMultiProcessor": 2048, "maxBlocksPerMultiProcessor": 32,
    "regsPerMultiprocessor": 65536, "regsPerBlock": 65536, "sharedMemPerMultiprocessor": 233472,
    "sharedMemPerBlock": 49152, "sharedMemPerBlockOptin": 232448, "reservedSharedMemPerBlock": 1024,
}
INVALID = "CUDA_ERROR_INVALID_VALUE: invalid argument"


@dataclasses.dataclass
class FakeKernel:
    """A loaded kernel as a driver would hold it: attributes that settings change."""

    spec: probe.KernelSpec
    max_dynamic: int
    carveout: int = -1

    @property
    def registers(self):
        return min(self.spec.register_cap or 255, self.spec.live_values + 10)


class FakeDriver:
    """Answers from its own state of each kernel with labkit's calculator, refuses what the CUDA
    driver refuses; ``lie_at`` makes one answer wrong, ``broken_cap`` one module fail to compile."""

    def __init__(self, lie_at=None, broken_cap="none"):
        self.queries = 0
        self.lie_at = lie_at
        self.broken_cap = broken_cap

    def compile(self, specs):
        handles = {s.name: FakeKernel(s, 49152 - s.static_shared_bytes) for s in specs if s.register_cap != self.broken_cap}
        errors = [f"module ('--maxrregcount={self.broken_cap}',): NVRTC_ERROR_COMPILATION"] if self.broken_cap != "none" else []
        return handles, errors

    def attributes(self, kernel):
        return {"num_regs": kernel.registers, "shared_size_bytes": kernel.spec.static_shared_bytes,
                "local_size_bytes": 0, "max_threads_per_block": kernel.spec.launch_bound or 1024,
                "max_dynamic_shared_size_bytes": kernel.max_dynamic, "preferred_shared_memory_carveout": kernel.carveout,
                "binary_version": 90}

    def set_max_dynamic_shared_bytes(self, kernel, bytes_):
        if bytes_ > SM90.max_shared_bytes_per_block_optin - kernel.spec.static_shared_bytes:
            return INVALID
        kernel.max_dynamic = bytes_
        return None

    def set_carveout_percent(self, kernel, percent):
        if not -1 <= percent <= 100:
            return INVALID
        kernel.carveout = percent
        return None

    def max_active_blocks(self, kernel, threads, dynamic_bytes):
        self.queries += 1
        if threads < 1:
            return INVALID
        if threads > 1024:
            return 0
        launch = KernelLaunch(threads, kernel.registers, kernel.spec.static_shared_bytes, dynamic_bytes,
                              kernel.max_dynamic, None if kernel.carveout < 0 else kernel.carveout)
        answer = probe.calculator_blocks(launch, SM90)
        if isinstance(answer, str):
            return 0
        return answer + 1 if self.queries == self.lie_at else answer


@pytest.fixture(scope="module")
def calibration():
    return probe.calibrate(FakeDriver(), SM90)


# --- the plan ---------------------------------------------------------------------------------

def test_kernels_span_register_caps_and_static_sizes():
    specs = probe.kernel_specs()
    assert len({s.name for s in specs}) == len(specs) == 2 * len(probe.REGISTER_CAPS) + len(probe.LIVE_VALUES)
    assert {s.register_cap for s in specs} == {*probe.REGISTER_CAPS, None}
    assert min(probe.REGISTER_CAPS) <= 16 and max(probe.REGISTER_CAPS) == 255
    statics = {s.static_shared_bytes for s in specs}
    assert statics == set(probe.STATIC_SHARED_BYTES)
    assert {0, 48 * 1024} <= statics and any(b % 128 for b in statics)


def test_one_module_per_register_cap():
    groups = probe.module_groups(probe.kernel_specs())
    assert set(groups) == {*probe.REGISTER_CAPS, None}
    assert all(len(group) == 2 for cap, group in groups.items() if cap is not None)
    assert probe.module_options(64) == ("--maxrregcount=64",) and probe.module_options(None) == ()


def test_kernel_source_declares_what_the_spec_says():
    source = probe.kernel_source(probe.KernelSpec(33, 12_345, 64))
    assert 'extern "C" __global__ void occupancy_l33_s12345_r64_b0(' in source
    assert "__shared__ unsigned char tile[12345];" in source and "float v[33];" in source
    assert "extern __shared__ unsigned char dynamic_tile[];" in source
    assert "tile[" not in probe.kernel_source(probe.KernelSpec(8, 0)).replace("dynamic_tile[", "")
    assert "__global__ void __launch_bounds__(128) occupancy_l8_s0_r0_b128(" in probe.kernel_source(probe.BOUNDED_KERNEL)


def compiled(static=1000, registers=40, default=None):
    return probe.CompiledKernel(probe.KernelSpec(30, static), registers, static, 0, 1024,
                                49152 - static if default is None else default, -1, 90)


def test_phases_ask_under_the_default_attribute_then_past_it_once_raised():
    first, raised = probe.phases(compiled(), 1, SM90)
    assert (first.max_dynamic_shared_bytes, first.carveout_percent) == (None, None)
    assert sorted({d for _, d in first.points}) == [0, 48152]
    assert raised.max_dynamic_shared_bytes == 232448 - 1000
    assert sorted({d for _, d in raised.points}) == [48153, 70_000, 100_000, 231_448]
    assert {t for t, _ in first.points} == set(probe.BLOCK_SIZES)
    assert any(t % 32 for t in probe.BLOCK_SIZES) and 1024 in probe.BLOCK_SIZES


def test_a_full_static_kernel_asks_no_dynamic_memory_until_raised():
    first, raised = probe.phases(compiled(static=49152), 1, SM90)
    assert {d for _, d in first.points} == {0}
    assert min(d for _, d in raised.points) == 1


def test_carveouts_are_asked_last_on_some_kernels():
    planned = probe.phases(compiled(), 0, SM90)
    assert [p.carveout_percent for p in planned] == [None, None, *probe.CARVEOUT_PERCENTS]
    assert len(probe.phases(compiled(), 1, SM90)) == len(probe.phases(compiled(), probe.CARVEOUT_EVERY + 1, SM90)) == 2


# --- the calibration, through a fake driver -----------------------------------------------------

def test_at_least_1500_configurations_and_a_file_of_reasonable_size(calibration):
    assert 1500 <= len(calibration["rows"]) <= 6000
    assert len(calibration["kernels"]) == len(probe.kernel_specs())


def test_a_driver_that_follows_the_rules_agrees_everywhere(calibration):
    summary = calibration["summary"]
    assert summary["equal"] == summary["configurations"] and summary["first_mismatch"] is None


def test_rows_carry_the_attributes_in_force(calibration):
    rows = probe.rows_of(calibration)
    assert {r["carveout_percent"] for r in rows} == {None, *probe.CARVEOUT_PERCENTS}
    large = [r for r in rows if r["static_shared_bytes"] + r["dynamic_shared_bytes"] > 48 * 1024]
    assert large and all(r["max_dynamic_shared_bytes"] == 232448 - r["static_shared_bytes"] for r in large)
    assert any(r["driver_blocks"] == 0 for r in rows)  # register-bound impossible launches are in the grid
    assert all(probe.launch_of(r) == KernelLaunch(*[r[c] for c in probe.COLUMNS[1:7]]) for r in rows[:5])


def test_a_wrong_answer_is_counted_and_the_first_is_named():
    result = probe.calibrate(FakeDriver(lie_at=7), SM90)
    summary = result["summary"]
    assert summary["equal"] == summary["configurations"] - 1
    mismatch = summary["first_mismatch"]
    assert mismatch["driver_blocks"] == mismatch["calculator_blocks"] + 1
    assert probe.rows_of(result).index(mismatch) == 6


def test_a_module_that_fails_to_compile_is_recorded_and_the_rest_goes_on():
    result = probe.calibrate(FakeDriver(broken_cap=64), SM90)
    assert result["errors"] == ["module ('--maxrregcount=64',): NVRTC_ERROR_COMPILATION"]
    assert len(result["kernels"]) == len(probe.kernel_specs()) - 2


def test_an_attribute_the_driver_refuses_skips_its_queries_only():
    class Strict(FakeDriver):
        def set_max_dynamic_shared_bytes(self, kernel, bytes_):
            return INVALID if bytes_ > 200_000 else super().set_max_dynamic_shared_bytes(kernel, bytes_)

    result = probe.calibrate(Strict(), SM90)
    refused = [e for e in result["errors"] if "refused (CUDA_ERROR_INVALID_VALUE" in e]
    assert refused and refused[0].startswith("occupancy_l256_s0_r16_b0: max dynamic shared 232448 bytes")
    assert 1500 <= len(result["rows"]) < len(probe.calibrate(FakeDriver(), SM90)["rows"])
    assert result["summary"]["equal"] == result["summary"]["configurations"]


def test_edge_cases_record_both_answers(calibration):
    edges = {e["case"]: e for e in calibration["edges"]}
    assert len(edges) == 9
    zero = edges["a block of 0 threads"]
    assert zero["calculator_blocks"].startswith("refused: threads per block: 0") and zero["driver_blocks"] == INVALID
    over = edges["dynamic shared memory one byte over the default attribute"]
    assert (over["calculator_blocks"], over["driver_blocks"]) == (0, 0)
    refused = edges["attribute set one byte over opt-in minus static"]
    assert refused["driver_set_error"] == INVALID and refused["calculator_blocks"].startswith("refused: ")
    assert edges["a carve-out preference of 200 %"]["driver_set_error"] == INVALID
    assert edges["__launch_bounds__(128) kernel, 256 threads"]["calculator_blocks"] is None
    assert [probe.edge_agrees(e) for e in calibration["edges"]] == [True] * 8 + [None]


@pytest.mark.parametrize("calculator, driver, set_error, agrees", [
    (4, 4, None, True), (4, 3, None, False), ("refused: x", 0, None, True), ("refused: x", INVALID, None, True),
    ("refused: x", 5, INVALID, True), ("refused: x", 5, None, False), (None, 5, None, None),
])
def test_edge_agreement_rules(calculator, driver, set_error, agrees):
    record = {"calculator_blocks": calculator, "driver_blocks": driver, "driver_set_error": set_error}
    assert probe.edge_agrees(record) is agrees


# --- the device and the file --------------------------------------------------------------------

def test_the_h200_matches_labkits_table():
    device = probe.device_record(H200_PROPERTIES)
    assert (device["name"], device["compute_capability"], device["sm_count"]) == ("NVIDIA H200", "9.0", 132)
    assert probe.device_mismatches(device, SM90) == []


def test_a_device_that_differs_from_the_table_is_named():
    device = probe.device_record({**H200_PROPERTIES, "reservedSharedMemPerBlock": 0})
    assert probe.device_mismatches(device, SM90) == [
        "reservedSharedMemPerBlock: the driver reports 0, labkit's table for 9.0 holds 1024"]


def test_cuda_versions_are_decoded():
    assert probe.cuda_version(13000) == "13.0" and probe.cuda_version(12080) == "12.8"


def test_the_results_file_validates_and_reads_back(tmp_path, calibration):
    device = probe.device_record(H200_PROPERTIES)
    results = {"device": device, "versions": {"cupy": "14.2.0", "cuda_runtime": "13.0", "cuda_driver": "13.0",
                                              "nvrtc": "13.0"},
               "architecture": dataclasses.asdict(SM90), "device_mismatches": [], **calibration, "probe_seconds": 1.5}
    path = write_calibration(tmp_path / probe.RESULTS_FILE, probe.LAB,
                             provenance("NVIDIA H200", (9, 0), "580.159.04", None, None, tmp_path), results)
    loaded = json.loads(path.read_text())["results"]
    assert probe.rows_of(loaded) == probe.rows_of(calibration)
    assert occupancy.calculate(probe.launch_of(probe.rows_of(loaded)[0])).blocks_per_sm == loaded["rows"][0][-1]


def test_without_cupy_or_a_gpu_main_says_so_in_one_line(tmp_path, capsys):
    assert probe.main([str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("occupancy probe: ") and err.count("\n") == 1
    assert not (tmp_path / probe.RESULTS_FILE).exists()


class FakeCupy(FakeDriver):
    """CupyDriver's whole surface, for a dry run of main() on the CPU."""

    def device_properties(self):
        return H200_PROPERTIES

    def versions(self):
        return {"cupy": "14.2.0", "cuda_runtime": "13.0", "cuda_driver": "13.0", "nvrtc": "13.0"}


def test_a_dry_run_of_main_writes_a_valid_file_and_says_what_it_found(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(probe, "CupyDriver", FakeCupy)
    assert probe.main([str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("NVIDIA H200 (CC 9.0, 132 SMs): ")
    assert "configurations equal to the driver, edge cases 8 agree, 0 differ, 1 not modelled" in out
    results = json.loads((tmp_path / probe.RESULTS_FILE).read_text())["results"]
    assert results["summary"]["equal"] == results["summary"]["configurations"] >= 1500
    assert results["device_mismatches"] == [] and results["probe_seconds"] < 60


def test_main_exits_1_when_the_driver_disagrees(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(probe, "CupyDriver", lambda: FakeCupy(lie_at=3))
    assert probe.main([str(tmp_path)]) == 1
    out = capsys.readouterr().out
    equal, total = map(int, re.search(r"(\d+)/(\d+) configurations equal to the driver", out).groups())
    assert equal == total - 1
    assert "first mismatch: {'kernel': 0, 'threads_per_block': 32," in out and "'driver_blocks': 33, 'calculator_blocks': 32}" in out
