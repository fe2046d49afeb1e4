"""Issue 31's disputed case, on the GPU: in a Numba kernel, ``view[i - 1]`` at ``i = 0`` is not an
access before the array. Numba wraps a negative index as NumPy does (numba-cuda's
``arrayobj.fix_index``), on the GPU as in the simulator, so the write lands on the last element and
the read returns it. Recorded on the H200 on 2026-12-02: tests/gpu/recorded/nvidia-h200/negative_index.txt."""

import numpy as np
import pytest

pytestmark = pytest.mark.gpu


def test_a_negative_index_wraps_to_the_last_element_on_the_gpu_too():
    from numba import cuda

    @cuda.jit
    def write_before(view):
        if cuda.grid(1) == 0:
            view[cuda.grid(1) - 1] = 7.0

    @cuda.jit
    def read_before(view, out):
        if cuda.grid(1) == 0:
            out[0] = view[cuda.grid(1) - 1]

    n, guard = 64, 16
    base = cuda.to_device(np.zeros(n + 2 * guard, dtype=np.float32))
    write_before[1, 32](base[guard:guard + n])
    assert np.nonzero(base.copy_to_host() == 7.0)[0].tolist() == [guard + n - 1]   # not guard - 1

    values = cuda.to_device(np.arange(n + 2 * guard, dtype=np.float32))
    out = cuda.device_array(1, dtype=np.float32)
    read_before[1, 32](values[guard:guard + n], out)
    assert out.copy_to_host()[0] == guard + n - 1
