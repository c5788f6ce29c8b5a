#!/usr/bin/env bash
# D2 (H200): band order (raster 2: each CTA takes one contiguous run of tiles, sm90_band_unit)
# for the swap-AB kernels of the per-tensor decode shapes that lose to cuBLASLt on fast-HBM
# H200s. stream_probe (P1, P2) had 256-row weight tiles at 4.25 TB/s in bands against 3.83
# round-robin. swap_band.lua: sm90_swap narrowed to block_n 8/16, stages 6..16, block_m
# 64/128/256, split 1/2, specialize 1, evict 1, with raster 0/2 (148 a key at M = 16), tuned
# with --seed at five shapes into /tmp/tuned.db; then shipped rows against tuned rows as
# 20-call graph replays, rounds ship tuned tuned ship, peers.py between.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
t=$o/tune; mkdir -p $t
rm -f /tmp/tuned.db /tmp/empty.db
S="--shape 2,57344,8192 --shape 8,57344,8192 --shape 16,57344,8192 --shape 16,8192,28672 --shape 16,28672,4096"
# shellcheck disable=SC2086
timeout 240 $W tune $S --scale tensor,tensor --space bench/results-2026-11-29-s45/swap_band.lua --seed \
  --db /tmp/tuned.db --budget 200 --max-candidates 150 --json > $t/tune.jsonl 2> $t/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
gzip -f $t/tune.jsonl
two() { # label db round
  # shellcheck disable=SC2086
  W8A8_CACHE_DB=$2 timeout 60 $W bench $S --scale tensor,tensor --graph --json --no-cublaslt \
    --samples 20 $4 > $t/$1-tensor-r$3.jsonl 2>> $t/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
two ship /tmp/empty.db 1; two tuned /tmp/tuned.db 1 --verify
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $S --providers torch.tensor.fast,torch.bf16 --out $t/peers.jsonl \
  > $t/peers.log 2>&1
two tuned /tmp/tuned.db 2; two ship /tmp/empty.db 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $t ship tuned tensor > $t/table.txt 2>&1
echo "done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
