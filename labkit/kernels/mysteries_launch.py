"""How lab 05's mystery kernels (labkit.kernels.mysteries) are launched: numbers the kernels are
compiled with, and kernel_h's NumPy reference (exercise 05-mystery-h checks against it too), kept
apart from them so that reading lab 05's results (which sizes its grids from them), the chapter's
figures and the exercises need no CUDA toolchain.
"""

import numpy as np

#: Threads per block of the lab's one-dimensional kernels (kernel_f's shared histogram has a column
#: per thread, so it is also a compile-time shape).
THREADS = 256
#: kernel_g's twin: the same function compiled with at most this many registers per thread.
REPAIRED_MAX_REGISTERS = 32
#: kernel_e: elements each thread has in flight (a compile-time unroll; chapter 5 cites it).
IN_FLIGHT = 4
#: Float32 constants. A bare Python float in a float32 kernel is a float64 to Numba (and ``0.5`` in
#: C++ is a double): kernel_b's flaw is exactly that.
A = np.float32(0.999)
B = np.float32(0.001)
A2 = np.float32(0.998)
B2 = np.float32(0.002)
A3 = np.float32(0.9995)
B3 = np.float32(0.0005)
#: FMAs per element of kernel_b and kernel_h.
STEPS = 128


def parity_reference(x: np.ndarray) -> np.ndarray:
    """kernel_h's output on ``x`` in float32: even elements take STEPS steps v <- A v + B, odd ones
    STEPS / 2 double steps of (A2, B2) then (A3, B3)."""
    v = x.astype(np.float32).copy()
    even, odd = v[0::2], v[1::2]
    for _ in range(STEPS):
        even = even * A + B
    for _ in range(STEPS // 2):
        odd = odd * A2 + B2
        odd = odd * A3 + B3
    v[0::2], v[1::2] = even, odd
    return v
