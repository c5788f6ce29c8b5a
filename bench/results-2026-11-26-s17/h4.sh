#!/usr/bin/env bash
# H4 (session 17, H100): block-scaled (A 1x128, B 128x128) rows of the 8 Llama (N, K) at
# M = 1…512, which H200 has (cache/h200-decode.sql) and H100 lacked; then those shapes with the
# shipped caches (A) and with the new rows over them (B), graph replays, beside torch.block.
set -u
o=$(mktemp -d)/h4; mkdir -p $o
pk() { tar czf $OUT/h4.tgz -C $(dirname $o) h4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/kh4
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
NK="6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672"
s=""; for nk in $NK; do for m in 1 2 4 8 16 32 64 128 256 512; do s="$s --shape $m,$nk"; done; done
W8A8_CACHE_DB=$o/new.db timeout 380 $b tune --budget 340 --scale block --json $s > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $s --scale block > $o/$v.jsonl 2>>$o/err.log
done
echo "bench $SECONDS s" >> $o/summary.txt; pk
timeout 80 python3 carry/peers.py $s --providers torch.block,torch.bf16 --budget 70 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-* $o/tune.jsonl; pk
