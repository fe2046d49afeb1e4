"""On the GPU the labs run on: its facts, what the occupancy calculator knows of it, and the labs'
plans for it (on the course's H200, each lab's gpu_sizes exactly, so its records stay comparable)."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from labkit.gpu.device import read_device_facts
from labkit.labs.base import labs
from labkit.models.occupancy import architecture
from labkit.specs.datasheets import datasheet_for
from labkit.specs.profiles import COURSE_GPU

pytestmark = pytest.mark.gpu


def test_the_labs_plan_the_course_sizes_on_the_h200_and_fit_elsewhere(record):
    facts = read_device_facts()
    plans = {lab.id: lab.sizes_for(facts).model_dump(mode="json") for lab in labs().values()}
    record("device_plans", {"facts": asdict(facts), "plans": plans})
    arch = architecture(facts.compute_capability)
    assert (arch.shared_bytes_per_sm, arch.max_shared_bytes_per_block_optin) == (
        facts.shared_bytes_per_sm, facts.max_shared_bytes_per_block_optin)
    assert arch.registers_per_sm == facts.registers_per_sm
    sheet = datasheet_for(facts.name)
    if sheet is not None:
        assert (sheet.compute_capability, sheet.sm_count) == (tuple(facts.compute_capability), facts.sm_count)
    if "H200" not in facts.name:
        pytest.skip(f"the course's sizes are the H200's; this GPU is {facts.name}")
    assert {name: value for name, value in asdict(facts).items() if name not in ("driver_version", "memory_bytes")} \
        == {name: value for name, value in asdict(COURSE_GPU).items() if name not in ("driver_version", "memory_bytes")}
    for lab in labs().values():
        assert lab.sizes_for(facts) == lab.gpu_sizes, lab.id
