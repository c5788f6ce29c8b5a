#!/usr/bin/env bash
# Y13 (session 21, H200): ratios at the power cap against ratios at boost clocks. Llama M = 512
# (8 shapes), per-tensor and block, shape by shape (compare.py --interleave 1): once with the
# default measurement (ours: 20 samples of >= 1 ms; peers: 10 replays of 20 calls), once
# sustained (ours: --samples 2000, about 2 s; peers: 1000 replays of 20 calls), the SM clock
# and power sampled every 50 ms.
set -u
o=$(mktemp -d)/y13; mkdir -p $o
pk() { tar czf $OUT/y13.tgz -C $(dirname $o) y13; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/ky13 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
nvidia-smi -L > $o/gpu.txt
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,clocks_throttle_reasons.active --format=csv -lms 50 > $o/smi.csv 2>&1 &
smi=$!
c() { python3 bench/compare.py --grid llama3 --min-m 512 --max-m 512 --bin carry/static/w8a8 --no-cublaslt \
  --scale tensor --scale block --also "" "$@"; }
date +%s.%N > $o/marks.txt
c --interleave 1 --save $o/boost > $o/boost.txt 2> $o/boost.err
date +%s.%N >> $o/marks.txt
c --interleave 1 --samples 2000 --replays 1000 --save $o/sustained > $o/sustained.txt 2> $o/sustained.err
date +%s.%N >> $o/marks.txt
kill $smi; gzip $o/smi.csv; echo "all $SECONDS s" >> $o/summary.txt; pk
