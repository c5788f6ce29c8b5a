#!/usr/bin/env bash
# Y15 (session 21, H200): the final pass with 100 ms of idle before each finalist's round (C,
# carry/settle: TUNE_FINAL_SETTLE_MS 100) against Y14's rounds without it (B, carry/static): the
# same plain tune of the 16 per-tensor Llama keys at M = 256, 512 by each, then each key's two
# winners timed per shape, B C B C B C.
set -u
o=$(mktemp -d)/y15; mkdir -p $o
pk() { tar czf $OUT/y15.tgz -C $(dirname $o) y15; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/ky15
nvidia-smi -L > $o/gpu.txt
S=""; for m in 256 512; do for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
for v in B C; do bin=carry/static/w8a8; [ $v = C ] && bin=carry/settle/w8a8
  W8A8_CACHE_DB=$o/$v.db timeout 130 $bin tune --budget 110 --max-candidates 64 --scale tensor --json $(args "$S") > $o/tune-$v.jsonl 2> $o/tune-$v.log
  echo "tune $v $? $SECONDS s" >> $o/summary.txt; pk
done
export W8A8_TUNE=off
for s in $S; do for r in 1 2 3; do for v in B C; do
  W8A8_CACHE_DB=$o/$v.db timeout 30 carry/static/w8a8 bench --json --no-cublaslt --graph --shape $s --scale tensor >> $o/$v$r.jsonl 2>>$o/err.log
done; done; done
echo "ab $SECONDS s" >> $o/summary.txt
for v in B C; do carry/static/w8a8 cache --db $o/$v.db export $o/$v.sql --winners 2>>$o/err.log; done
gzip $o/tune-*.jsonl; rm -f $o/*.db $o/*.db-*; echo "all $SECONDS s" >> $o/summary.txt; pk
