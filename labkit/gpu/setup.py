"""Install the GPU packages that match this machine's NVIDIA driver: ``python -m labkit.gpu.setup``.

CuPy and numba-cuda's NVVM/NVRTC wheels come in a CUDA 12 and a CUDA 13 flavour; a driver runs
the flavour of its own CUDA major version or an older one (CUDA's minor-version compatibility).
CUDA 13 no longer compiles for compute capabilities below 7.5 (its release notes: Maxwell, Pascal
and Volta dropped): a V100 (7.0) gets the CUDA 12 flavour whatever its driver runs.
The driver's version is read from the driver library itself (``cuDriverGetVersion``), so no CUDA
toolkit is needed. ``make lab-NN`` runs this once per environment; without an NVIDIA driver it
installs nothing (the labs then run in the simulator).

Standard library only: it runs before the environment holds anything.
"""

from __future__ import annotations

import ctypes
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from labkit.errors import LabkitError

_DRIVER_LIBRARY = "nvcuda.dll" if sys.platform == "win32" else "libcuda.so.1"


@dataclass(frozen=True)
class Flavour:
    cuda_major: int
    extra: str          # the pyproject extra that holds its packages
    constraints: str    # its lock file
    oldest_compute_capability: tuple[int, int]   # the oldest GPU its compilers target


FLAVOURS = (Flavour(13, "gpu", "constraints.txt", (7, 5)),
            Flavour(12, "gpu-cuda12", "constraints-cuda12.txt", (5, 0)))
_CC_MAJOR, _CC_MINOR = 75, 76   # CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR / _MINOR


class GpuSetupError(LabkitError):
    """A driver too old for any flavour labkit installs."""


def driver_cuda_version() -> int | None:
    """cuDriverGetVersion's answer (e.g. 13000 for CUDA 13.0), or None without a usable driver."""
    try:
        driver = ctypes.CDLL(_DRIVER_LIBRARY)
    except OSError:
        return None
    version = ctypes.c_int(0)
    if driver.cuDriverGetVersion(ctypes.byref(version)) != 0:
        return None
    return version.value


def device_compute_capability() -> tuple[int, int] | None:
    """The first GPU's compute capability, from the driver library (cuDeviceGetAttribute); None if unread."""
    try:
        driver = ctypes.CDLL(_DRIVER_LIBRARY)
        device, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
        if (driver.cuInit(0) != 0 or driver.cuDeviceGet(ctypes.byref(device), 0) != 0
                or driver.cuDeviceGetAttribute(ctypes.byref(major), _CC_MAJOR, device) != 0
                or driver.cuDeviceGetAttribute(ctypes.byref(minor), _CC_MINOR, device) != 0):
            return None
    except (OSError, AttributeError):
        return None
    return major.value, minor.value


def choose(driver_version: int | None, compute_capability: tuple[int, int] | None = None) -> Flavour | None:
    """The newest flavour whose CUDA major version the driver runs and whose compilers target the
    GPU (``compute_capability``, when known); None without a driver."""
    if driver_version is None:
        return None
    major = driver_version // 1000
    for flavour in FLAVOURS:
        if flavour.cuda_major <= major and (compute_capability is None
                                            or tuple(compute_capability) >= flavour.oldest_compute_capability):
            return flavour
    raise GpuSetupError(f"the NVIDIA driver supports CUDA {major}.{driver_version % 1000 // 10}; the labs need "
                        "CUDA 12 or newer: update the driver")


def install_command(flavour: Flavour, python: str, project: Path) -> list[str]:
    return [python, "-m", "pip", "install", "-q", "-c", str(project / flavour.constraints),
            "-e", f"{project}[{flavour.extra}]"]


def main() -> int:
    project = Path.cwd()
    try:
        flavour = choose(driver_cuda_version(), device_compute_capability())
    except GpuSetupError as exc:
        print(f"labkit: {exc}")
        return 1
    if flavour is None:
        print("labkit: no NVIDIA driver here: nothing to install, the labs run in Numba's CUDA simulator")
        return 0
    print(f"labkit: the NVIDIA driver runs CUDA {flavour.cuda_major}: installing the '{flavour.extra}' packages "
          f"(CuPy and numba-cuda's NVVM/NVRTC for CUDA {flavour.cuda_major}), pinned by {flavour.constraints}")
    return subprocess.run(install_command(flavour, sys.executable, project)).returncode


if __name__ == "__main__":
    sys.exit(main())
