#!/usr/bin/env bash
# H7 (session 17): sm80_gemm's copies from per-pass source pointers advanced in place
# (templates/ now) against HEAD's (carry/old): check_gpu_sm80_gemm, then bench/sm80_ab.sh
# twice on the large INT8 tiles, then a 64-candidate tune of each build beside the peak.
set -u
L=$(mktemp -d)/h7; mkdir -p $L
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
pack() { tar czf $OUT/h7.tgz -C $(dirname $L) h7; }
nvidia-smi -L > $L/gpu.txt
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=tests W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=150 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="sm80_gemm" OUT=$L scripts/gpu-session.sh tests > $L/tests.out 2>&1
echo "tests $? $SECONDS" >> $L/steps.txt; pack
export SM80_AB_CONFIGS="block_m=128/256,block_n=128,block_k=64/128,stages=3/4/5,warps_m=2/4,warps_n=2,slice_k=1,group=8,prefetch=0/1,epilogue=1"
for r in 1 2; do mkdir -p $L/ab$r
  OUT=$L/ab$r timeout 100 bench/sm80_ab.sh carry/old carry/static > $L/ab$r.out 2>&1
  echo "ab $r $? $SECONDS" >> $L/steps.txt; pack; done
W8A8_BIN=carry/static OUT=$L timeout 60 scripts/gpu-session.sh sm80-peak > $L/peak.out 2>&1
for v in old static; do
  mkdir -p $L/tune-$v; cp $L/sm80-peak.jsonl $L/sm80-copy.jsonl $L/tune-$v/ 2>/dev/null
  W8A8_BIN=carry/$v W8A8_SM80_CANDIDATES=64 OUT=$L/tune-$v timeout 100 scripts/gpu-session.sh sm80-tune:int8 > $L/tune-$v.out 2>&1
  gzip -f $L/tune-$v/sm80.db; echo "tune $v $? $SECONDS" >> $L/steps.txt; pack
done
