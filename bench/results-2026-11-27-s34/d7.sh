#!/usr/bin/env bash
# D7 (H200): FP8 decode as Ampere would run it: sm80_decode tuned and benched with the integer
# unpacks on (carry/soft) and with sm_90's own code (carry/static), e4m3 per-tensor, M = 1, 8,
# 16 over the Llama grid's (N, K) (24 candidates a key), each build into its own database;
# GB/s against the device copy (w8a8 bench --op quant, as scripts/gpu-session.sh sm80-peak).
o=$OUT/d7; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
unset W8A8_CACHE_PATH
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
sh=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 8 16; do sh="$sh --shape $m,$nk"; done
done
carry/static/w8a8 bench --op quant --shape 16384,16384 --json > $o/copy.jsonl 2>> $o/err.log
for b in soft static; do
  W8A8_CACHE_DB=/tmp/d7-$b.db timeout 150 carry/$b/w8a8 tune --space sm80_decode --budget 140 \
    --max-candidates 24 --dtype e4m3 --scale tensor $sh > $o/tune-$b.log 2>&1
  W8A8_CACHE_DB=/tmp/d7-$b.db timeout 60 carry/$b/w8a8 bench --json --no-cublaslt --dtype e4m3 \
    --scale tensor $sh > $o/bench-$b.jsonl 2>> $o/err.log
  echo "$b $SECONDS" >> $o/gpu.txt
  tar czf $OUT/d7.tgz -C $OUT d7
done
tar czf $OUT/d7.tgz -C $OUT d7 && rm -rf $o
