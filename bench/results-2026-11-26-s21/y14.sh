#!/usr/bin/env bash
# Y14 (session 21, H200): the tuner's final pass in rounds (3 rounds of 10 samples over the 8
# finalists, each round starting one further; a finalist's time the median of its round
# medians) against the previous one (30 samples a finalist, one after the other). check_gpu_tune;
# then the same plain tune (64 best-ranked a space, per-tensor, Llama (N, K) at M = 256 and 512)
# by the previous build (A, carry/old) and this one (B), and each key's two winners timed per
# shape, A B A B A B.
set -u
o=$(mktemp -d)/y14; mkdir -p $o
pk() { tar czf $OUT/y14.tgz -C $(dirname $o) y14; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/ky14
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_CACHE_DB=/tmp/t.db CK_FORK=no timeout 120 carry/static/tests/check_gpu_tune > $o/check_gpu_tune.log 2>&1
echo "check_gpu_tune $? $SECONDS s" >> $o/summary.txt; pk
S=""; for m in 256 512; do for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
for v in A B; do bin=carry/static/w8a8; [ $v = A ] && bin=carry/old/w8a8
  W8A8_CACHE_DB=$o/$v.db timeout 130 $bin tune --budget 110 --max-candidates 64 --scale tensor --json $(args "$S") > $o/tune-$v.jsonl 2> $o/tune-$v.log
  echo "tune $v $? $SECONDS s" >> $o/summary.txt; pk
done
export W8A8_TUNE=off
for s in $S; do for r in 1 2 3; do for v in A B; do
  W8A8_CACHE_DB=$o/$v.db timeout 30 carry/static/w8a8 bench --json --no-cublaslt --graph --shape $s --scale tensor >> $o/$v$r.jsonl 2>>$o/err.log
done; done; done
echo "ab $SECONDS s" >> $o/summary.txt
for v in A B; do carry/static/w8a8 cache --db $o/$v.db export $o/$v.sql --winners 2>>$o/err.log; done
gzip $o/tune-*.jsonl; rm -f $o/*.db $o/*.db-*; echo "all $SECONDS s" >> $o/summary.txt; pk
