#!/usr/bin/env bash
# D6 (H200, session 51): do D4's finalists keep their order in the closing grids' protocol?
# D4's tune timed its quick pass of 5 samples well ahead of what the same configs run as the
# grids' 20-call replays shape after shape (2048x7168x16384: 366 against 417 us, the GPU at
# its power cap); its finalists (the graph pass) came within 2 % of the grid. Here each of the
# 16 DeepSeek-V3 block keys at M >= 1024 runs its six fastest finalists (d6/rankI.sql, one
# database each, make_dbs.py) and the shipped row (A, an empty database) through
# `w8a8 bench --graph`, in two rounds: A 1 2 3 4 5 6, then 6 5 4 3 2 1 A; peers.py beside.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d6-kernels W8A8_TUNE=off
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
d=bench/results-2026-12-02-s51/d6
S="1024,2112,7168 1024,4096,7168 1024,7168,16384 1024,24576,1536 1024,32768,512
   2048,2112,7168 2048,4096,7168 2048,7168,16384 2048,24576,1536 2048,32768,512
   4096,2112,7168 4096,4096,7168 4096,7168,2048 4096,7168,16384 4096,24576,1536 4096,32768,512"
targs=""; for s in $S; do targs="$targs --shape $s"; done
for i in 1 2 3 4 5 6; do
  rm -f /tmp/r$i.db
  W8A8_CACHE_PATH=/nonexistent $W cache --db /tmp/r$i.db import $d/rank$i.sql >> $o/gpu.txt 2>&1
  W8A8_CACHE_PATH=/nonexistent W8A8_CACHE_DB=/tmp/r$i.db $W compile --arch sm_90a --winners \
    --jobs 16 > /dev/null 2>> $o/err.txt
done
echo "compiled $SECONDS" >> $o/gpu.txt
run() { # NAME DB ROUND
  # shellcheck disable=SC2086
  W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$2 timeout 100 $W bench --graph --no-cublaslt \
    --scale block,block $targs --json 2>> $o/err.txt |
    sed "s/^{/{\"build\": \"$1\", \"round\": $3, /" >> $o/runs.jsonl
}
run warm /tmp/empty.db 0
for i in A 1 2 3 4 5 6; do db=/tmp/r$i.db; [ $i = A ] && db=/tmp/empty.db; run $i $db 1; done
for i in 6 5 4 3 2 1 A; do db=/tmp/r$i.db; [ $i = A ] && db=/tmp/empty.db; run $i $db 2; done
echo "benches $SECONDS" >> $o/gpu.txt
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $targs --providers torch.block --out $o/peers.jsonl > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6
