#!/usr/bin/env bash
# D14 (H200): the closing grids on the final build and cache (D8-D13's rows): the decode grid,
# the Llama grid at M <= 512 in every granularity and the DeepSeek-V3 grid (block), graph
# replays beside peers.py (every torch provider) in the same call (bench/grids_beside_peers.sh);
# then the Llama prefill shapes (M = 1024…8192) per-tensor, per-row and INT8 beside
# torch.tensor.fast, torch.row.fast and torch.int8.
o=$OUT/d14; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
bench/grids_beside_peers.sh $o
echo "grids $SECONDS" >> $o/gpu.txt
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty14.db
sh=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1024 2048 4096 8192; do sh="$sh --shape $m,$nk"; done
done
for s in tensor,tensor row,row; do
  carry/static/w8a8 bench --graph --json --no-cublaslt $sh --scale $s > $o/ours-prefill-${s%%,*}.jsonl 2>> $o/prefill.err
done
carry/static/w8a8 bench --graph --json --no-cublaslt $sh --dtype int8 > $o/ours-prefill-int8.jsonl 2>> $o/prefill.err
echo "prefill ours $SECONDS" >> $o/gpu.txt
timeout 240 python3 carry/peers.py $sh --providers torch.tensor.fast,torch.row.fast,torch.int8 \
  --budget 220 --out $o/peers-prefill.jsonl > $o/peers-prefill.log 2>&1
echo "prefill peers $SECONDS" >> $o/gpu.txt
tar czf $OUT/d14.tgz -C $OUT d14 && rm -rf $o
