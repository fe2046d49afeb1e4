#!/usr/bin/env bash
# One H200 batch for issue 22 (every reader's GPU): the labs record as before now that they plan
# their sizes from the device (the H200's plan is each lab's gpu_sizes), the GPU tests pass (the
# device-plans test included), and the doctor's per-lab report on the H200. Writes under $OUT:
# log.txt (everything printed), results.tgz (labs/*/results and tests/gpu/recorded as re-recorded).
# Run after the coordinator's wheel install (numpy 2.4, nvtx, pydantic..., pytest), from the repo root:
#   bash tests/gpu/batch_issue22.sh
# About 6 to 7 minutes on the H200: labs 01-05 ~3.3 min (16+39+46+41+51 s on 2026-12-01), GPU tests ~2.6 min.
set -uo pipefail
: "${OUT:?set OUT to the folder that comes back}"
export LABKIT_GIT_COMMIT="${LABKIT_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
log="$OUT/log.txt"
{
  echo "== doctor"; python3 -m labkit.cli doctor
  for n in 01 02 03 04 05; do
    echo "== lab-$n"; start=$(date +%s)
    make --no-print-directory "lab-$n" PY=python3; echo "lab-$n exit $? in $(( $(date +%s) - start )) s"
  done
  echo "== results"; python3 -m labkit.cli results; echo "results exit $?"
  echo "== git status of the records"; git status --short labs 2>/dev/null
  echo "== GPU tests"
  LABKIT_GPU_RECORD_DIR=tests/gpu/recorded/nvidia-h200 timeout 300 python3 -m pytest -q -m gpu tests/gpu -p no:randomly \
    -p no:cacheprovider --durations=10; echo "pytest exit $?"
} > "$log" 2>&1
tar czf "$OUT/results.tgz" labs/*/results tests/gpu/recorded 2>>"$log"
tail -5 "$log"
