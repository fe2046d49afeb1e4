"""What a read-only launch costs besides its bytes, and where that cost comes from (one GPU run).

``python -m labkit.calibration.read_roof_probe OUT.json`` times lab 02's read roof
(labkit.kernels.coalescing_cuda's ``read_roof``: coalesced 16-byte loads) over 256 MiB to 2 GiB,
with CUDA events around each call, after each of three ways of emptying L2 of the buffer:

- ``memset``: labkit's timer's flush, a memset of 2 x L2 bytes, which leaves L2 full of *dirty*
  lines that DRAM must take back while the timed kernel reads;
- ``read``: the read roof over another buffer of 2 x L2 bytes, which leaves L2 full of *clean*
  lines, dropped without a write;
- ``none``: nothing between calls (the buffer is far larger than L2; its first bytes may hit).

A straight line through each mode's times (t = a + bytes / B) gives the fixed cost ``a`` and the
bandwidth ``B``. If ``a`` is much smaller after the read flush than after the memset, the fixed cost
of lab 02's short launches is the write-back of the flush's dirty lines. Every timing is written
as soon as it is taken.
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

SIZES_MIB = (256, 512, 1024, 2048)
REPEATS = 15
WARMUP = 3


def _fit(points: list[tuple[int, float]]) -> dict[str, float]:
    """Least squares t = a + bytes / B over (bytes, seconds)."""
    n = len(points)
    mean_x = sum(x for x, _ in points) / n
    mean_y = sum(y for _, y in points) / n
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _ in points)
    return {"fixed_us": 1e6 * (mean_y - slope * mean_x), "gbps": 1 / slope / 1e9}


def main(out_path: str) -> int:
    import cupy

    from labkit.gpu.device import read_device_facts
    from labkit.kernels import coalescing_cuda as cc

    l2 = read_device_facts().l2_bytes
    roof = cc.function("read_roof")
    per_block = cc.THREADS * cc.ROOF_LOADS * 16
    data = cupy.zeros((max(SIZES_MIB) << 20) // 4, dtype=cupy.uint32)
    other = cupy.zeros(2 * l2 // 4 // per_block * per_block, dtype=cupy.uint32)
    out = cupy.zeros(cc.read_roof_blocks(data.nbytes), dtype=cupy.uint32)

    def launch(array, nbytes):
        roof((cc.read_roof_blocks(nbytes),), (cc.THREADS,), (array, out))

    flushes = {"memset": lambda: other.fill(0), "read": lambda: launch(other, other.nbytes // per_block * per_block),
               "none": lambda: None}
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    found: dict = {"l2_bytes": l2, "repeats": REPEATS, "modes": {}}
    for mode, flush in flushes.items():
        rows = []
        for mib in SIZES_MIB:
            nbytes = mib << 20
            samples = []
            for index in range(WARMUP + REPEATS):
                flush()
                start.record()
                launch(data, nbytes)
                end.record()
                end.synchronize()
                if index >= WARMUP:
                    samples.append(cupy.cuda.get_elapsed_time(start, end) / 1e3)
            median = statistics.median(samples)
            rows.append({"bytes": nbytes, "median_us": 1e6 * median, "min_us": 1e6 * min(samples),
                         "gbps": nbytes / median / 1e9})
            found["modes"][mode] = {"points": rows}
            Path(out_path).write_text(json.dumps(found, indent=1))
        found["modes"][mode]["fit"] = _fit([(r["bytes"], r["median_us"] / 1e6) for r in rows])
        Path(out_path).write_text(json.dumps(found, indent=1))
    for mode, values in found["modes"].items():
        fit = values["fit"]
        print(f"{mode:7s} fixed {fit['fixed_us']:6.1f} us, {fit['gbps']:6.0f} GB/s; "
              + ", ".join(f"{r['bytes'] >> 20} MiB {r['gbps']:.0f}" for r in values["points"]))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: python -m labkit.calibration.read_roof_probe OUT.json", file=sys.stderr)
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
