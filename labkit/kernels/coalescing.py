"""Lab 02's Numba kernels, with their NumPy references.

- ``strided_read``: thread ``i`` reads ``x[i * stride + offset]`` (4- or 8-byte elements: the
  same function compiled for float32 and float64, ``LDG.E`` and ``LDG.E.64``) and writes only if
  it read ``sentinel``, which the lab's data never holds: the kernel's traffic is its reads.
- ``drift_aos`` / ``drift_soa``: particles of 8 float32 fields (x, y, z, vx, vy, vz, mass,
  charge), ``x += vx * dt`` for the three coordinates, stored as an array of structures
  (``p[i, field]``, 32 bytes per particle) or a structure of arrays (``fields[field, i]``).
"""

from __future__ import annotations

import numpy as np

from labkit.gpu import cuda
from labkit.kernels.jit import kernel

#: Particle fields, in the order of a record.
FIELDS = ("x", "y", "z", "vx", "vy", "vz", "mass", "charge")
#: What the drift reads (positions and velocities) and writes (positions), in bytes per particle.
DRIFT_READ_BYTES = 6 * 4
DRIFT_WRITE_BYTES = 3 * 4


@kernel
def strided_read(x, out, stride, offset, sentinel):
    """Read x[i * stride + offset]; out[0] is written only if that element equals ``sentinel``."""
    i = cuda.grid(1)
    v = x[i * stride + offset]
    if v == sentinel:
        out[0] = v


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
