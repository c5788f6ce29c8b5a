#!/usr/bin/env bash
# One sm80_gemm INT8 config up close on a lent GPU: the space narrowed to CONFIG alone
# (scripts/sm80_gemm.lua with one value per parameter), timed by `w8a8 tune --space` at
# M = N = 4096 and K = 512 … 16384 (per-row scales, bf16 out), a straight line t = a + b·K fitted
# to the times (a: what a tile costs whatever its K — prologue, epilogue, launch), then Nsight
# Compute on 4096×4096×4096 with the stall reasons (when ncu reads counters there).
#   bench/sm80_probe.sh BIN_DIR CONFIG [NAME]
#   e.g. bench/sm80_probe.sh carry/static \
#          block_m=128,block_n=128,block_k=64,stages=4,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=0,epilogue=1
# CONFIG names every parameter of the space (bench/narrow_space.py).
# Logs packed into $OUT/sm80-probe[-NAME].tgz.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
unset W8A8_CACHE_PATH
bin=$1/w8a8 config=$2 name=${3:+-$3}
state=$PWD/build/sm80-probe$name
logs=$state/logs
out=${OUT:-$state/out}
rm -rf "$state" && mkdir -p "$logs" "$out"
pack() { tar czf "$out/sm80-probe$name.tgz" -C "$logs" .; }
python3 bench/narrow_space.py scripts/sm80_gemm.lua "$config" > "$state/one.lua" || exit 2
shapes=""
for k in 512 1024 2048 4096 8192 16384; do shapes="$shapes --shape 4096,4096,$k"; done
export W8A8_CACHE_DB=$state/one.db W8A8_KERNEL_DIR=$state/k
# shellcheck disable=SC2086
timeout 200 "$bin" tune --space "$state/one.lua" --dtype int8 --scale row $shapes --json \
  > "$logs/tune.jsonl" 2> "$logs/tune.err"
echo "tune exit $? at $SECONDS s" >> "$logs/summary.txt"
python3 - "$logs/tune.jsonl" <<'PY' | tee "$logs/fit.txt"
import json, sys
pts = sorted((x["k"], x["us"]) for x in map(json.loads, open(sys.argv[1]))
             if x.get("type") == "measurement" and x.get("us", -1) > 0)
for k, us in pts:
    print("4096x4096x%-6d %9.1f us  %7.1f TOPS" % (k, us, 2 * 4096 * 4096 * k / us / 1e6))
n = len(pts)
if n >= 2:
    mk = sum(k for k, _ in pts) / n
    mt = sum(t for _, t in pts) / n
    b = sum((k - mk) * (t - mt) for k, t in pts) / sum((k - mk) ** 2 for k, _ in pts)
    a = mt - b * mk
    print("fit: t = %.1f us + %.4f us per K (%.1f TOPS past the fixed part)"
          % (a, b, 2 * 4096 * 4096 / b / 1e6))
PY
pack
if command -v ncu > /dev/null; then
  timeout 200 ncu --clock-control none --kernel-name w8a8_sm80_gemm --launch-skip 3 \
    --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section MemoryWorkloadAnalysis --section WarpStateStats --section SchedulerStats \
    --section Occupancy --print-details all \
    "$bin" bench --shape 4096,4096,4096 --dtype int8 --scale row --no-cublaslt --samples 5 \
    > "$logs/ncu.txt" 2>&1
  echo "ncu exit $? at $SECONDS s" >> "$logs/summary.txt"
  pack
  stalls=""
  for r in barrier long_scoreboard short_scoreboard mio_throttle math_pipe_throttle wait \
    not_selected selected dispatch_stall lg_throttle no_instruction drain branch_resolving; do
    stalls="$stalls,smsp__average_warps_issue_stalled_${r}_per_issue_active.ratio"
  done
  more=l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum
  more=$more,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum
  more=$more,sm__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_bytes.sum.per_second
  timeout 200 ncu --clock-control none --kernel-name w8a8_sm80_gemm --launch-skip 3 \
    --launch-count 1 --metrics "${stalls#,},$more" \
    "$bin" bench --shape 4096,4096,4096 --dtype int8 --scale row --no-cublaslt --samples 5 \
    > "$logs/ncu-stalls.txt" 2>&1
  echo "ncu stalls exit $? at $SECONDS s" >> "$logs/summary.txt"
fi
pack
