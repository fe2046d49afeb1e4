"""Refuse impossible launch configurations before launching, naming the limit broken.

Without device facts, the limits checked are those every CUDA GPU of compute capability
7.0 or later guarantees: 1024 threads per block, 48 KiB of shared memory per block (more
needs the per-device opt-in, which only the device facts know).
"""

from __future__ import annotations

from labkit.errors import LabkitError
from labkit.gpu.device import DeviceFacts

PORTABLE_MAX_THREADS_PER_BLOCK = 1024
PORTABLE_MAX_SHARED_BYTES_PER_BLOCK = 48 * 1024


class LaunchConfigError(LabkitError, ValueError):
    """A launch configuration the GPU cannot run; the message names the limit."""


def _bytes_and_kib(bytes_: int) -> str:
    return f"{bytes_} bytes ({bytes_ / 1024:.1f} KiB)"


def check_launch(threads_per_block: int, shared_bytes: int = 0, facts: DeviceFacts | None = None) -> None:
    """Raise LaunchConfigError unless 1 <= threads <= max per block and 0 <= shared <= max per block."""
    if threads_per_block < 1:
        raise LaunchConfigError(f"threads per block: {threads_per_block} requested, at least 1 is needed")
    max_threads = PORTABLE_MAX_THREADS_PER_BLOCK if facts is None else facts.max_threads_per_block
    if threads_per_block > max_threads:
        raise LaunchConfigError(
            f"threads per block: {threads_per_block} requested, this GPU allows at most {max_threads}"
        )
    if shared_bytes < 0:
        raise LaunchConfigError(f"shared memory per block: {shared_bytes} bytes requested, cannot be negative")
    if facts is None:
        if shared_bytes > PORTABLE_MAX_SHARED_BYTES_PER_BLOCK:
            raise LaunchConfigError(
                f"shared memory per block: {_bytes_and_kib(shared_bytes)} requested, every CUDA GPU allows "
                f"{_bytes_and_kib(PORTABLE_MAX_SHARED_BYTES_PER_BLOCK)}; pass this GPU's DeviceFacts "
                "to check against its opt-in limit"
            )
    elif shared_bytes > facts.max_shared_bytes_per_block_optin:
        raise LaunchConfigError(
            f"shared memory per block: {_bytes_and_kib(shared_bytes)} requested, this GPU allows at most "
            f"{_bytes_and_kib(facts.max_shared_bytes_per_block_optin)}"
        )
