#!/usr/bin/env bash
# J6 (session 18, H100): do the two CTAs of an SM lose time by reaching their barriers together?
# sm80_gemm with the first wave's second CTA per SM started 300 ns late (about half a
# 64-byte K tile at 4096^3), against HEAD (carry/old): sm80_ab.sh on the 2-CTA
# 128x128 tiles, then a 64-candidate tune of each build beside the mma.sync peak.
set -u
L=$(mktemp -d)/j6; mkdir -p $L
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
pack() { tar czf $OUT/j6.tgz -C $(dirname $L) j6; }
nvidia-smi -L > $L/gpu.txt
export SM80_AB_CONFIGS="block_m=128,block_n=128,block_k=64/128,stages=3/4/5,warps_m=2,warps_n=2,slice_k=1,group=8,prefetch=0,epilogue=0/1"
for d in d300; do mkdir -p $L/ab-$d
  OUT=$L/ab-$d timeout 120 bench/sm80_ab.sh carry/old carry/$d > $L/ab-$d.out 2>&1
  echo "ab $d $? $SECONDS" >> $L/steps.txt; pack; done
W8A8_BIN=carry/old OUT=$L timeout 60 scripts/gpu-session.sh sm80-peak > $L/peak.out 2>&1
for v in old d300; do
  mkdir -p $L/tune-$v; cp $L/sm80-peak.jsonl $L/sm80-copy.jsonl $L/tune-$v/ 2>/dev/null
  W8A8_BIN=carry/$v W8A8_SM80_CANDIDATES=64 OUT=$L/tune-$v timeout 120 scripts/gpu-session.sh sm80-tune:int8 > $L/tune-$v.out 2>&1
  rm -f $L/tune-$v/sm80.db; echo "tune $v $? $SECONDS" >> $L/steps.txt; pack
done
