#!/usr/bin/env bash
# J1 (session 18): sm80_gemm persist=1 (persistent CTAs, one ring stream across tiles) against
# HEAD (carry/old): check_gpu_sm80_gemm; bench/sm80_ab.sh twice on 128x128 / 256x128 tiles with
# persist 0/1; a K sweep at 4096^2 of four twins (fixed part of the time); a 64-candidate tune of
# each build beside the mma.sync peak; then the swap and sm90 suites.
set -u
L=$(mktemp -d)/j1; mkdir -p $L
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
pack() { tar czf $OUT/j1.tgz -C $(dirname $L) j1; }
nvidia-smi -L > $L/gpu.txt
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=tests W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="sm80_gemm" OUT=$L scripts/gpu-session.sh tests > $L/tests.out 2>&1
echo "tests $? $SECONDS" >> $L/steps.txt; pack
export SM80_AB_CONFIGS="block_m=128/256,block_n=128,block_k=64/128,stages=3/4/5,warps_m=2/4,warps_n=2,slice_k=1,group=8,prefetch=0,epilogue=0/1,persist=0/1"
for r in 1 2; do mkdir -p $L/ab$r
  OUT=$L/ab$r timeout 120 bench/sm80_ab.sh carry/old carry/static > $L/ab$r.out 2>&1
  echo "ab $r $? $SECONDS" >> $L/steps.txt; pack; done
# K sweep: time = a + b*K per config
python3 bench/narrow_space.py scripts/sm80_gemm.lua "block_m=128,block_n=128,block_k=64,stages=4/5,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=0,epilogue=1,persist=0/1" > $L/sweep.lua
s=""; for k in 512 1024 2048 4096 8192 16384; do s="$s --shape 4096,4096,$k"; done
W8A8_CACHE_DB=/tmp/sweep.db W8A8_KERNEL_DIR=/tmp/ks timeout 120 carry/static/w8a8 tune --space $L/sweep.lua --dtype int8 --scale row $s --json > $L/sweep.jsonl 2> $L/sweep.err
echo "sweep $? $SECONDS" >> $L/steps.txt; pack
W8A8_BIN=carry/static OUT=$L timeout 60 scripts/gpu-session.sh sm80-peak > $L/peak.out 2>&1
for v in old static; do
  mkdir -p $L/tune-$v; cp $L/sm80-peak.jsonl $L/sm80-copy.jsonl $L/tune-$v/ 2>/dev/null
  W8A8_BIN=carry/$v W8A8_SM80_CANDIDATES=64 OUT=$L/tune-$v timeout 120 scripts/gpu-session.sh sm80-tune:int8 > $L/tune-$v.out 2>&1
  gzip -f $L/tune-$v/sm80.db; echo "tune $v $? $SECONDS" >> $L/steps.txt; pack
done
mkdir -p $L/suites
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 \
  W8A8_CACHE_DB=/tmp/t2.db W8A8_KERNEL_DIR=/tmp/tk W8A8_SUITES="swap sm90" OUT=$L/suites scripts/gpu-session.sh tests > $L/suites.out 2>&1
echo "suites $? $SECONDS" >> $L/steps.txt; pack
