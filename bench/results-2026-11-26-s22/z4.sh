#!/usr/bin/env bash
# Z4 (session 22, H200): block scales loaded by the TMA producer thread with bulk copies (scale_bulk;
# Z3's TMA boxes failed: they need 128-byte aligned shared memory) instead of the
# scale loader warps, when the layouts allow (K-major A, row-major B, 16-byte pitches: what
# w8a8 bench and vLLM use).
#  A) the shipped caches, old build (carry/old, HEAD before the change) against the new one
#     (carry/static), block scales on Llama M = 128, 256, 512 and DeepSeek-V3 M = 128 ... 4096:
#     old new new old, each a whole list in one process; torch.block once.
#  B) Z2's tile sweep (overlap 0/1 x stagger 0/1 at 4096x4096x7168, 512x4096x14336) on the new
#     build, to set beside Z2's "noloaders" bound.
#  C) every GPU suite (the new test block_scales_by_tma_and_by_loaders in gpu_sm90's block tcase).
set -u
o=$(mktemp -d)/z4; mkdir -p $o
pk() { tar czf $OUT/z4.tgz -C $(dirname $o) z4; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
# the block tcase first (the new paths' correctness), alone
CK_RUN_CASE=block W8A8_KERNEL_DIR=/tmp/tkb timeout 300 carry/static/tests/check_gpu_sm90 > $o/block-tcase.log 2>&1
echo "block tcase $? $SECONDS" >> $o/summary.txt
S=""; for m in 128 256 512; do for nk in 4096,4096 6144,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do S="$S $m,$nk"; done; done
D=""; for m in 128 512 1024 2048 4096; do for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do D="$D $m,$nk"; done; done
args() { for s in $1; do printf ' --shape %s' $s; done; }
(
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/z4-empty.db
for v in old new new old; do
  bin=carry/old/w8a8; [ $v = new ] && bin=carry/static/w8a8
  W8A8_KERNEL_DIR=/tmp/kz4-$v timeout 150 $bin bench --json --no-cublaslt --graph $(args "$S $D") --scale block \
    | sed "s/^{/{\"build\": \"$v\", /" >> $o/ab.jsonl 2>>$o/err.log
  echo "ab $v $? $SECONDS" >> $o/summary.txt
done
timeout 150 python3 carry/peers.py $(args "$S $D") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $? $SECONDS" >> $o/summary.txt
)
pk
(
export W8A8_CACHE_PATH=/nonexistent W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/kz4-new
for c in c00 c01 c10 c11 tensor; do rm -f /tmp/z4-$c.db; W8A8_CACHE_DB=/tmp/z4-$c.db carry/static/w8a8 cache import carry/z4/$c.sql >> $o/err.log 2>&1; done
for r in 1 2; do for c in tensor c00 c01 c10 c11; do sc=block; [ $c = tensor ] && sc=tensor
  W8A8_CACHE_DB=/tmp/z4-$c.db timeout 60 carry/static/w8a8 bench --json --no-cublaslt --graph --shape 4096,4096,7168 --shape 512,4096,14336 --scale $sc \
    | sed "s/^{/{\"round\": $r, /" >> $o/sweep.jsonl 2>>$o/err.log
done; done
echo "sweep $SECONDS" >> $o/summary.txt
)
pk
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=330 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o timeout 400 scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS s" >> $o/summary.txt; pk
