#!/usr/bin/env bash
# Z7 (session 22, H200): a scale-empty mbarrier per stage: the consumers hand a stage's block
# scales back as soon as they have read them, so the scale loaders refill them a K block
# before the stage's tiles are done. First gpu_sm90's block tcase on the new build (every
# block config, the padding test); then the shipped caches on the 54 block shapes of Z5, HEAD's
# build (carry/old) against the new one (carry/static), old new new old, one process each;
# torch.block once.
set -u
o=$(mktemp -d)/z7; mkdir -p $o
pk() { tar czf $OUT/z7.tgz -C $(dirname $o) z7; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
CK_RUN_CASE=block W8A8_KERNEL_DIR=/tmp/tkb timeout 300 carry/static/tests/check_gpu_sm90 > $o/block-tcase.log 2>&1
echo "block tcase $? $SECONDS" >> $o/summary.txt; pk
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/z7-empty.db
run() {
  bin=carry/static/w8a8; [ $1 = old ] && bin=carry/old/w8a8
  W8A8_KERNEL_DIR=/tmp/kz7-$1 timeout 150 $bin bench --json --no-cublaslt --graph $(args "$S $D") --scale block \
    | sed "s/^{/{\"build\": \"$1\", \"round\": $2, /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $1 $2 $? $SECONDS" >> $o/summary.txt
}
run old 1; run new 1; run new 2; run old 2; pk
timeout 150 python3 carry/peers.py $(args "$S $D") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $? $SECONDS" >> $o/summary.txt
pk
