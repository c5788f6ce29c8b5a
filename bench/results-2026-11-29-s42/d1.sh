#!/usr/bin/env bash
# D1 (H200): overlap 4 and 5 (groups of 16 and 32 K blocks: one drain of the tensor pipe a
# group) against the shipped rows. overlap_rows.py writes the shipped rows of 17 block-scaled
# and promoted keys (base.sql) and the same rows with overlap 4 (ov4.sql) and 5 (ov5.sql, keys
# of K blocks a multiple of 32); each is timed as graph replays in rounds
# base ov4 ov5 ov5 ov4 base. Then check_gpu_sm90 (two overlap 4 / 5 configs added).
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k-d1
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw --format=csv,noheader -lms 250 \
  > $o/clk.csv 2>&1 &
smi=$!
W=$PWD/carry/static/w8a8
python3 bench/results-2026-11-29-s42/overlap_rows.py $o/rows 4 5 > $o/rows.txt 2>&1
for v in base ov4 ov5; do
  W8A8_CACHE_DB=/tmp/$v.db $W cache import $o/rows/$v.sql >> $o/gpu.txt 2>&1
done
one() { # label round
  for s in block ptensor prow; do
    # shellcheck disable=SC2046
    W8A8_CACHE_DB=/tmp/$1.db timeout 200 $W bench $(cat $o/rows/$s.args) --graph --no-cublaslt \
      --json --samples 20 > $o/$1-$s-r$2.jsonl 2>> $o/err.txt
  done
  echo "$1 round $2 $SECONDS" >> $o/gpu.txt
}
one base 1; one ov4 1; one ov5 1; one ov5 2; one ov4 2; one base 2
for v in ov4 ov5; do
  python3 bench/results-2026-11-28-s40/ab_rounds.py $o base $v block ptensor prow > $o/table-$v.txt 2>&1
done
tar czf $OUT/d1.tgz -C $OUT d1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm90" timeout 330 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
kill $smi 2>/dev/null
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
