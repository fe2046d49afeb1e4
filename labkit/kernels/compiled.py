"""What the CUDA driver says of a compiled Numba kernel, and the one attribute lab 03 sets on it.

- :func:`resources`: registers per thread and local memory per thread (the spills) of the
  kernel compiled for a signature (``CU_FUNC_ATTRIBUTE_NUM_REGS``, ``..._LOCAL_SIZE_BYTES``);
- :func:`allow_dynamic_shared`: raise the kernel's ``CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES``
  so that a launch may ask for more than 48 KiB of dynamic shared memory (the opt-in). Numba
  sets the carve-out this way (``cuKernelSetAttribute`` on the kernel's handle) and no other.

In the simulator nothing is compiled: resources are None and the attribute is not needed.
"""

from __future__ import annotations

from dataclasses import dataclass

from labkit.gpu import SIMULATED

#: The dynamic shared memory a kernel may take without opting in (every GPU of CC 7.0 on).
DEFAULT_MAX_DYNAMIC_SHARED_BYTES = 48 * 1024


@dataclass(frozen=True)
class Resources:
    registers_per_thread: int | None
    local_bytes_per_thread: int | None


def resources(dispatcher, signature: str) -> Resources:
    """The kernel compiled for ``signature`` (compiling it now if needed), as the driver reports it."""
    if SIMULATED:
        return Resources(None, None)
    compiled = dispatcher.compile(signature)
    return Resources(int(compiled.regs_per_thread), int(compiled.local_mem_per_thread))


def allow_dynamic_shared(dispatcher, signature: str, bytes_: int) -> None:
    """Let launches of the kernel compiled for ``signature`` ask for ``bytes_`` of dynamic shared
    memory (a no-op up to 48 KiB, and in the simulator)."""
    if SIMULATED or bytes_ <= DEFAULT_MAX_DYNAMIC_SHARED_BYTES:
        return
    from numba.cuda.cudadrv.driver import binding, driver

    function = dispatcher.compile(signature)._codelibrary.get_cufunc()
    attribute = binding.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
    driver.cuKernelSetAttribute(attribute, bytes_, function.handle, function.device.id)
