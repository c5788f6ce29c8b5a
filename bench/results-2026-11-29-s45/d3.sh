#!/usr/bin/env bash
# D3 (H200): sm80_decode's whole space (29 configs a key) at the per-tensor decode keys it
# serves, M = 1, 2, 4, 8 on the decode grid's five (N, K), seeded by the shipped rows. P3 had
# its load pattern reading 4.34 TB/s with 16 warps against 4.30 with 8 at 57344x8192 and
# 4.04 against 3.96 with 2 at 28672x4096 (the shipped rows' warps). Then shipped rows against
# tuned rows, 20-call graph replays, rounds ship tuned tuned ship, peers.py between.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
t=$o/tune; mkdir -p $t
rm -f /tmp/tuned.db /tmp/empty.db
S=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8; do S="$S --shape $m,$nk"; done
done
# shellcheck disable=SC2086
timeout 240 $W tune $S --scale tensor,tensor --space sm80_decode --seed --db /tmp/tuned.db \
  --budget 220 --max-candidates 40 --json > $t/tune.jsonl 2> $t/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
W8A8_CACHE_DB=/tmp/tuned.db $W cache export $t/tuned.sql >> $o/gpu.txt 2>&1
gzip -f $t/tuned.sql $t/tune.jsonl
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
gzip -f $t/*.jsonl
tar czf $OUT/d3.tgz -C $OUT d3
