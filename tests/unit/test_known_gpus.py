"""Datasheets, the driver's profiles of common parts, and a record's device facts held to them."""

import json

import pytest

from labkit.gpu import device
from labkit.records.plausibility import impossible_device_fact
from labkit.specs import datasheets
from labkit.specs.architectures import COMPUTE_CAPABILITIES
from labkit.specs.datasheets import DATASHEETS, datasheet_for
from labkit.specs.profiles import PROFILES
from tests.conftest import REPO_ROOT


@pytest.mark.parametrize("sheet", DATASHEETS, ids=lambda s: s.name)
def test_each_datasheet_agrees_with_its_own_sms_lanes_and_clock(sheet):
    # the vendor's FP32 (and FP64 where stated) peak is SMs x lanes x 2 x boost clock, within rounding
    fp32 = device.fp32_peak_gflops(sheet.sm_count, sheet.compute_capability, sheet.boost_clock_mhz)
    assert fp32 == pytest.approx(sheet.fp32_gflops, rel=0.02)
    if sheet.fp64_gflops is not None:
        fp64 = device.fma_peak_gflops(sheet.sm_count, device.fp64_lanes_per_sm(sheet.compute_capability),
                                      sheet.boost_clock_mhz)
        assert fp64 == pytest.approx(sheet.fp64_gflops, rel=0.02)
    family = COMPUTE_CAPABILITIES[sheet.compute_capability]
    assert sheet.sm_count <= family.max_sm_count and sheet.hbm_gbps <= family.max_dram_gbps
    assert sheet.memory_kind.startswith(("HBM", "GDDR"))


@pytest.mark.parametrize("key", PROFILES)
def test_each_profile_matches_its_datasheet_within_the_clocks_difference(key):
    facts = PROFILES[key]
    sheet = datasheet_for(facts.name)
    assert sheet is not None and sheet.compute_capability == facts.compute_capability
    assert facts.sm_count == sheet.sm_count
    clock_ratio = facts.max_sm_clock_mhz / sheet.boost_clock_mhz
    assert facts.fp32_peak_gflops == pytest.approx(sheet.fp32_gflops * clock_ratio, rel=0.02)
    if sheet.fp64_gflops is not None:
        assert facts.fp64_peak_gflops == pytest.approx(sheet.fp64_gflops * clock_ratio, rel=0.02)
    # bus x memory clock, as the driver reports them, gives the vendor's bandwidth (HBM and GDDR alike)
    assert facts.hbm_peak_gbps == pytest.approx(sheet.hbm_gbps, rel=0.03)
    assert facts.memory_bytes <= sheet.memory_gb * 1e9 * 1.1


def test_driver_names_find_their_datasheet():
    assert datasheet_for("NVIDIA H200") is datasheets.H200_SXM
    assert datasheet_for("nvidia  geforce rtx 4090") is datasheets.RTX_4090
    assert datasheet_for("NVIDIA RTX A6000") is None


def h200_record() -> dict:
    return json.loads((REPO_ROOT / "labs/01-roofline/results/nvidia-h200.json").read_text())


def test_the_course_record_is_possible_and_each_forged_fact_is_named():
    assert impossible_device_fact(h200_record()) is None
    for pointer, value, where in (
            (("results", "device", "fp64_lanes_per_sm"), 128, "results/device/fp64_lanes_per_sm"),
            (("results", "device", "max_sm_clock_mhz"), 2500.0, "results/device/max_sm_clock_mhz"),
            (("provenance", "clocks_mhz", "memory"), 1e6, "provenance/clocks_mhz/memory"),
            (("results", "ceilings", "fp64", "timing", "sm_clock_mhz"), 2600.0,
             "results/ceilings/fp64/timing/sm_clock_mhz")):
        record = h200_record()
        node = record
        for part in pointer[:-1]:
            node = node[part]
        node[pointer[-1]] = value
        assert impossible_device_fact(record)[0] == where


def test_a_gpu_without_a_datasheet_is_held_to_its_compute_capability():
    record = h200_record()
    record["provenance"]["gpu"] = "NVIDIA H100 NVL"
    assert impossible_device_fact(record) is None
    record["results"]["device"]["sm_count"] = 150
    assert impossible_device_fact(record) == ("results/device/sm_count",
                                              "150 SMs: any GPU of compute capability 9.0 has at most 144 "
                                              "(GH100 (144 SMs); H200 NVL 4.8 TB/s, GH200 144 GB 4.9 TB/s)")
    record["provenance"]["compute_capability"] = "6.1"
    assert impossible_device_fact(record)[0] == "provenance/compute_capability"
