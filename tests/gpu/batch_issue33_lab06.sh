#!/usr/bin/env bash
# One H200 pass of issue 33's lab 06: `bash tests/gpu/batch_issue33_lab06.sh 1` records lab 06 and
# keeps it as the first pass (tests/fixtures/h200-first-pass/labs/06-matmul/results); `... 2`, run
# right after, records the second, which stays as labs/06-matmul/results (tests/labs/test_recorded_twice.py).
# One pass a call: a pass takes ~150-180 s on the H200 (2026-12-03), two in one call come close to
# the device's 10-minute limit once the machine has started. Writes under $OUT: log.txt (everything
# printed) and results.tgz (the pass's results folder).
# Run after the coordinator's wheel install (numpy 2.4, nvtx, pydantic..., pytest), from the repo root.
set -uo pipefail
: "${OUT:?set OUT to the folder that comes back}"
pass="${1:?which pass: 1 (kept as the first pass) or 2}"
export LABKIT_GIT_COMMIT="${LABKIT_GIT_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)}"
log="$OUT/log.txt"
first="tests/fixtures/h200-first-pass/labs/06-matmul"
{
  echo "== pass $pass lab-06"; start=$(date +%s)
  make --no-print-directory lab-06 PY=python3; echo "pass $pass lab-06 exit $? in $(( $(date +%s) - start )) s"
  if [ "$pass" = 1 ]; then rm -rf "$first/results"; cp -r labs/06-matmul/results "$first/results"; fi
} > "$log" 2>&1
if [ "$pass" = 1 ]; then kept="$first/results"; else kept=labs/06-matmul/results; fi
tar czf "$OUT/results.tgz" "$kept" 2>>"$log"
tail -8 "$log"
