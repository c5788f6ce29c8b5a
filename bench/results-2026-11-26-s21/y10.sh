#!/usr/bin/env bash
# Y10 (session 21, H200): where the round-to-round swings of whole-grid benches come from (Y6:
# one config 0.83-1.05x between two rounds of one call; Y7: per-shape processes within 0.5 %).
# The SM clock, power and throttle reasons sampled every 20 ms while: the 32 block shapes of
# Y6 in one process, 4 rounds back to back; then each shape in its own process; then one
# process with --samples 100. Shipped rows, graph replays.
set -u
o=$(mktemp -d)/y10; mkdir -p $o
pk() { tar czf $OUT/y10.tgz -C $(dirname $o) y10; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/ky10 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
S=""; for m in 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do S="$S $m,$nk"; done; done
S="$S 512,4096,4096 512,4096,14336 512,6144,4096 256,8192,8192 512,8192,8192 128,10240,8192 128,28672,4096 256,28672,4096"
args() { for s in $1; do printf ' --shape %s' $s; done; }
$b bench --json --no-cublaslt --graph $(args "$S") --scale block > /dev/null 2>&1   # compile, warm the disk store
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 20 > $o/smi.csv 2>&1 &
smi=$!
sleep 1
t() { echo "$1 $(date +%s.%N)" >> $o/marks.txt; }
for r in 1 2 3 4; do t grid$r; $b bench --json --no-cublaslt --graph $(args "$S") --scale block > $o/grid$r.jsonl 2>>$o/err.log; done
t procs; for s in $S; do $b bench --json --no-cublaslt --graph --shape $s --scale block >> $o/procs.jsonl 2>>$o/err.log; done
t long; $b bench --json --no-cublaslt --graph --samples 100 $(args "$S") --scale block > $o/long.jsonl 2>>$o/err.log
t end; sleep 0.5; kill $smi; gzip $o/smi.csv; echo "all $SECONDS s" >> $o/summary.txt; pk
