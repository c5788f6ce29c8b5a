#!/usr/bin/env bash
# D3 (H200): the DeepSeek-V3 keys D2 did not tune, with the same tuner (256x128 wave tiles,
# 20-call final replays, the key-level winner rule): the peers.py dsv3 grid's six shapes at
# M = 64 and 128 and 2112x7168 at M = 512..4096, seeded by the shipped winners (D2's rows
# shipped in this tree). Then the whole dsv3 grid: shipped rows against tuned rows, 20-call
# graph replays, rounds ship tuned tuned ship, peers.py --grid dsv3 (torch.block) between.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
pack() { tar czf $OUT/d3.tgz -C $OUT d3; }
t=$o/tune; mkdir -p $t
rm -f /tmp/tuned.db /tmp/empty.db
S=""
for m in 64 128; do
  for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do S="$S --shape $m,$nk"; done
done
for m in 512 1024 2048 4096; do S="$S --shape $m,2112,7168"; done
# shellcheck disable=SC2086
timeout 230 $W tune $S --scale block,block --db /tmp/tuned.db --budget 210 --max-candidates 128 \
  --json > $t/tune.jsonl 2> $t/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
W8A8_CACHE_DB=/tmp/tuned.db $W cache export $t/tuned.sql >> $o/gpu.txt 2>&1
gzip -f $t/tuned.sql $t/tune.jsonl
pack
two() { # label db round
  W8A8_CACHE_DB=$2 timeout 100 $W bench --grid dsv3 --scale block,block --graph --json --no-cublaslt \
    --samples 15 $4 > $t/$1-block-r$3.jsonl 2>> $t/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
two ship /tmp/empty.db 1; two tuned /tmp/tuned.db 1 --verify
timeout 150 python3 carry/peers.py --grid dsv3 --providers torch.block --out $t/peers.jsonl \
  > $t/peers.log 2>&1
two tuned /tmp/tuned.db 2; two ship /tmp/empty.db 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $t ship tuned block > $t/table.txt 2>&1
echo "done $SECONDS" >> $o/gpu.txt
pack
