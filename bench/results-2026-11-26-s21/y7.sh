#!/usr/bin/env bash
# Y7 (session 21, H200): Y6's rows (its plain tune with wave offered; carry/y6-new.sql) against
# the shipped ones, interleaved per shape (A B A B A B for one shape, then the next), since
# whole-grid rounds moved single shapes by up to 17 % between rounds in Y6; torch.block once.
set -u
o=$(mktemp -d)/y7; mkdir -p $o
pk() { tar czf $OUT/y7.tgz -C $(dirname $o) y7; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/ky7 W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
b=carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
W8A8_CACHE_DB=/tmp/new.db $b cache import carry/y6-new.sql >> $o/err.log 2>&1
S=""; for m in 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do S="$S $m,$nk"; done; done
L="512,4096,4096 512,4096,14336 512,6144,4096 256,8192,8192 512,8192,8192 128,10240,8192 128,28672,4096 256,28672,4096"
for s in $S $L; do for r in 1 2 3; do for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=/tmp/new.db
  W8A8_CACHE_DB=$db timeout 30 $b bench --json --no-cublaslt --graph --shape $s --scale block >> $o/$v$r.jsonl 2>>$o/err.log
done; done; done
echo "ab $SECONDS s" >> $o/summary.txt; pk
args() { for s in $1; do printf ' --shape %s' $s; done; }
timeout 120 python3 carry/peers.py $(args "$S $L") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "all $SECONDS s" >> $o/summary.txt; pk
