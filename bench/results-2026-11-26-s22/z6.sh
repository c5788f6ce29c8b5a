#!/usr/bin/env bash
# Z6 (session 22, H200): the scale loaders with 16-byte cp.async for K-major A scales in a
# 16-byte aligned run (one copy per lane for 4 rows, instead of 4-byte copies per row), as a
# template variant (W8A8_TEMPLATE_DIR=carry/tpl/vec) of the HEAD build (carry/old), against
# the embedded templates: block scales, shipped caches, the 54 shapes of Z5, order emb vec vec
# emb; a --verify pass; torch.block once. (The 256-row wave configs spill with the variant
# and are rejected: those rows fall back.)
set -u
o=$(mktemp -d)/z6; mkdir -p $o
pk() { tar czf $OUT/z6.tgz -C $(dirname $o) z6; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/z6-empty.db
run() {
  td=""; [ $1 = vec ] && td="W8A8_TEMPLATE_DIR=$PWD/carry/tpl/vec"
  env $td W8A8_KERNEL_DIR=/tmp/kz6-$1 timeout 150 carry/old/w8a8 bench --json --no-cublaslt --graph $(args "$S $D") --scale block \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $1 $2 $? $SECONDS" >> $o/summary.txt
}
run emb 1; run vec 1; run vec 2; run emb 2; pk
W8A8_TEMPLATE_DIR=$PWD/carry/tpl/vec W8A8_KERNEL_DIR=/tmp/kz6-vec timeout 100 carry/old/w8a8 bench --verify --json --no-cublaslt \
  --shape 1001,2112,7168 --shape 512,4096,14336 --shape 129,7168,2048 --scale block > $o/verify-vec.jsonl 2>&1
echo "verify $? $SECONDS" >> $o/summary.txt
timeout 150 python3 carry/peers.py $(args "$S $D") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $? $SECONDS" >> $o/summary.txt
pk
