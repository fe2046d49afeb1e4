#!/usr/bin/env bash
# One H200 batch for issue 29's labs 03 and 06 (branch issue-29-lab0306): the new paths checked first
# (tests/gpu/test_issue29_roofs_gpu.py, seconds), then lab 03 and lab 06 recorded twice, back to back,
# pass 1 kept as tests/fixtures/h200-first-pass/labs/NN-*/results and pass 2 as labs/NN-*/results
# (tests/labs/test_recorded_twice.py). Writes under $OUT: log.txt (everything printed) and
# results.tgz (both passes' results folders and the GPU tests' figures).
# Run after the coordinator's wheel install (numpy 2.4, nvtx, pydantic..., pytest), from the repo root:
#   bash tests/gpu/batch_issue29_lab0306.sh
# About 5 minutes on the H200: lab 03 ~45 s and lab 06 ~100 s per pass (2026-12-02), the checks ~20 s.
set -uo pipefail
: "${OUT:?set OUT to the folder that comes back}"
export LABKIT_GIT_COMMIT="${LABKIT_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
log="$OUT/log.txt"
first="tests/fixtures/h200-first-pass/labs"
{
  echo "== the new paths"
  LABKIT_GPU_RECORD_DIR=tests/gpu/recorded/nvidia-h200 timeout 120 python3 -m pytest -q -m gpu \
    tests/gpu/test_issue29_roofs_gpu.py -p no:randomly -p no:cacheprovider; echo "pytest exit $?"
  for pass in 1 2; do
    for n in 03 06; do
      echo "== pass $pass lab-$n"; start=$(date +%s)
      make --no-print-directory "lab-$n" PY=python3; echo "pass $pass lab-$n exit $? in $(( $(date +%s) - start )) s"
      if [ "$pass" = 1 ]; then
        folder=$(ls -d labs/"$n"-*); rm -rf "$first/${folder#labs/}/results"
        cp -r "$folder/results" "$first/${folder#labs/}/results"
      fi
    done
  done
  echo "== results"; python3 -m labkit.cli results; echo "results exit $?"
} > "$log" 2>&1
tar czf "$OUT/results.tgz" labs/03-*/results labs/06-*/results "$first"/03-*/results "$first"/06-*/results \
  tests/gpu/recorded 2>>"$log"
tail -5 "$log"
