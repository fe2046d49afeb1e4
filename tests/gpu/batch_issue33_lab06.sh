#!/usr/bin/env bash
# One H200 batch for issue 33's lab 06 (Triton peer, steps 5b′ and 5e to 5h): lab 06 recorded twice,
# back to back, pass 1 kept as tests/fixtures/h200-first-pass/labs/06-matmul/results and pass 2 as
# labs/06-matmul/results (tests/labs/test_recorded_twice.py). Writes under $OUT: log.txt (everything
# printed) and results.tgz (both passes' results folders).
# Run after the coordinator's wheel install (numpy 2.4, nvtx, pydantic..., pytest), from the repo root:
#   bash tests/gpu/batch_issue33_lab06.sh
# About 5 minutes on the H200: lab 06 ~140 s a pass (2026-12-03).
set -uo pipefail
: "${OUT:?set OUT to the folder that comes back}"
export LABKIT_GIT_COMMIT="${LABKIT_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
log="$OUT/log.txt"
first="tests/fixtures/h200-first-pass/labs/06-matmul"
{
  for pass in 1 2; do
    echo "== pass $pass lab-06"; start=$(date +%s)
    make --no-print-directory lab-06 PY=python3; echo "pass $pass lab-06 exit $? in $(( $(date +%s) - start )) s"
    if [ "$pass" = 1 ]; then rm -rf "$first/results"; cp -r labs/06-matmul/results "$first/results"; fi
  done
} > "$log" 2>&1
tar czf "$OUT/results.tgz" labs/06-matmul/results "$first/results" 2>>"$log"
tail -8 "$log"
