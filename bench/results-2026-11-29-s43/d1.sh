#!/usr/bin/env bash
# D1 (H200), two things in one call:
# 1. sm90_gemm's sm90_release by elect.sync (session 42's elect.patch, applied to the tree on
#    the device) against the committed template: one binary, the shipped cache, A the embedded
#    templates, B W8A8_TEMPLATE_DIR=$PWD/templates, graph replays in rounds base elect elect base
#    over session 42's D4 keys (block, promoted, and 14 shapes per-tensor, per-row, INT8).
# 2. Issue 14 (sm80_gemm INT8 at M >= 2048, K = 4096 shapes at 69-73 % of the mma.sync peak,
#    K >= 8192 at 74-78 %): session 40's winners pinned as cache rows (sm80_rows.py, no tune),
#    - the same 128x128 config at 2048x4096xK for K = 4096 ... 32768 (a per-tile cost shows
#      as a rise with K),
#    - every winner with persist=1 against as tuned (rounds base p1 p1 base),
#    - Nsight Compute (speed of light, warp states, scheduler, occupancy, memory) on the
#      winners at 2048x4096x4096 and 2048x8192x28672, and on torch._int_mm at 2048x4096x4096.
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
S=bench/results-2026-11-29-s43
pack() { tar czf $OUT/d1.tgz -C $OUT d1; }
# ---- 1. elect
e=$o/elect; mkdir -p $e/rows
(
export W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/empty-d1.db
python3 bench/results-2026-11-29-s42/overlap_rows.py $e/rows > $e/rows.txt 2>&1
T=""
for s in 1,4096,4096 16,8192,28672 1,57344,8192 64,4096,14336 128,6144,4096 128,8192,8192 \
  256,6144,4096 256,8192,8192 256,8192,28672 512,4096,4096 512,4096,14336 512,8192,8192 \
  1024,8192,8192 4096,4096,4096; do T="$T --shape $s"; done
echo "$T --scale tensor,tensor" > $e/rows/tensor.args
echo "$T --scale row,row" > $e/rows/row.args
echo "$T --dtype int8 --scale tensor,tensor" > $e/rows/int8.args
one() { # label round
  if [ $1 = elect ]; then export W8A8_TEMPLATE_DIR=$PWD/templates; else unset W8A8_TEMPLATE_DIR; fi
  for s in block ptensor prow tensor row int8; do
    # shellcheck disable=SC2046
    W8A8_KERNEL_DIR=/tmp/k-$1 timeout 200 $W bench $(cat $e/rows/$s.args) \
      --graph --no-cublaslt --json --samples 20 > $e/$1-$s-r$2.jsonl 2>> $e/err.txt
  done
  echo "$1 round $2 $SECONDS" >> $o/gpu.txt
}
one base 1; one elect 1; one elect 2; one base 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $e base elect block ptensor prow tensor row int8 \
  > $e/table.txt 2>&1
)
pack
# ---- 2. sm80_gemm INT8
s=$o/sm80; mkdir -p $s
(
unset W8A8_TEMPLATE_DIR
export W8A8_CACHE_PATH=/tmp/no-shipped-cache W8A8_KERNEL_DIR=/tmp/k-sm80
mkdir -p $W8A8_CACHE_PATH
src=bench/results-2026-11-28-s40/d1/b/sm80-bench-int8.jsonl
python3 $S/sm80_rows.py $src $s/base.sql > $s/rows.txt 2>&1
python3 $S/sm80_rows.py $src $s/p1.sql persist=1 >> $s/rows.txt 2>&1
# the 2048x4096x4096 winner at K = 4096 ... 32768
python3 - $src > $s/ksweep.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if (r["m"], r["n"], r["k"]) == (2048, 4096, 4096):
        for k in (4096, 8192, 16384, 32768):
            print(json.dumps(dict(r, k=k)))
PY
python3 $S/sm80_rows.py $s/ksweep.jsonl $s/ksweep.sql >> $s/rows.txt 2>&1
for v in base p1; do W8A8_CACHE_DB=/tmp/s80-$v.db $W cache import $s/$v.sql >> $s/err.txt 2>&1; done
W8A8_CACHE_DB=/tmp/s80-base.db $W cache import $s/ksweep.sql >> $s/err.txt 2>&1
shapes=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 2048 4096 8192; do shapes="$shapes --shape $m,$nk"; done
done
one() { # label round
  W8A8_CACHE_DB=/tmp/s80-$1.db timeout 100 $W bench --json --no-cublaslt --dtype int8 --scale row \
    $shapes > $s/$1-int8-r$2.jsonl 2>> $s/err.txt
  echo "sm80 $1 round $2 $SECONDS" >> $o/gpu.txt
}
one base 1; one p1 1; one p1 2; one base 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $s base p1 int8 > $s/table.txt 2>&1
W8A8_CACHE_DB=/tmp/s80-base.db timeout 60 $W bench --json --no-cublaslt --dtype int8 --scale row \
  --shape 2048,4096,4096 --shape 2048,4096,8192 --shape 2048,4096,16384 --shape 2048,4096,32768 \
  > $s/ksweep-out.jsonl 2>> $s/err.txt
pack
for sh in 2048,4096,4096 2048,8192,28672; do
  W8A8_CACHE_DB=/tmp/s80-base.db timeout 100 ncu --clock-control none --kernel-name regex:sm80_gemm \
    --launch-skip 3 --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section WarpStateStats --section SchedulerStats --section Occupancy \
    --section MemoryWorkloadAnalysis --section LaunchStats --metrics \
    sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed,sm__cycles_active.avg \
    $W bench --shape $sh --dtype int8 --scale row --no-cublaslt --samples 5 \
    > $s/ncu-ours-$sh.txt 2>&1
  echo "ncu $sh $SECONDS" >> $o/gpu.txt
done
W8A8_CACHE_DB=/tmp/s80-base.db timeout 100 ncu --clock-control none --kernel-name regex:sm80_gemm \
  --launch-skip 3 --launch-count 1 --section SourceCounters --section WarpStateStats --page source \
  --print-source sass --csv $W bench --shape 2048,4096,4096 --dtype int8 --scale row --no-cublaslt \
  --samples 5 2> $s/src-ours.err | gzip > $s/src-ours.csv.gz
pack
timeout 150 ncu --clock-control none --kernel-name regex:'[Gg]emm|cutlass|Kernel' --launch-skip 2 \
  --launch-count 1 --section SpeedOfLight --section ComputeWorkloadAnalysis --section WarpStateStats \
  --section SchedulerStats --section Occupancy --section LaunchStats --metrics \
  sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active,sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active \
  python3 carry/peers.py --providers torch.int8 --shape 2048,4096,4096 --out /tmp/p.jsonl \
  > $s/ncu-torch.txt 2>&1
echo "ncu torch $SECONDS" >> $o/gpu.txt
)
pack && rm -rf $o
