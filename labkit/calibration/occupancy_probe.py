"""Hold labkit.models.occupancy to the CUDA driver: ``python -m labkit.calibration.occupancy_probe OUTDIR``.

On a CUDA GPU with CuPy, it compiles real kernels with NVRTC (``cupy.RawModule``): each keeps a
number of floats live in registers (more live values, more registers; ``--maxrregcount`` caps
the modules of the capped kernels) and declares a static shared array of 0 to 48 KiB (sizes
that are not multiples of 128 included). For each compiled kernel it reads the driver's
attributes (registers, static shared memory, max dynamic shared memory, carve-out), then asks
the driver how many blocks fit an SM (``cuOccupancyMaxActiveBlocksPerMultiprocessor``, through
``cupy.cuda.driver``) for block sizes of whole warps and not, dynamic shared sizes under the
default attribute and, once the attribute is raised to the opt-in limit, over 48 KiB, and a few
carve-out preferences; beside each answer it records labkit.models.occupancy's. Nothing is launched:
the GPU time is mostly compiling, a few seconds.

Lab 03's step 7 runs the same plan on every ``make lab-03`` and keeps its rows beside the lab's
record (``labs/03-occupancy/results/<gpu>/occupancy_driver.csv``), where the recorded-results
tests hold labkit to them. Run alone, this command writes ``OUTDIR/occupancy_calibration.json``,
a lab-03 results file: provenance, the device
attributes read and any that differ from labkit's table, the CuPy/CUDA/NVRTC versions, the
compiled kernels, one row per configuration, and edge cases (inputs the calculator refuses or
does not model) with the driver's answer to each. It exits 1 unless every row agrees.

The plan and the record are pure and tested on the CPU (tests/unit/test_occupancy_probe.py);
only :class:`CupyDriver` touches the GPU.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import sys
import time
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any, Protocol

from labkit.calibration import write_calibration
from labkit.gpu.device import read_driver_release
from labkit.models import occupancy
from labkit.models.launch import LaunchConfigError
from labkit.models.occupancy import Architecture, KernelLaunch
from labkit.records.files import provenance

LAB = "lab-03"
RESULTS_FILE = "occupancy_calibration.json"

#: ``--maxrregcount`` values, each capping a module of kernels that keep 256 floats live.
REGISTER_CAPS = (16, 28, 32, 37, 40, 48, 56, 64, 65, 72, 80, 96, 128, 129, 168, 200, 232, 255)
CAPPED_LIVE_VALUES = 256
#: Live floats of the uncapped kernels: register counts the compiler picks, odd ones included.
LIVE_VALUES = (1, 2, 4, 8, 12, 20, 28, 33, 48, 64, 96, 128, 160, 192, 224, 256)
#: Static shared bytes, 0 to the 48 KiB a kernel may declare statically.
STATIC_SHARED_BYTES = (0, 1, 100, 1000, 1024, 3000, 4100, 10_000, 12_345, 20_000, 32_768, 40_000, 49_152)
#: Block sizes, whole warps and not (288 = 9 warps: one more than a 255-register block can have).
BLOCK_SIZES = (1, 32, 33, 100, 128, 256, 288, 512, 1000, 1024)
#: Dynamic shared bytes asked once the max-dynamic attribute is raised, besides one byte over its
#: default and opt-in minus static (3 and 2 blocks of them fit an SM of 228 KiB).
LARGE_DYNAMIC_BYTES = (70_000, 100_000)
#: Carve-out preferences (percent), tried on every CARVEOUT_EVERY-th kernel, after its other queries.
CARVEOUT_PERCENTS = (0, 10, 25, 50, 100)
CARVEOUT_EVERY = 4
CARVEOUT_BLOCK_SIZES = (32, 100, 256, 1024)
CARVEOUT_DYNAMIC_BYTES = (0, 5000, 40_000)


@dataclass(frozen=True)
class KernelSpec:
    """A kernel to compile: floats kept live, static shared bytes, and the register cap of its
    module (``--maxrregcount``) or its ``__launch_bounds__`` threads, when it has one."""

    live_values: int
    static_shared_bytes: int
    register_cap: int | None = None
    launch_bound: int | None = None

    @property
    def name(self) -> str:
        return (f"occupancy_l{self.live_values}_s{self.static_shared_bytes}"
                f"_r{self.register_cap or 0}_b{self.launch_bound or 0}")


#: Kernels of the edge cases: one with a few registers and an odd static size, one with __launch_bounds__(128).
EDGE_KERNEL = KernelSpec(8, 1000)
BOUNDED_KERNEL = KernelSpec(8, 0, launch_bound=128)


def kernel_specs() -> tuple[KernelSpec, ...]:
    """Each capped kernel twice and each uncapped one once, the static sizes taken in turn."""
    statics = itertools.cycle(STATIC_SHARED_BYTES)
    capped = [KernelSpec(CAPPED_LIVE_VALUES, next(statics), cap) for cap in REGISTER_CAPS for _ in range(2)]
    uncapped = [KernelSpec(live, next(statics)) for live in LIVE_VALUES]
    return (*capped, *uncapped)


def kernel_source(spec: KernelSpec) -> str:
    """CUDA C for one kernel: loads ``live`` floats, mixes them in a loop (so all stay live in
    registers, or spill under a cap), uses its static and dynamic shared arrays so the compiler
    keeps them."""
    live, static = spec.live_values, spec.static_shared_bytes
    bound = f"__launch_bounds__({spec.launch_bound}) " if spec.launch_bound else ""
    static_declaration = f"    __shared__ unsigned char tile[{static}];\n" if static else ""
    static_use = (f"    tile[t % {static}u] = (unsigned char)s;\n    __syncthreads();\n"
                  f"    s += tile[(t * 7u) % {static}u];\n") if static else ""
    return f"""extern "C" __global__ void {bound}{spec.name}(const float* __restrict__ in, float* __restrict__ out, int rounds)
{{
    extern __shared__ unsigned char dynamic_tile[];
{static_declaration}    const unsigned int t = threadIdx.x;
    float v[{live}];
#pragma unroll
    for (int i = 0; i < {live}; ++i) v[i] = in[i * blockDim.x + t];
    for (int r = 0; r < rounds; ++r) {{
#pragma unroll
        for (int i = 0; i < {live}; ++i) v[i] = fmaf(v[i], v[(i + 1) % {live}], v[(i + 3) % {live}]);
    }}
    float s = 0.0f;
#pragma unroll
    for (int i = 0; i < {live}; ++i) s += v[i];
{static_use}    dynamic_tile[t] = (unsigned char)s;
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s + dynamic_tile[(t + 1u) % blockDim.x];
}}
"""


def module_groups(specs: tuple[KernelSpec, ...]) -> dict[int | None, tuple[KernelSpec, ...]]:
    """One NVRTC module per register cap: ``--maxrregcount`` applies to a whole module."""
    groups: dict[int | None, list[KernelSpec]] = {}
    for spec in specs:
        groups.setdefault(spec.register_cap, []).append(spec)
    return {cap: tuple(group) for cap, group in groups.items()}


def module_options(register_cap: int | None) -> tuple[str, ...]:
    return () if register_cap is None else (f"--maxrregcount={register_cap}",)


@dataclass(frozen=True)
class CompiledKernel:
    """A kernel as the driver reports it once loaded (cuFuncGetAttribute, through CuPy's names)."""

    spec: KernelSpec
    registers_per_thread: int
    static_shared_bytes: int
    local_bytes: int
    max_threads_per_block: int
    max_dynamic_shared_bytes: int
    carveout_percent: int
    binary_version: int

    @classmethod
    def from_attributes(cls, spec: KernelSpec, attributes: dict[str, int]) -> CompiledKernel:
        return cls(spec=spec, registers_per_thread=attributes["num_regs"],
                   static_shared_bytes=attributes["shared_size_bytes"], local_bytes=attributes["local_size_bytes"],
                   max_threads_per_block=attributes["max_threads_per_block"],
                   max_dynamic_shared_bytes=attributes["max_dynamic_shared_size_bytes"],
                   carveout_percent=attributes["preferred_shared_memory_carveout"],
                   binary_version=attributes["binary_version"])

    def record(self) -> dict[str, Any]:
        facts = {field.name: getattr(self, field.name) for field in dataclasses.fields(self) if field.name != "spec"}
        return {"name": self.spec.name, "live_values": self.spec.live_values, "register_cap": self.spec.register_cap,
                **facts}


@dataclass(frozen=True)
class Phase:
    """Queries made under one setting of the kernel's attributes; None leaves one as loaded."""

    max_dynamic_shared_bytes: int | None
    carveout_percent: int | None
    points: tuple[tuple[int, int], ...]  # (threads per block, dynamic shared bytes)


def phases(kernel: CompiledKernel, index: int, arch: Architecture) -> tuple[Phase, ...]:
    """The queries of one kernel, in order: with the attributes as loaded, no dynamic shared memory
    and the default max-dynamic attribute's worth (48 KiB minus static: rarely a multiple of 128);
    with the attribute raised to opt-in minus static, one byte over the default, LARGE_DYNAMIC_BYTES
    and that maximum; then, on every CARVEOUT_EVERY-th kernel, each carve-out preference (set last:
    nothing resets it)."""
    default = kernel.max_dynamic_shared_bytes
    raised = arch.max_shared_bytes_per_block_optin - kernel.static_shared_bytes
    small = sorted({0, default})
    large = sorted({b for b in (default + 1, *LARGE_DYNAMIC_BYTES, raised) if default < b <= raised})
    planned = [Phase(None, None, tuple(itertools.product(BLOCK_SIZES, small))),
               Phase(raised, None, tuple(itertools.product(BLOCK_SIZES, large)))]
    if index % CARVEOUT_EVERY == 0:
        points = tuple(itertools.product(CARVEOUT_BLOCK_SIZES, CARVEOUT_DYNAMIC_BYTES))
        planned += [Phase(raised, percent, points) for percent in CARVEOUT_PERCENTS]
    return tuple(planned)


def calculator_blocks(launch: KernelLaunch, arch: Architecture) -> int | str:
    """labkit's answer: blocks per SM, or 'refused: ...' for an input it refuses."""
    try:
        return occupancy.calculate(launch, arch).blocks_per_sm
    except LaunchConfigError as error:
        return f"refused: {error}"


COLUMNS = ("kernel", "threads_per_block", "registers_per_thread", "static_shared_bytes", "dynamic_shared_bytes",
           "max_dynamic_shared_bytes", "carveout_percent", "driver_blocks", "calculator_blocks")


def launch_of(row: dict[str, Any]) -> KernelLaunch:
    """The calculator's input for a recorded row (or edge case)."""
    return KernelLaunch(row["threads_per_block"], row["registers_per_thread"], row["static_shared_bytes"],
                        row["dynamic_shared_bytes"], row["max_dynamic_shared_bytes"], row["carveout_percent"])


def make_row(kernel_index: int, kernel: CompiledKernel, threads: int, dynamic_bytes: int,
             max_dynamic_shared_bytes: int, carveout_percent: int | None, driver_blocks: int | str,
             arch: Architecture) -> dict[str, Any]:
    row = {"kernel": kernel_index, "threads_per_block": threads, "registers_per_thread": kernel.registers_per_thread,
           "static_shared_bytes": kernel.static_shared_bytes, "dynamic_shared_bytes": dynamic_bytes,
           "max_dynamic_shared_bytes": max_dynamic_shared_bytes, "carveout_percent": carveout_percent,
           "driver_blocks": driver_blocks}
    row["calculator_blocks"] = calculator_blocks(launch_of(row), arch)
    return row


def rows_of(results: dict[str, Any]) -> list[dict[str, Any]]:
    """The recorded rows as dictionaries (the file keeps them as lists under ``columns``)."""
    return [dict(zip(results["columns"], values)) for values in results["rows"]]


def summarize(rows: list[dict[str, Any]]) -> dict[str, Any]:
    mismatches = [row for row in rows if row["driver_blocks"] != row["calculator_blocks"]]
    return {"configurations": len(rows), "equal": len(rows) - len(mismatches),
            "first_mismatch": mismatches[0] if mismatches else None}


@dataclass(frozen=True)
class EdgeCase:
    """A query outside the calibration grid. ``set_max_dynamic_shared_bytes`` and
    ``set_carveout_percent`` are set on the kernel first (the driver may refuse); ``modelled``
    is False where the calculator lacks the input that decides (``__launch_bounds__``)."""

    case: str
    kernel: KernelSpec
    threads_per_block: int
    dynamic_shared_bytes: int
    set_max_dynamic_shared_bytes: int | None = None
    set_carveout_percent: int | None = None
    modelled: bool = True


def edge_cases(edge: CompiledKernel, bounded: CompiledKernel, arch: Architecture) -> tuple[EdgeCase, ...]:
    """In order (attribute settings persist): blocks of 0 and of 1025 threads; one byte of dynamic
    shared memory over the default attribute, and exactly the attribute; the attribute set one byte
    over opt-in minus static; one byte over opt-in with the attribute at its maximum; a carve-out
    of 200 %; a ``__launch_bounds__(128)`` kernel queried with 128 and 256 threads."""
    default = edge.max_dynamic_shared_bytes
    most = arch.max_shared_bytes_per_block_optin - edge.static_shared_bytes
    spec, bound = edge.spec, bounded.spec.launch_bound
    return (
        EdgeCase("a block of 0 threads", spec, 0, 0),
        EdgeCase("a block of 1025 threads", spec, 1025, 0),
        EdgeCase("dynamic shared memory one byte over the default attribute", spec, 128, default + 1),
        EdgeCase("dynamic shared memory equal to the default attribute", spec, 128, default),
        EdgeCase("attribute set one byte over opt-in minus static", spec, 128, most + 1,
                 set_max_dynamic_shared_bytes=most + 1),
        EdgeCase("dynamic shared memory one byte over opt-in minus static", spec, 128, most + 1,
                 set_max_dynamic_shared_bytes=most),
        EdgeCase("a carve-out preference of 200 %", spec, 128, 0, set_carveout_percent=200),
        EdgeCase(f"__launch_bounds__({bound}) kernel, {bound} threads", bounded.spec, bound, 0),
        EdgeCase(f"__launch_bounds__({bound}) kernel, {2 * bound} threads", bounded.spec, 2 * bound, 0,
                 modelled=False),
    )


def edge_record(edge: EdgeCase, kernel: CompiledKernel, max_dynamic_shared_bytes: int,
                carveout_percent: int | None, set_error: str | None, driver_blocks: int | str,
                arch: Architecture) -> dict[str, Any]:
    """One edge case: the inputs the calculator is given (the max-dynamic attribute the probe tried
    to set, else the one read back; the carve-out it tried to set, else None: the default), the
    driver's refusal to set them if any, and both answers."""
    record = {"case": edge.case, "kernel": edge.kernel.name, "threads_per_block": edge.threads_per_block,
              "registers_per_thread": kernel.registers_per_thread, "static_shared_bytes": kernel.static_shared_bytes,
              "dynamic_shared_bytes": edge.dynamic_shared_bytes, "max_dynamic_shared_bytes": max_dynamic_shared_bytes,
              "carveout_percent": carveout_percent, "driver_set_error": set_error, "driver_blocks": driver_blocks}
    record["calculator_blocks"] = calculator_blocks(launch_of(record), arch) if edge.modelled else None
    return record


def edge_agrees(record: dict[str, Any]) -> bool | None:
    """Whether the driver bears the calculator out: the same count where labkit answers one; where
    labkit refuses, the driver refused the setting, failed, or answered 0. None: not modelled."""
    calculated, driver = record["calculator_blocks"], record["driver_blocks"]
    if calculated is None:
        return None
    if isinstance(calculated, int):
        return driver == calculated
    return record["driver_set_error"] is not None or isinstance(driver, str) or driver == 0


#: cudaDeviceProp fields, as cupy.cuda.runtime.getDeviceProperties names them, and labkit's names.
DEVICE_PROPERTIES = {
    "warpSize": "warp_size",
    "maxThreadsPerBlock": "max_threads_per_block",
    "maxThreadsPerMultiProcessor": "max_threads_per_sm",
    "maxBlocksPerMultiProcessor": "max_blocks_per_sm",
    "regsPerMultiprocessor": "registers_per_sm",
    "regsPerBlock": "max_registers_per_block",
    "sharedMemPerMultiprocessor": "shared_bytes_per_sm",
    "sharedMemPerBlock": "max_shared_bytes_per_block",
    "sharedMemPerBlockOptin": "max_shared_bytes_per_block_optin",
    "reservedSharedMemPerBlock": "reserved_shared_bytes_per_block",
}


def device_record(properties: dict[str, Any]) -> dict[str, Any]:
    name = properties["name"]
    return {"name": name.decode() if isinstance(name, bytes) else name,
            "compute_capability": f"{properties['major']}.{properties['minor']}",
            "sm_count": properties["multiProcessorCount"],
            **{key: properties[key] for key in DEVICE_PROPERTIES}}


def device_mismatches(device: dict[str, Any], arch: Architecture) -> list[str]:
    """Each device attribute that differs from labkit's table, as a sentence."""
    return [f"{key}: the driver reports {device[key]}, labkit's table for {arch.label} holds {getattr(arch, field)}"
            for key, field in DEVICE_PROPERTIES.items() if device[key] != getattr(arch, field)]


def cuda_version(encoded: int) -> str:
    """CUDA's 1000 x major + 10 x minor, e.g. 13000 -> '13.0'."""
    return f"{encoded // 1000}.{encoded % 1000 // 10}"


class Driver(Protocol):
    """What the probe needs from the GPU; :class:`CupyDriver` on a GPU, a fake in the tests."""

    def compile(self, specs: tuple[KernelSpec, ...]) -> tuple[dict[str, Any], list[str]]: ...
    def attributes(self, kernel: Any) -> dict[str, int]: ...
    def set_max_dynamic_shared_bytes(self, kernel: Any, bytes_: int) -> str | None: ...
    def set_carveout_percent(self, kernel: Any, percent: int) -> str | None: ...
    def max_active_blocks(self, kernel: Any, threads: int, dynamic_bytes: int) -> int | str: ...


class ProbeError(RuntimeError):
    """The probe cannot run or cannot trust what it read; the message is one line."""


def _apply(driver: Driver, handle: Any, max_dynamic_shared_bytes: int | None, carveout_percent: int | None) -> str | None:
    """Set the attributes asked for; the driver's first refusal, or None."""
    errors = []
    if max_dynamic_shared_bytes is not None:
        errors.append(driver.set_max_dynamic_shared_bytes(handle, max_dynamic_shared_bytes))
    if carveout_percent is not None:
        errors.append(driver.set_carveout_percent(handle, carveout_percent))
    return next((error for error in errors if error), None)


def _run_edges(driver: Driver, handles: dict[str, Any], arch: Architecture) -> list[dict[str, Any]]:
    if EDGE_KERNEL.name not in handles or BOUNDED_KERNEL.name not in handles:
        return []
    compiled = {spec.name: CompiledKernel.from_attributes(spec, driver.attributes(handles[spec.name]))
                for spec in (EDGE_KERNEL, BOUNDED_KERNEL)}
    records = []
    for edge in edge_cases(compiled[EDGE_KERNEL.name], compiled[BOUNDED_KERNEL.name], arch):
        handle = handles[edge.kernel.name]
        set_error = _apply(driver, handle, edge.set_max_dynamic_shared_bytes, edge.set_carveout_percent)
        tried = edge.set_max_dynamic_shared_bytes
        attribute = driver.attributes(handle)["max_dynamic_shared_size_bytes"] if tried is None else tried
        records.append(edge_record(
            edge, compiled[edge.kernel.name], attribute, edge.set_carveout_percent, set_error,
            driver.max_active_blocks(handle, edge.threads_per_block, edge.dynamic_shared_bytes), arch))
    return records


def calibrate(driver: Driver, arch: Architecture) -> dict[str, Any]:
    """Compile every kernel, query every planned configuration and edge case, and shape the record.
    A module that fails to compile, or an attribute setting the driver refuses, is listed under
    ``errors`` and its queries skipped: the rest of the run still counts."""
    specs = kernel_specs()
    handles, errors = driver.compile((*specs, EDGE_KERNEL, BOUNDED_KERNEL))
    kernels: list[CompiledKernel] = []
    rows: list[dict[str, Any]] = []
    for spec in (s for s in specs if s.name in handles):
        handle = handles[spec.name]
        kernel = CompiledKernel.from_attributes(spec, driver.attributes(handle))
        kernels.append(kernel)
        for phase in phases(kernel, len(kernels) - 1, arch):
            error = _apply(driver, handle, phase.max_dynamic_shared_bytes, phase.carveout_percent)
            if error:
                errors.append(f"{spec.name}: max dynamic shared {phase.max_dynamic_shared_bytes} bytes, carve-out "
                              f"{phase.carveout_percent} %: refused ({error}), those queries skipped")
                continue
            attribute = driver.attributes(handle)["max_dynamic_shared_size_bytes"]
            rows += [make_row(len(kernels) - 1, kernel, threads, dynamic, attribute, phase.carveout_percent,
                              driver.max_active_blocks(handle, threads, dynamic), arch)
                     for threads, dynamic in phase.points]
    return {
        "kernels": [kernel.record() for kernel in kernels],
        "errors": errors,
        "columns": list(COLUMNS),
        "rows": [[row[column] for column in COLUMNS] for row in rows],
        "edges": _run_edges(driver, handles, arch),
        "summary": summarize(rows),
    }


class CupyDriver:
    """The GPU side, through CuPy: NVRTC modules (``cupy.RawModule``), kernel attributes
    (``RawKernel.attributes`` and its setters) and ``cuOccupancyMaxActiveBlocksPerMultiprocessor``
    (``cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor`` on the kernel's CUfunction)."""

    def __init__(self) -> None:
        try:
            import cupy
        except ImportError as error:
            raise ProbeError(f"needs CuPy (cupy-cuda13x or cupy-cuda12x): {error}") from None
        try:
            count = cupy.cuda.runtime.getDeviceCount()
        except cupy.cuda.runtime.CUDARuntimeError as error:
            raise ProbeError(f"no usable CUDA GPU: {error}") from None
        if count == 0:
            raise ProbeError("no CUDA GPU")
        self._cupy = cupy
        self._errors = (cupy.cuda.driver.CUDADriverError, cupy.cuda.compiler.CompileException)

    def device_properties(self) -> dict[str, Any]:
        runtime = self._cupy.cuda.runtime
        return runtime.getDeviceProperties(runtime.getDevice())

    def versions(self) -> dict[str, str]:
        runtime = self._cupy.cuda.runtime
        major, minor = self._cupy.cuda.nvrtc.getVersion()
        found = {"cupy": self._cupy.__version__, "cuda_runtime": cuda_version(runtime.runtimeGetVersion()),
                 "cuda_driver": cuda_version(runtime.driverGetVersion()), "nvrtc": f"{major}.{minor}"}
        for package in ("cuda-bindings", "numpy"):
            try:
                found[package] = metadata.version(package)
            except metadata.PackageNotFoundError:
                continue
        return found

    def compile(self, specs: tuple[KernelSpec, ...]) -> tuple[dict[str, Any], list[str]]:
        handles, errors = {}, []
        for cap, group in module_groups(specs).items():
            module = self._cupy.RawModule(code="\n".join(map(kernel_source, group)), options=module_options(cap))
            try:
                for spec in group:
                    handles[spec.name] = module.get_function(spec.name)
                    handles[spec.name].compile()
            except self._errors as error:
                errors.append(f"module {module_options(cap) or '(no options)'}: {str(error).splitlines()[0]}")
        return handles, errors

    def attributes(self, kernel: Any) -> dict[str, int]:
        return kernel.attributes

    def set_max_dynamic_shared_bytes(self, kernel: Any, bytes_: int) -> str | None:
        try:
            kernel.max_dynamic_shared_size_bytes = bytes_
        except self._errors as error:
            return str(error)
        return None

    def set_carveout_percent(self, kernel: Any, percent: int) -> str | None:
        try:
            kernel.preferred_shared_memory_carveout = percent
        except self._errors as error:
            return str(error)
        return None

    def max_active_blocks(self, kernel: Any, threads: int, dynamic_bytes: int) -> int | str:
        try:
            return self._cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.kernel.ptr, threads,
                                                                                   dynamic_bytes)
        except self._errors as error:
            return str(error)


def run(outdir: Path) -> int:
    """Calibrate on the current GPU, write the results file, print a summary; 0 when all agree."""
    driver = CupyDriver()
    started = time.perf_counter()
    device = device_record(driver.device_properties())
    arch = occupancy.architecture(tuple(int(part) for part in device["compute_capability"].split(".")))
    results = {"device": device, "versions": driver.versions(), "architecture": dataclasses.asdict(arch),
               "device_mismatches": device_mismatches(device, arch), **calibrate(driver, arch)}
    results["probe_seconds"] = round(time.perf_counter() - started, 3)
    prov = provenance(device["name"], arch.compute_capability,
                      read_driver_release() or f"CUDA {results['versions']['cuda_driver']}", None, None,
                      Path(__file__).resolve().parents[2])
    path = write_calibration(outdir / RESULTS_FILE, LAB, prov, results)
    summary = results["summary"]
    edges = [edge_agrees(edge) for edge in results["edges"]]
    print(f"{device['name']} (CC {device['compute_capability']}, {device['sm_count']} SMs): "
          f"{summary['equal']}/{summary['configurations']} configurations equal to the driver, "
          f"edge cases {edges.count(True)} agree, {edges.count(False)} differ, {edges.count(None)} not modelled; "
          f"{results['probe_seconds']:.1f} s -> {path}")
    for problem in (*results["errors"], *results["device_mismatches"]):
        print(f"  {problem}")
    if summary["first_mismatch"]:
        print(f"  first mismatch: {summary['first_mismatch']}")
    agreed = summary["equal"] == summary["configurations"] and not results["device_mismatches"]
    return 0 if agreed else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m labkit.calibration.occupancy_probe",
                                     description="Hold labkit.models.occupancy to cuOccupancyMaxActiveBlocksPerMultiprocessor.")
    parser.add_argument("outdir", type=Path, help=f"folder for {RESULTS_FILE}")
    args = parser.parse_args(argv)
    try:
        return run(args.outdir)
    except ProbeError as error:
        print(f"occupancy probe: {error}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
