"""Importing the exercises reads no lab record (issue 34): `labkit check 01-fuse` must not depend on
lab 03's results file, which exercise 03-ilp's target is derived from when it is first needed."""

import subprocess
import sys

from tests.conftest import REPO_ROOT

PROBE = """
import labkit.records.files as results
def refused(path, *args, **kwargs):
    raise SystemExit(f"a record was read at import: {path}")
results.read_results = refused
import labkit.exercises
from labkit.exercises import ch01, ch02, ch03, ch04, ch05, ch06, check
print("ok")
"""


def test_the_exercises_import_without_reading_a_record():
    done = subprocess.run([sys.executable, "-c", PROBE],
                          cwd=REPO_ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stdout + done.stderr


def test_exercise_03_ilp_still_holds_its_target_from_lab_03s_record():
    from labkit.exercises import ch03
    from labkit.labs.recorded import little_inputs

    criterion = next(c for c in next(e for e in ch03.EXERCISES if e.id == "03-ilp").criteria
                     if c.metric == "bytes_in_flight_per_warp")
    assert little_inputs().copy_gbps > 0
    assert criterion.target == ch03.ilp_target_bytes_per_warp()
    assert criterion.passes(criterion.target) and not criterion.passes(0.99 * criterion.target)
