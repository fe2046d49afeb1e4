"""``python -m labkit.exercises.simulate ID FILE SHOWN_AS`` (NUMBA_ENABLE_CUDASIM=1): the simulator
step of a check, for a process that holds the GPU. Prints ``{"verdicts": [...]}`` or
``{"error": "<the learner's mistake>"}`` as JSON on stdout."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from labkit.backend import select_backend

    if select_backend() != "simulator":
        print("labkit.exercises.simulate: set NUMBA_ENABLE_CUDASIM=1 (the checks trace kernels in the simulator)",
              file=sys.stderr)
        return 2
    from labkit.exercises import exercise
    from labkit.exercises.check import in_simulator
    from labkit.exercises.learner import LearnerError

    exercise_id, path, shown_as = argv
    try:
        verdicts = in_simulator(exercise(exercise_id), Path(path), shown_as)
    except LearnerError as exc:
        print(json.dumps({"error": str(exc)}))
        return 0
    print(json.dumps({"verdicts": [v.model_dump(mode="json") for v in verdicts]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
