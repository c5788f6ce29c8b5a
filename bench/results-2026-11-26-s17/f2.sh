#!/bin/bash
# F2 (session 17): three main-loop variants of sm80_gemm against the old build, then a
# 64-candidate tune of each: v1 = templates/ (first fragments, then copies branch-free among
# the mmas), v2 = copies first (branch-free), v3 = first fragments, copies behind a branch
set -u
L=$(mktemp -d)/f2; mkdir -p $L
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
pack() { tar czf $OUT/f2.tgz -C $(dirname $L) f2; }
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 500 > $L/clocks.csv 2>&1 &
SMI=$!
mkdir -p carry/v1 && printf '#!/bin/bash\nexec "$(cd "$(dirname "$0")/.." && pwd)/static/w8a8" "$@"\n' > carry/v1/w8a8 && chmod +x carry/v1/w8a8
export SM80_AB_CONFIGS="block_m=128/256,block_n=128,block_k=64/128,stages=3/4/5,warps_m=2/4,warps_n=2,slice_k=1,group=8,prefetch=0/1,epilogue=1"
for v in v1 v2 v3; do
  mkdir -p $L/ab-$v
  OUT=$L/ab-$v timeout 100 bench/sm80_ab.sh carry/old carry/$v > $L/ab-$v.out 2>&1
  echo "ab $v $? $SECONDS" >> $L/steps.txt; pack
done
W8A8_BIN=carry/static OUT=$L timeout 60 scripts/gpu-session.sh sm80-peak > $L/peak.out 2>&1
for v in old v1 v2 v3; do
  mkdir -p $L/tune-$v; cp $L/sm80-peak.jsonl $L/sm80-copy.jsonl $L/tune-$v/ 2>/dev/null
  W8A8_BIN=carry/$v W8A8_SM80_CANDIDATES=64 OUT=$L/tune-$v timeout 90 scripts/gpu-session.sh sm80-tune:int8 > $L/tune-$v.out 2>&1
  echo "tune $v $? $SECONDS" >> $L/steps.txt; pack
done
kill $SMI; pack
