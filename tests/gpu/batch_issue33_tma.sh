#!/usr/bin/env bash
# One H200 batch for issue 33's TMA steps (branch issue-33-tma): tests/gpu/tma_gemm_check.py (every
# TMA kernel checked against cuBLAS, then timed beside it at 4096^3 and 8192^3), rerun without a
# kernel that deadlocks (exit 3 names it); then Nsight Compute (--set full, --clock-control none) on
# one launch at 4096^3 of each kernel NCU_KERNELS names (space-separated). Writes under $OUT: log.txt and results.tgz.
# Run after the wheel install, from the repo root:  bash tests/gpu/batch_issue33_tma.sh
set -uo pipefail
: "${OUT:?set OUT to the folder that comes back}"
log="$OUT/log.txt"
work=$(mktemp -d)
{
  nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv
  skip="${SKIP:-}"
  for attempt in 1 2 3 4; do
    echo "== check and time, attempt $attempt, skipping: ${skip:-nothing}"
    timeout 400 python3 tests/gpu/tma_gemm_check.py --out "$work/tma.json" --skip "$skip" ${ONLY:+--only "$ONLY"} \
      ${SIZES:+--sizes "$SIZES"}
    rc=$?; echo "exit $rc"
    [ "$rc" = 3 ] || break
    hung=$(python3 -c "import json; print(json.load(open('$work/tma.json'))['hang'])")
    cp "$work/tma.json" "$work/tma-attempt$attempt.json"
    skip="${skip:+$skip,}$hung"
  done
  for kernel in ${NCU_KERNELS:-}; do
    echo "== ncu $kernel"
    cat > "$work/one.py" <<PY
import cupy as cp
from labkit.kernels import gemm_cuda
a = (cp.random.random((4096, 4096), dtype=cp.float32) - 0.5).astype(cp.float16)
bt = (cp.random.random((4096, 4096), dtype=cp.float32) - 0.5).astype(cp.float16)
c = cp.empty((4096, 4096), dtype=cp.float16)
for _ in range(3):
    gemm_cuda.launch("$kernel", a, bt, c)
cp.cuda.Device().synchronize()
PY
    timeout 120 ncu --clock-control none --set full --kernel-name "$kernel" --launch-skip 2 --launch-count 1 \
      -o "$work/ncu_$kernel" python3 "$work/one.py" > "$work/ncu_$kernel.log" 2>&1; echo "ncu exit $?"
    ncu --import "$work/ncu_$kernel.ncu-rep" --csv --page raw > "$work/ncu_raw_$kernel.csv" 2>&1
    ncu --import "$work/ncu_$kernel.ncu-rep" --csv --page details > "$work/ncu_details_$kernel.csv" 2>&1
    rm -f "$work/ncu_$kernel.ncu-rep"
  done
} > "$log" 2>&1
tar czf "$OUT/results.tgz" -C "$work" .
