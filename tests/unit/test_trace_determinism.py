"""The access tracer counts the same in every process (issue 28), and as ncu does.

Since the simulator's threads became greenlets (labkit.simulator.threads), a script that imported
``numba.cuda`` itself, without labkit.gpu, traced with the simulator's own Python threads: the
threads raced to create a block's shared array, so some lanes read another copy of it, and a
broadcast of one word counted 1, 2 or 3 wavefronts from one process to the next. The tracer now
runs the block's threads in turn itself. These tests run fresh interpreters (each with its own hash
seed), in the order a learner's script imports things, and require identical counts:

- the issue's own script (a shared broadcast, numba.cuda imported first), ten times;
- :func:`labkit.calibration.trace_patterns.digest`, ten times: every calibration pattern (broadcasts,
  strides, masked lanes, 1- to 8-byte and complex elements), one launch of each kind of lab 02 and
  every exercise's solution;

and the patterns' counts equal to what ncu counted for the same launches on the H200
(labs/02-coalescing/calibration/trace_calibration.json, from ``python -m labkit.calibration.trace_probe``).
"""

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT

PROCESSES = 10
CALIBRATION = REPO_ROOT / "labs/02-coalescing/calibration/trace_calibration.json"

#: The script of issue 28, as a new user writes it: numba.cuda first, then labkit's tracer.
BROADCAST = """
import os
os.environ["NUMBA_ENABLE_CUDASIM"] = "1"
import numpy as np
from numba import cuda, float32
from labkit.simulator.trace import trace_launch

@cuda.jit
def kernel(out):
    buf = cuda.shared.array(8192, float32)
    i = cuda.threadIdx.x
    for j in range(i, 8192, 32):
        buf[j] = j
    cuda.syncthreads()
    out[i] = buf[0]

counts = trace_launch(kernel, 1, 32, np.zeros(32, np.float32)).counts().of("shared", "load")
print(counts.wavefronts, counts.bank_conflicts)
"""

DIGEST = ("import os; os.environ['NUMBA_ENABLE_CUDASIM'] = '1'; from numba import cuda; import runpy; "
          "runpy.run_module('labkit.calibration.trace_patterns', run_name='__main__')")


def _fresh_outputs(code: str, at_once: bool) -> list[str]:
    """``code`` run by PROCESSES fresh interpreters, each with its own hash seed: all at once, or one
    after the other (on an idle core the simulator's own threads race as a learner's machine sees
    them; ten at once on two cores, the old race hid)."""
    def start(seed: int) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", code], cwd=REPO_ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True,
                                env={**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": str(REPO_ROOT)})

    def output(child: subprocess.Popen) -> str:
        out, err = child.communicate(timeout=300)
        assert child.returncode == 0, err[-2000:]
        return out

    if at_once:
        return [output(child) for child in [start(seed) for seed in range(PROCESSES)]]
    return [output(start(seed)) for seed in range(PROCESSES)]


def test_the_issues_broadcast_is_one_wavefront_in_every_process():
    assert _fresh_outputs(BROADCAST, at_once=False) == ["1 0\n"] * PROCESSES


@pytest.fixture(scope="module")
def digests():
    return [json.loads(out) for out in _fresh_outputs(DIGEST, at_once=True)]


def test_every_traced_kernel_counts_the_same_in_every_process(digests):
    first = digests[0]
    assert len(first["patterns"]) >= 30 and len(first["lab02"]) >= 10 and len(first["solutions"]) == 12
    differing = [f"process {n}: {part} {name}" for n, digest in enumerate(digests[1:], 1)
                 for part in first for name in first[part] if digest[part][name] != first[part][name]]
    assert not differing, differing[:5]


def test_the_traced_patterns_count_what_ncu_counted_on_the_h200(digests):
    recorded = json.loads(CALIBRATION.read_text())
    assert recorded["provenance"]["gpu"] == "NVIDIA H200" and recorded["provenance"]["simulated"] is False
    traced = digests[0]["patterns"]
    assert sorted(row["name"] for row in recorded["results"]["patterns"]) == sorted(traced)
    differences = [f"{row['name']}: {metric} ncu {value:g}, traced {traced[row['name']][metric]}"
                   for row in recorded["results"]["patterns"] for metric, value in row["measured"].items()
                   if traced[row["name"]][metric] != value]
    assert not differences, f"{len(differences)} differences: " + "; ".join(differences[:6])
