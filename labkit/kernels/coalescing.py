"""Lab 02's Numba kernels, with their NumPy references.

- ``strided_read``: the global stride sweep. Element ``e`` of a launch is ``x[e * stride + offset]``
  (4- or 8-byte elements: the same function compiled for float32 and float64, ``LDG.E`` and
  ``LDG.E.64``); each thread reads :data:`SWEEP_LOADS` of them, one block-width apart, every load
  issued before any value is used, and writes only if it read ``sentinel``, which the lab's data
  never holds: the kernel's traffic is its reads. Several independent loads per thread is
  chapter 3's argument (Little's law: the bytes in flight must cover HBM's latency times its
  bandwidth); with one 4-byte load per thread the coalesced case is latency-bound, far below the
  copy, and the sweep would show coalescing costing almost nothing (the record of ec9d58a: 1 353
  GB/s at stride 1, 5 % less at stride 2). Each warp-level load touches 32 consecutive elements
  of the launch, so its sectors per request are those of one load per thread.
- ``drift_aos`` / ``drift_soa``: particles of 8 float32 fields (x, y, z, vx, vy, vz, mass,
  charge), ``x += vx * dt`` for the three coordinates, stored as an array of structures
  (``p[i, field]``, 32 bytes per particle) or a structure of arrays (``fields[field, i]``).
"""

from __future__ import annotations

import numpy as np

from labkit.gpu import cuda
from labkit.kernels.coalescing_cuda import SWEEP_LOADS
from labkit.kernels.jit import kernel

#: Particle fields, in the order of a record.
FIELDS = ("x", "y", "z", "vx", "vy", "vz", "mass", "charge")
#: What the drift reads (positions and velocities) and writes (positions), in bytes per particle.
DRIFT_READ_BYTES = 6 * 4
DRIFT_WRITE_BYTES = 3 * 4


@kernel
def strided_read(x, out, stride, offset, sentinel):
    """Elements e = b * (blockDim * SWEEP_LOADS) + k * blockDim + t, k < SWEEP_LOADS, of block b's
    thread t: read x[e * stride + offset], all eight before any is compared; out[0] is written
    only if one of them equals ``sentinel``."""
    e = cuda.blockIdx.x * cuda.blockDim.x * SWEEP_LOADS + cuda.threadIdx.x
    step = cuda.blockDim.x
    v0 = x[e * stride + offset]
    v1 = x[(e + step) * stride + offset]
    v2 = x[(e + 2 * step) * stride + offset]
    v3 = x[(e + 3 * step) * stride + offset]
    v4 = x[(e + 4 * step) * stride + offset]
    v5 = x[(e + 5 * step) * stride + offset]
    v6 = x[(e + 6 * step) * stride + offset]
    v7 = x[(e + 7 * step) * stride + offset]
    if ((v0 == sentinel) | (v1 == sentinel) | (v2 == sentinel) | (v3 == sentinel) | (v4 == sentinel)
            | (v5 == sentinel) | (v6 == sentinel) | (v7 == sentinel)):
        out[0] = sentinel


def strided_read_blocks(elements: int, threads: int) -> int:
    """Blocks of a sweep launch over ``elements`` elements: elements / (threads x SWEEP_LOADS)."""
    per_block = threads * SWEEP_LOADS
    if elements % per_block:
        raise ValueError(f"a sweep launch reads a multiple of {per_block} elements, got {elements}")
    return elements // per_block


@kernel
def drift_aos(p, dt):
    """p[i] = (x, y, z, vx, vy, vz, mass, charge): 32-byte records, one per thread."""
    i = cuda.grid(1)
    p[i, 0] = p[i, 0] + p[i, 3] * dt
    p[i, 1] = p[i, 1] + p[i, 4] * dt
    p[i, 2] = p[i, 2] + p[i, 5] * dt


@kernel
def drift_soa(fields, dt):
    """fields[f, i]: one array per field, one particle per thread."""
    i = cuda.grid(1)
    fields[0, i] = fields[0, i] + fields[3, i] * dt
    fields[1, i] = fields[1, i] + fields[4, i] * dt
    fields[2, i] = fields[2, i] + fields[5, i] * dt


def drift_reference(fields: np.ndarray, dt: np.float32) -> np.ndarray:
    """``fields`` (8 x n, structure of arrays) after one drift, in float32."""
    out = fields.copy()
    out[0:3] = fields[0:3] + fields[3:6] * np.float32(dt)
    return out
