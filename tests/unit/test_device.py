"""Backend choice, theoretical peaks and clock parsing: no GPU needed."""

import os
import subprocess
import sys

import pytest

from labkit.gpu import backend, device
from labkit.gpu.device import Clocks, DeviceFacts, NoGPUError

H200 = DeviceFacts(
    name="NVIDIA H200",
    compute_capability=(9, 0),
    sm_count=132,
    max_sm_clock_mhz=1980.0,
    max_mem_clock_mhz=3201.0,
    memory_bus_width_bits=6016,
    l2_bytes=62914560,
    max_threads_per_block=1024,
    max_shared_bytes_per_block_optin=232448,
    shared_bytes_per_sm=233472,
    registers_per_sm=65536,
    driver_version="13.0",
    memory_bytes=143_771 << 20,
)


def test_hbm_peak_of_the_h200():
    # 2 x 3201e6 x 6016 / 8 = 4.814e12 B/s
    assert device.hbm_peak_gbps(3201, 6016) == pytest.approx(4814.304)
    assert H200.hbm_peak_gbps == pytest.approx(4814.304)


def test_fp32_peak_of_the_h200():
    # 132 SMs x 128 lanes x 2 x 1980 MHz = 66.9 TFLOP/s
    assert device.fp32_peak_gflops(132, (9, 0), 1980) == pytest.approx(66_908.16)
    assert H200.fp32_peak_gflops == pytest.approx(66_908.16)


def test_fp32_lanes_differ_by_architecture():
    assert device.fp32_peak_gflops(108, (8, 0), 1410) == pytest.approx(108 * 64 * 2 * 1.41)
    assert device.fp32_peak_gflops(128, (8, 9), 2520) == pytest.approx(128 * 128 * 2 * 2.52)


def test_unknown_compute_capability_names_the_table():
    with pytest.raises(ValueError, match=r"compute capability 6\.1: labkit knows 7\.0, .*12\.1 \(add it to labkit/specs/architectures\.py\)$"):
        device.fp32_peak_gflops(100, (6, 1), 2000)


@pytest.mark.parametrize(
    "text, expected",
    [("1980, 3201\n", Clocks(1980.0, 3201.0)), ("345, 3201\n1980, 3201\n", Clocks(345.0, 3201.0)),
     ("[N/A], [N/A]\n", None), ("", None), ("1980\n", None)],
)
def test_parse_smi_clocks(text, expected):
    assert device.parse_smi_clocks(text) == expected


def test_median_clocks():
    samples = [Clocks(345, 3201), Clocks(1980, 3201), Clocks(1980, 3201)]
    assert device.median_clocks(samples) == Clocks(1980, 3201)
    assert device.median_clocks([]) is None


def test_read_clocks_falls_back_to_nvidia_smi(monkeypatch):
    monkeypatch.setattr(device, "_clocks_from_nvml", lambda bus: None)
    monkeypatch.setattr(device, "_smi_query", lambda fields, bus: "1980, 3201\n")
    assert device.read_clocks() == Clocks(1980.0, 3201.0)
    monkeypatch.setattr(device, "_smi_query", lambda fields, bus: None)
    assert device.read_clocks() is None


def test_device_facts_need_a_gpu(monkeypatch):
    import labkit.gpu._numba

    monkeypatch.setattr(labkit.gpu._numba, "SIMULATED", True)
    with pytest.raises(NoGPUError, match="simulator"):
        device.read_device_facts()


# Backend choice. select_backend decides once per process and numba reads the variable
# once, so each case runs in a fresh interpreter.

def _select_in_subprocess(code: str, simulator_env: str | None) -> str:
    env = {k: v for k, v in os.environ.items() if k != backend.SIMULATOR_ENV}
    if simulator_env is not None:
        env[backend.SIMULATOR_ENV] = simulator_env
    prelude = "import os; from labkit.gpu import backend as b\n"
    done = subprocess.run([sys.executable, "-c", prelude + code], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_simulator_variable_is_respected():
    code = "b.cuda_device_count = lambda: 1\nprint(b.select_backend(), b.is_simulator())"
    assert _select_in_subprocess(code, "1") == "simulator True"


def test_a_gpu_means_cuda_and_leaves_the_variable_unset():
    code = "b.cuda_device_count = lambda: 1\nprint(b.select_backend(), os.environ.get(b.SIMULATOR_ENV))"
    assert _select_in_subprocess(code, None) == "cuda None"


def test_no_gpu_means_simulator_and_sets_the_variable_once():
    code = (
        "b.cuda_device_count = lambda: 0\nfirst = b.select_backend()\n"
        "value = os.environ.pop(b.SIMULATOR_ENV)\nb.cuda_device_count = lambda: 1\n"
        "print(first, value, b.select_backend())"
    )
    assert _select_in_subprocess(code, None) == "simulator 1 simulator"


def test_numba_cuda_already_imported_decides():
    code = (
        "from numba import cuda\ndel os.environ[b.SIMULATOR_ENV]\n"
        "b.cuda_device_count = lambda: 1\nprint(b.select_backend())"
    )
    assert _select_in_subprocess(code, "1") == "simulator"


def test_numba_imported_before_the_choice_still_gets_the_simulator():
    """numba reads the variable when numba itself is imported: `from numba import float32` before
    labkit.gpu (labkit.kernels.gemm_simt's order) must not leave numba.cuda on the real driver."""
    code = ("from numba import float32\nb.cuda_device_count = lambda: 0\nb.select_backend()\n"
            "from numba import cuda\nprint(cuda.to_device.__module__.startswith('numba.cuda.simulator'))")
    assert _select_in_subprocess(code, None) == "True"


class _FakeDriver:
    def __init__(self, init_result: int, count: int):
        self.init_result, self.count = init_result, count

    def cuInit(self, flags):
        return self.init_result

    def cuDeviceGetCount(self, pointer):
        pointer._obj.value = self.count
        return 0


def test_device_count_through_the_driver(monkeypatch):
    monkeypatch.setattr(backend.ctypes, "CDLL", lambda name: _FakeDriver(0, 2))
    assert backend.cuda_device_count() == 2
    monkeypatch.setattr(backend.ctypes, "CDLL", lambda name: _FakeDriver(100, 2))  # CUDA_ERROR_NO_DEVICE
    assert backend.cuda_device_count() == 0

    def missing(name):
        raise OSError(f"{name}: cannot open shared object file")

    monkeypatch.setattr(backend.ctypes, "CDLL", missing)
    assert backend.cuda_device_count() == 0


def test_h200_profile_is_what_the_lent_h200_reported():
    from labkit.specs.profiles import COURSE_GPU

    assert COURSE_GPU == H200


@pytest.mark.parametrize("cc", [(7, 0), (7, 5), (8, 0), (8, 6), (8, 7), (8, 9), (9, 0), (10, 0), (10, 3), (11, 0),
                                (12, 0), (12, 1)])
def test_every_compute_capability_has_lanes_and_an_fp64_ratio(cc):
    from labkit.models.occupancy import ARCHITECTURES

    assert cc in ARCHITECTURES
    ratio = device.fp64_ratio(cc)
    # data-centre parts 1:2; Turing 1:32; every other part 1:64
    assert ratio == {(7, 0): 0.5, (8, 0): 0.5, (9, 0): 0.5, (10, 0): 0.5, (7, 5): 1 / 32}.get(cc, 1 / 64)
