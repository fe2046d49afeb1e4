"""Launch configurations refused before launch, with the limit named."""

import dataclasses

import pytest

from labkit.models.launch import LaunchConfigError, check_launch
from tests.unit.test_device import H200

SMALL = dataclasses.replace(H200, max_threads_per_block=512, max_shared_bytes_per_block_optin=101376)


def test_possible_configurations_pass():
    check_launch(1024)
    check_launch(256, 48 * 1024)
    check_launch(1024, 232448, H200)
    check_launch(512, 101376, SMALL)


def test_too_many_threads_names_the_limit():
    with pytest.raises(LaunchConfigError, match="^threads per block: 2048 requested, this GPU allows at most 1024$"):
        check_launch(2048)
    with pytest.raises(LaunchConfigError, match="1024 requested, this GPU allows at most 512$"):
        check_launch(1024, facts=SMALL)


@pytest.mark.parametrize("threads", [0, -32])
def test_threads_must_be_positive(threads):
    with pytest.raises(LaunchConfigError, match=f"threads per block: {threads} requested, at least 1"):
        check_launch(threads)


def test_too_much_shared_memory_names_the_limit_in_bytes_and_kib():
    expected = (
        r"^shared memory per block: 240000 bytes \(234\.4 KiB\) requested, "
        r"this GPU allows at most 232448 bytes \(227\.0 KiB\)$"
    )
    with pytest.raises(LaunchConfigError, match=expected):
        check_launch(256, 240000, H200)


def test_without_facts_shared_memory_is_held_to_the_portable_48_kib():
    with pytest.raises(LaunchConfigError, match=r"49153 bytes .* every CUDA GPU allows 49152 bytes \(48\.0 KiB\)"):
        check_launch(256, 48 * 1024 + 1)


def test_negative_shared_memory_is_refused():
    with pytest.raises(LaunchConfigError, match="cannot be negative"):
        check_launch(256, -1, H200)


def test_it_is_a_value_error():
    assert issubclass(LaunchConfigError, ValueError)
