#!/usr/bin/env bash
# D4 (H200): DeepSeek-V3 block FP8 timed as DeepGEMM times its published table (cold.py: an
# 8 GB memset before every call, Kineto's kernel time) for ours and torch.block, then the same
# shapes as we and peers.py usually time them (graph replays back to back), SM clock and power
# every 100 ms throughout (clk.csv; gpu.txt marks the phases).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d4.db
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv,noheader -lms 100 > $o/clk.csv 2>&1 &
smi=$!
date +"cold start %T" >> $o/gpu.txt
W8A8_LIBRARY=$PWD/carry/static/libw8a8jit.so PYTHONPATH=python timeout 300 \
  python3 bench/results-2026-11-29-s43/cold.py > $o/cold.jsonl 2> $o/cold.err
date +"cold end %T rc $?" >> $o/gpu.txt
S="" P=""
for s in 4096,2112,7168 4096,24576,1536 4096,32768,512 4096,7168,16384 4096,4096,7168 \
  4096,7168,2048 2048,7168,16384 1024,4096,7168 128,2112,7168 128,4096,7168 128,7168,2048 \
  64,2112,7168; do
  S="$S --shape $s"
  case $s in *,2112,*) ;; *) P="$P --shape $s" ;; esac
done
date +"graph start %T" >> $o/gpu.txt
# shellcheck disable=SC2086
timeout 200 carry/static/w8a8 bench $S --scale block,block --graph --no-cublaslt --json \
  > $o/ours-graph.jsonl 2>> $o/err.txt
# shellcheck disable=SC2086
timeout 200 python3 carry/peers.py $P --providers torch.block --out $o/peers-graph.jsonl \
  >> $o/err.txt 2>&1
date +"graph end %T" >> $o/gpu.txt
# the cold method once more, after the sustained runs
W8A8_LIBRARY=$PWD/carry/static/libw8a8jit.so PYTHONPATH=python timeout 300 \
  python3 bench/results-2026-11-29-s43/cold.py > $o/cold2.jsonl 2>> $o/cold.err
date +"cold2 end %T" >> $o/gpu.txt
kill $smi
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
