"""Lab 02's global sweep kernel against the copy, before the lab records it (one GPU run).

``python -m labkit.calibration.sweep_probe OUT.json`` times, with labkit's timer (L2 flushed, median of
20), the sweep kernels of lab 02 (labkit.kernels.coalescing.strided_read for 4- and 8-byte
elements, labkit.kernels.coalescing_cuda's strided_read_16: SWEEP_LOADS elements per thread, one
block-width apart) at each element width and a few strides, beside CUDA C variants of the same
access with 1, 2, 4 or 8 loads per thread and a grid-stride form, and the copy ceilings the labs
could share: lab 01's ``copy_wide`` at 2 GiB (lab 01's size) and 128 MiB (lab 05's), with and
without an L2 flush, ``cupy.copyto`` and a 16-byte CUDA C copy. The question it answers: does the
coalesced case of every width reach 0.85 of the copy, and does the useful bandwidth then fall as
the sectors say (:func:`fetched_bytes_per_element`)?

Every timing is written as soon as it is taken, so a run cut short leaves what it measured.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time
import traceback
import warnings
from pathlib import Path

#: Threads per block of every sweep launch (lab 02's THREADS).
THREADS = 256
WIDTHS = {4: "unsigned int", 8: "uint2", 16: "uint4"}
CHUNK_LOADS = (1, 2, 4, 8)
GRID_STRIDE_LOADS = (4, 8)
STRIDES = {4: (1, 2, 4, 8, 32), 8: (1, 2, 4, 16), 16: (1, 2, 4, 8)}
#: Bytes read at stride 1 by a launch of each size tried: the lab's 2^24 elements, and 256 MiB.
COURSE_ELEMENTS = 1 << 24
LARGE_USEFUL_BYTES = 256 << 20
REPEATS = 20
WARMUP = 3


def probe_source() -> str:
    """CUDA C: chunked reads (K loads per thread, one block-width apart, no loop) and grid-stride
    reads (K loads per trip, grid-width apart), for 4-, 8- and 16-byte elements; a 16-byte copy."""
    parts = [r"""
__device__ __forceinline__ unsigned fold(unsigned v) { return v; }
__device__ __forceinline__ unsigned fold(uint2 v) { return v.x ^ v.y; }
__device__ __forceinline__ unsigned fold(uint4 v) { return v.x ^ v.y ^ v.z ^ v.w; }

template <typename T, int K>
__device__ __forceinline__ void chunked(const T* x, unsigned* out, long long stride, long long offset,
                                        unsigned sentinel)
{
    const long long e = (long long)blockIdx.x * blockDim.x * K + threadIdx.x;
    T v[K];
#pragma unroll
    for (int k = 0; k < K; ++k) v[k] = x[(e + (long long)k * blockDim.x) * stride + offset];
    bool hit = false;
#pragma unroll
    for (int k = 0; k < K; ++k) hit |= fold(v[k]) == sentinel;
    if (hit) out[0] = sentinel;
}

template <typename T, int K>
__device__ __forceinline__ void grid_stride(const T* x, unsigned* out, long long stride, long long offset,
                                            unsigned sentinel, long long n)
{
    const long long g = (long long)gridDim.x * blockDim.x;
    bool hit = false;
    for (long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x; e < n; e += K * g) {
        T v[K];
#pragma unroll
        for (int k = 0; k < K; ++k) {
            const long long j = e + k * g;
            v[k] = j < n ? x[j * stride + offset] : T();
        }
#pragma unroll
        for (int k = 0; k < K; ++k) hit |= fold(v[k]) == sentinel;
    }
    if (hit) out[0] = sentinel;
}

extern "C" __global__ void copy16_x4(const uint4* in, uint4* out, long long n)
{
    const long long e = (long long)blockIdx.x * blockDim.x * 4 + threadIdx.x;
    uint4 v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) v[k] = in[e + (long long)k * blockDim.x];
#pragma unroll
    for (int k = 0; k < 4; ++k) out[e + (long long)k * blockDim.x] = v[k];
}
"""]
    for width, ctype in WIDTHS.items():
        for k in CHUNK_LOADS:
            parts.append(f'extern "C" __global__ void chunk_{width}_x{k}(const {ctype}* x, unsigned* out, long long s, '
                         f'long long o, unsigned sentinel) {{ chunked<{ctype}, {k}>(x, out, s, o, sentinel); }}\n')
        for k in GRID_STRIDE_LOADS:
            parts.append(f'extern "C" __global__ void grid_{width}_x{k}(const {ctype}* x, unsigned* out, long long s, '
                         f'long long o, unsigned sentinel, long long n) '
                         f'{{ grid_stride<{ctype}, {k}>(x, out, s, o, sentinel, n); }}\n')
    return "".join(parts)


def fetched_bytes_per_element(width: int, stride: int, offset: int, granule: int) -> float:
    """Bytes of ``granule``-byte blocks (32: L1/L2 sectors, 64: the DRAM fetch model) a warp's
    access to 32 consecutive elements touches, per element (aligned warps, as in the sweep)."""
    touched = set()
    for lane in range(32):
        start = (lane * stride + offset) * width
        touched.update(range(start // granule, (start + width - 1) // granule + 1))
    return granule * len(touched) / 32


def points(width: int) -> list[tuple[int, int]]:
    """(stride, offset) of the points tried at one width."""
    out = [(s, 0) for s in STRIDES[width]]
    return out + [(1, 1)] if width == 4 else out


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out_path = Path(argv[0] if argv else "sweep_probe.json")
    deadline = time.monotonic() + (float(argv[1]) if len(argv) > 1 else 150.0)
    import cupy
    import numpy as np

    from labkit.gpu import NumbaPerformanceWarning, cuda
    from labkit.gpu.device import read_device_facts
    from labkit.gpu.timing import time_gpu
    from labkit.kernels import coalescing
    from labkit.kernels import coalescing_cuda as cc
    from labkit.kernels.roofline_kernels import copy_blocks, copy_wide

    warnings.simplefilter("ignore", NumbaPerformanceWarning)
    facts = read_device_facts()
    document: dict = {"device": dataclasses.asdict(facts), "threads": THREADS,
                      "sweep_loads": coalescing.SWEEP_LOADS, "timings": [], "errors": [], "sass": {}}

    def save() -> None:
        out_path.write_text(json.dumps(document, indent=1) + "\n")

    def timed(record: dict, fn, flush: bool = True) -> None:
        if time.monotonic() > deadline:
            document["errors"].append(f"skipped after the deadline: {record}")
            return
        try:
            timing = time_gpu(fn, warmup=WARMUP, repeats=REPEATS, flush_l2=flush)
        except Exception as exc:   # one failed variant must not lose the others
            document["errors"].append(f"{record}: {exc.__class__.__name__}: {exc}")
            save()
            return
        record.update(median_s=timing.median_seconds, min_s=timing.min_seconds, max_s=timing.max_seconds,
                      sm_clock_mhz=timing.sm_clock_mhz, mem_clock_mhz=timing.mem_clock_mhz, l2_flushed=flush,
                      back_to_back=timing.back_to_back)
        if "bytes" in record:
            record["gbps"] = record["bytes"] / timing.median_seconds / 1e9
        document["timings"].append(record)
        save()

    module = cupy.RawModule(code=probe_source(), options=("-lineinfo",))
    sweep_out = cupy.zeros(4, cupy.uint32)
    numba_out = {4: cuda.to_device(np.zeros(1, np.float32)), 8: cuda.to_device(np.zeros(1, np.float64))}

    # ----- copy ceilings: lab 01's copy_wide at its size (2 GiB per array) and lab 05's (128 MiB) -----
    big_source, big_target = cupy.ones(2 << 30 >> 2, cupy.float32), cupy.empty(2 << 30 >> 2, cupy.float32)

    def copies(tag: str) -> None:
        for nbytes in (2 << 30, 256 << 20, 128 << 20, 64 << 20):
            n = nbytes // 4
            src, dst = cuda.as_cuda_array(big_source[:n]), cuda.as_cuda_array(big_target[:n])
            blocks = copy_blocks(n, 256)
            for flush in ((True, False) if nbytes == 2 << 30 else (True,)):
                timed({"what": "copy_wide", "tag": tag, "array_bytes": nbytes, "bytes": 2 * nbytes},
                      lambda: copy_wide[blocks, 256](src, dst), flush)
            cs, ct = big_source[:n], big_target[:n]
            timed({"what": "cupy_copyto", "tag": tag, "array_bytes": nbytes, "bytes": 2 * nbytes},
                  lambda: cupy.copyto(ct, cs))
            vectors = nbytes // 16
            copy16 = module.get_function("copy16_x4")
            grid16 = vectors // (256 * 4)
            timed({"what": "copy16_x4", "tag": tag, "array_bytes": nbytes, "bytes": 2 * nbytes},
                  lambda: copy16((grid16,), (256,), (cs, ct, np.int64(vectors))))

    copies("start")

    # ----- the sweep -----
    largest = max(LARGE_USEFUL_BYTES * max(STRIDES[w]) + 64 * w for w in WIDTHS)
    sweep = cupy.zeros(largest // 4, cupy.uint32)
    numba_sweep = cuda.as_cuda_array(sweep)
    lab16 = cc.function("strided_read_16")
    for size_name in ("course", "large"):
        for width in WIDTHS:
            elements = COURSE_ELEMENTS if size_name == "course" else LARGE_USEFUL_BYTES // width
            for stride, offset in points(width):
                base = {"size": size_name, "width": width, "stride": stride, "offset": offset, "elements": elements,
                        "bytes": elements * width,
                        "sectors_bytes_per_element": fetched_bytes_per_element(width, stride, offset, 32),
                        "fetch64_bytes_per_element": fetched_bytes_per_element(width, stride, offset, 64)}
                s64, o64 = np.int64(stride), np.int64(offset)
                # the lab's kernel
                blocks = coalescing.strided_read_blocks(elements, THREADS)
                if width == 16:
                    timed({**base, "what": "lab", "loads": coalescing.SWEEP_LOADS},
                          lambda: lab16((blocks,), (THREADS,), (sweep, sweep_out, s64, o64, np.uint32(0xDEADBEEF))))
                else:
                    dtype = np.float32 if width == 4 else np.float64
                    view, out = numba_sweep.view(dtype), numba_out[width]
                    timed({**base, "what": "lab", "loads": coalescing.SWEEP_LOADS},
                          lambda: coalescing.strided_read[blocks, THREADS](view, out, s64, o64, dtype(-1.0)))
                # CUDA C variants
                for k in CHUNK_LOADS:
                    if stride > 4 and k not in (1, 8):
                        continue
                    fn = module.get_function(f"chunk_{width}_x{k}")
                    grid = elements // (THREADS * k)
                    timed({**base, "what": "chunk", "loads": k},
                          lambda: fn((grid,), (THREADS,), (sweep, sweep_out, s64, o64, np.uint32(0xDEADBEEF))))
                if stride <= 2:
                    for k in GRID_STRIDE_LOADS:
                        fn = module.get_function(f"grid_{width}_x{k}")
                        grid = facts.sm_count * (2048 // THREADS)
                        timed({**base, "what": "grid_stride", "loads": k, "blocks": grid},
                              lambda: fn((grid,), (THREADS,), (sweep, sweep_out, s64, o64, np.uint32(0xDEADBEEF),
                                                               np.int64(elements))))
        copies(f"after {size_name}")
    try:
        for signature, text in coalescing.strided_read.inspect_sass().items():
            lines = [line.strip() for line in text.splitlines() if "LDG" in line]
            document["sass"][str(signature)] = lines
    except Exception as exc:
        document["errors"].append(f"sass: {exc}")
    save()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Exception:
        traceback.print_exc()
        sys.exit(1)
