"""The simulator's threads as greenlets (labkit.simulator.threads): the same results, ends and
errors as numba-cuda's own Python threads and poller, each case run both ways."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from labkit.gpu.backend import select_backend
from tests.conftest import REPO_ROOT

pytestmark = pytest.mark.skipif(select_backend() != "simulator", reason="about Numba's CUDA simulator")

#: Kernels whose result depends on the barrier, each with what it must compute.
KERNELS = textwrap.dedent('''
    import numpy as np
    from numba import cuda, float32, int32

    @cuda.jit
    def reverse(x, out):
        """Each thread stores, all wait, each reads another thread's element: wrong without the barrier."""
        tile = cuda.shared.array(64, float32)
        t = cuda.threadIdx.x
        tile[t] = x[cuda.blockIdx.x * 64 + t]
        cuda.syncthreads()
        out[cuda.blockIdx.x * 64 + t] = tile[63 - t]

    @cuda.jit
    def rounds(out):
        """Four barriers in a loop, a shared counter moved between them."""
        acc = cuda.shared.array(1, int32)
        t = cuda.threadIdx.x
        if t == 0:
            acc[0] = 0
        cuda.syncthreads()
        for r in range(4):
            if t == r:
                acc[0] += 10 ** r
            cuda.syncthreads()
        out[t] = acc[0]

    @cuda.jit
    def counted(out):
        """syncthreads_count / _and / _or, built on the barrier."""
        t = cuda.threadIdx.x
        out[t, 0] = cuda.syncthreads_count(t < 5)
        out[t, 1] = cuda.syncthreads_and(t < 100)
        out[t, 2] = cuda.syncthreads_or(t == 7)

    @cuda.jit
    def indices(out):
        """A 3-D block of a 2-D grid: each thread's indices, lane and a counter bumped atomically."""
        t = cuda.threadIdx.x + 4 * (cuda.threadIdx.y + 3 * cuda.threadIdx.z)
        b = cuda.blockIdx.x + 2 * cuda.blockIdx.y
        row = b * 48 + t
        out[row, 0] = cuda.threadIdx.x
        out[row, 1] = cuda.threadIdx.y
        out[row, 2] = cuda.threadIdx.z
        out[row, 3] = b
        out[row, 4] = cuda.laneid
        cuda.atomic.add(out, (0, 5), 1)

    @cuda.jit
    def fails(x):
        """Thread 3 of block 1 reads past the array while the others wait at the barrier."""
        t = cuda.threadIdx.x
        if cuda.blockIdx.x == 1 and t == 3:
            x[10 ** 6] = 1.0
        cuda.syncthreads()
        x[t] = 2.0

    def run_all():
        x = np.arange(128, dtype=np.float32)
        out = np.zeros(128, np.float32)
        reverse[2, 64](x, out)
        assert (out == np.concatenate([x[63::-1], x[:63:-1]])).all(), out
        r = np.zeros(32, np.int64)
        rounds[1, 32](r)
        assert (r == 1111).all(), r
        c = np.zeros((32, 3), np.int64)
        counted[1, 32](c)
        assert (c == [5, 1, 1]).all(), c
        i = np.zeros((4 * 48, 6), np.int64)
        indices[(2, 2), (4, 3, 4)](i)
        t = np.arange(48)
        assert (i[:, 0] == np.tile(t % 4, 4)).all() and (i[:, 1] == np.tile(t // 4 % 3, 4)).all(), i
        assert (i[:, 2] == np.tile(t // 12, 4)).all() and (i[:, 3] == np.repeat(np.arange(4), 48)).all(), i
        assert (i[:, 4] == np.tile(t % 32, 4)).all() and i[0, 5] == 4 * 48, i
        try:
            fails[2, 32](np.zeros(64, np.float32))
        except IndexError as error:
            print("raised:", str(error).splitlines()[0])
        else:
            raise AssertionError("the out-of-bounds store did not raise")
        print("ok")
''')


def run_kernels(use_labkit_threads: bool) -> str:
    """The kernels, in a fresh simulator process, on numba-cuda's Python threads or labkit's greenlets."""
    setup = "import labkit.gpu._numba\n" if use_labkit_threads else ""
    check = ("from numba.cuda.simulator import kernel\n"
             f"assert getattr(kernel.BlockManager, '_labkit_greenlets', False) is {use_labkit_threads}\n")
    proc = subprocess.run([sys.executable, "-c", setup + KERNELS + check + "run_all()\n"],
                          cwd=REPO_ROOT, env={"NUMBA_ENABLE_CUDASIM": "1", "PATH": "/usr/bin:/bin",
                                              "PYTHONPATH": str(REPO_ROOT)},
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_the_greenlets_compute_end_and_fail_as_the_simulators_threads():
    """(Barriers only part of a block reaches aside: the simulator passes them, the greenlets refuse them, below.)"""
    ours, stock = run_kernels(True), run_kernels(False)
    assert ours.endswith("ok\n"), ours
    assert ours == stock
    assert "tid=[3, 0, 0] ctaid=[1, 0, 0]" in ours


def test_the_course_runs_on_the_greenlets():
    """labkit.gpu installs them in the simulator, and numba-cuda is the version whose block launch
    they replace (pinned in constraints.txt: an upgrade fails here, to be checked before they are kept)."""
    from importlib.metadata import version

    from numba.cuda.simulator import kernel

    import labkit.gpu._numba  # noqa: F401  (installs it)
    from labkit.simulator.threads import NUMBA_CUDA_VERSION

    assert version("numba-cuda") == NUMBA_CUDA_VERSION
    assert kernel.BlockManager._labkit_greenlets


#: Barriers only part of a block reaches (the audit's case 233: on a GPU undefined, likely a hang).
DIVERGENT = textwrap.dedent('''
    import numpy as np
    from numba import cuda

    @cuda.jit
    def half_waits(out):
        """Half the block waits at the barrier, the other half skips it and ends."""
        t = cuda.threadIdx.x
        if t < 16:
            cuda.syncthreads()
        out[t] = 1

    @cuda.jit
    def half_leave(out):
        """Half the threads return before the barrier."""
        t = cuda.threadIdx.x
        if t % 2:
            return
        cuda.syncthreads()
        out[t] = 1

    @cuda.jit
    def two_barriers(out):
        """Each half waits at a barrier of its own."""
        t = cuda.threadIdx.x
        if t < 16:
            cuda.syncthreads()
        else:
            cuda.syncthreads()
        out[t] = 1

    for kernel in (half_waits, half_leave, two_barriers):
        try:
            kernel[1, 32](np.zeros(32, np.int64))
        except Exception as error:
            print(kernel.py_func.__name__, type(error).__name__, str(error).splitlines()[0])
        else:
            print(kernel.py_func.__name__, "passed")
''')


def test_a_barrier_only_part_of_the_block_reaches_fails_on_the_greenlets():
    """CUDA allows syncthreads() in conditional code only if the condition is the same across the
    block; numba-cuda's simulator passes the barrier with the threads that reached it."""
    def run(use_labkit_threads: bool) -> list[str]:
        setup = "import labkit.gpu._numba\n" if use_labkit_threads else ""
        proc = subprocess.run([sys.executable, "-c", setup + DIVERGENT], cwd=REPO_ROOT, capture_output=True, text=True,
                              env={"NUMBA_ENABLE_CUDASIM": "1", "PATH": "/usr/bin:/bin", "PYTHONPATH": str(REPO_ROOT)},
                              timeout=120)
        assert proc.returncode == 0, proc.stderr[-3000:]
        return proc.stdout.splitlines()

    assert run(False) == ["half_waits passed", "half_leave passed", "two_barriers passed"]
    ours = run(True)
    assert ours[0].startswith("half_waits DivergentBarrier tid=[0, 0, 0] ctaid=[0, 0, 0]: syncthreads() reached by 16 "
                              "of the block's 32 threads, the other 16 ended without reaching it: "), ours
    assert ours[1].startswith("half_leave DivergentBarrier tid=[0, 0, 0] ctaid=[0, 0, 0]: syncthreads() reached by 16 "
                              "of the block's 32 threads"), ours
    assert ours[2].startswith("two_barriers DivergentBarrier tid=[0, 0, 0] ctaid=[0, 0, 0]: the block's threads wait "
                              "at different syncthreads() (lines "), ours
