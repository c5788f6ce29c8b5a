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
# (ran with variants.sh's lines inline, commit 942ca1d; folded into it since)
bench/results-2026-11-29-s42/variants.sh $o ov4:overlap=4 ov5:overlap=5
tar czf $OUT/d1.tgz -C $OUT d1
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="sm90" timeout 330 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "tests exit $? $SECONDS" >> $o/gpu.txt
kill $smi 2>/dev/null
tar czf $OUT/d1.tgz -C $OUT d1 && rm -rf $o
