#!/usr/bin/env bash
# D4 (H200), after the closing call: on dclose's H200 the torch peers streamed 4.25-4.35 TB/s at
# M = 16 on the large decode shapes (session 43's H200: 3.77-3.95) while ours stayed at
# 4.1-4.2, so per-tensor 16x8192x28672 fell to 0.971. Is our swap-AB family capped, or was
# its config tuned on slower HBM? Every swap config of block_n 16 (swap16.lua, a narrowed
# sm90_swap by bench/narrow_space.py: block_m 64/128/256, stages 6..16, consumers/pingpong, split 1/2, evict 0/1; 75 a
# key) tuned with --seed at three M = 16 shapes, then shipped against tuned rows as 20-call
# graph replays in rounds ship tuned tuned ship with peers.py between; the memory clock is
# recorded to tell the machines apart.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial,vbios_version \
  --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
pack() { tar czf $OUT/d4.tgz -C $OUT d4; }
t=$o/tune; mkdir -p $t
rm -f /tmp/tuned.db /tmp/empty.db
S="--shape 16,57344,8192 --shape 16,8192,28672 --shape 16,28672,4096"
# shellcheck disable=SC2086
# (as run, the narrowed space was a file committed beside this script, made by the same command)
python3 bench/narrow_space.py scripts/sm90_swap.lua \
  "block_m=64/128/256,block_n=16,stages=6/8/10/12/16,consumers=1/2,pingpong=0/1,split=1/2,specialize=1,swap=1,evict=0/1" \
  > /tmp/swap16.lua
timeout 200 $W tune $S --scale tensor,tensor --space /tmp/swap16.lua --seed \
  --db /tmp/tuned.db --budget 180 --max-candidates 100 --json > $t/tune.jsonl 2> $t/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
gzip -f $t/tune.jsonl
pack
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
pack
