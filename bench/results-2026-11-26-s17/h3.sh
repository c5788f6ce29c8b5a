#!/usr/bin/env bash
# H3 (session 17, H100): the H100 keys the shipped caches lack beside H200's: INT8 (per-tensor)
# at M = 128…8192 and per-row FP8 at M = 1024…8192, the 8 Llama (N, K); then those shapes with
# the shipped caches (A) and with the new rows over them (B), graph replays, beside the peers.
set -u
o=$(mktemp -d)/h3; mkdir -p $o
pk() { tar czf $OUT/h3.tgz -C $(dirname $o) h3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kh3
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
NK="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
si=""; sr=""; for nk in $NK; do
  for m in 128 256 512 1024 2048 4096 8192; do si="$si --shape $m,$nk"; done
  for m in 1024 2048 4096 8192; do sr="$sr --shape $m,$nk"; done; done
W8A8_CACHE_DB=$o/new.db timeout 230 $b tune --budget 200 --dtype int8 --json $si > $o/tune-int8.jsonl 2> $o/tune-int8.log
echo "tune int8 $? $SECONDS s" >> $o/summary.txt; pk
W8A8_CACHE_DB=$o/new.db timeout 170 $b tune --budget 140 --scale row --json $sr > $o/tune-row.jsonl 2> $o/tune-row.log
echo "tune row $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $si --dtype int8 > $o/$v-int8.jsonl 2>>$o/err.log
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $sr --scale row > $o/$v-row.jsonl 2>>$o/err.log
done
echo "bench $SECONDS s" >> $o/summary.txt; pk
timeout 80 python3 carry/peers.py $si --providers torch.int8,torch.row.fast --budget 70 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
gzip $o/tune-*.jsonl; echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
