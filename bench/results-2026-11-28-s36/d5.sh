#!/usr/bin/env bash
# D5 (H200): the final build and cache (6 rows from D4): the closing grids beside peers.py
# (bench/grids_beside_peers.sh: decode and Llama M <= 512 in every granularity, DeepSeek-V3
# block), and the 6 new rows' shapes, ours and torch.block, as graph replays.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
timeout 200 bench/grids_beside_peers.sh $o > $o/grids.log 2>&1
echo "grids exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5
s="256,28672,4096 1024,2112,7168 1024,28672,4096 1024,57344,8192 2048,57344,8192 8192,6144,4096"
a=(); for x in $s; do a+=(--shape $x); done
W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db timeout 40 carry/static/w8a8 bench \
  --json --graph --no-cublaslt --scale block,block "${a[@]}" > $o/ours-new-rows.jsonl 2>> $o/err.log
timeout 40 python3 carry/peers.py "${a[@]}" --providers torch.block > $o/peers-new-rows.jsonl 2>> $o/err.log
echo "new rows exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
