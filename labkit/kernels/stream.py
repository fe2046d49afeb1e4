"""Read a working set, once or several times in one launch: the L2 demonstration of rule 5.

Each thread keeps four independent sums (four loads in flight) over a grid-stride loop; the
result is written only if it hits an impossible value, so the kernel's traffic is its reads.
Bytes read = passes x working-set bytes.
"""

from __future__ import annotations

from numba import float32

from labkit.gpu import cuda
from labkit.kernels.jit import kernel

IMPOSSIBLE_SUM = -12345.0


@kernel
def read_passes(x, out, passes):
    """Read x ``passes`` times; out[0] is written only if the sum equals IMPOSSIBLE_SUM."""
    i = cuda.grid(1)
    stride = cuda.gridsize(1)
    n = x.size
    a0 = float32(0.0)
    a1 = float32(0.0)
    a2 = float32(0.0)
    a3 = float32(0.0)
    for _ in range(passes):
        j = i
        while j + 3 * stride < n:
            a0 += x[j]
            a1 += x[j + stride]
            a2 += x[j + 2 * stride]
            a3 += x[j + 3 * stride]
            j += 4 * stride
        while j < n:
            a0 += x[j]
            j += stride
    total = a0 + a1 + a2 + a3
    if total == IMPOSSIBLE_SUM:
        out[0] = total
