#!/usr/bin/env bash
# D1 (H200): fill=1 in swap-AB (weight tiles moved to overlap, as many as fill the grid's
# waves: 8192 rows as 132 tiles of 64 on 132 SMs, not 128) at per-tensor decode keys:
# `w8a8 tune --space sm90_swap --seed` into /tmp/tuned.db (every fill=1 candidate beside its
# fill=0 twin in tune.jsonl), shipped rows against tuned rows as 20-call graph replays (ship
# tuned tuned ship, peers.py between); then the swap suite (fill configs on odd shapes).
o=$OUT/d1; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
t=$o/tune; mkdir -p $t
rm -f /tmp/tuned.db /tmp/empty.db
S="--shape 8,8192,28672 --shape 16,8192,28672 --shape 32,8192,28672 --shape 16,8192,8192"
S="$S --shape 32,8192,8192 --shape 16,57344,8192 --shape 32,57344,8192 --shape 16,4096,14336"
S="$S --shape 32,4096,14336 --shape 64,4096,14336 --shape 4,8192,28672"
# shellcheck disable=SC2086
W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 200 $W tune $S --scale tensor,tensor \
  --space sm90_swap --seed --db /tmp/tuned.db --budget 150 --max-candidates 48 --json \
  > $t/tune.jsonl 2> $t/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
two() { # label db round [args]
  # shellcheck disable=SC2086
  W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$2 timeout 60 $W bench $S \
    --scale tensor,tensor --graph --json --no-cublaslt --samples 20 $4 > $t/$1-tensor-r$3.jsonl \
    2>> $t/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
two ship /tmp/empty.db 1; two tuned /tmp/tuned.db 1 --verify
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $S --providers torch.tensor.fast,torch.bf16 --out $t/peers.jsonl \
  > $t/peers.log 2>&1
two tuned /tmp/tuned.db 2; two ship /tmp/empty.db 2
python3 bench/ab_rounds.py $t ship tuned tensor > $t/table.txt 2>&1
$W cache --db /tmp/tuned.db export $t/winners.sql --winners >> $o/gpu.txt 2>&1
gzip -f $t/tune.jsonl
echo "ab done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d1.tgz -C $OUT d1
R=$PWD
mkdir -p /tmp/s-swap
(cd /tmp/s-swap && env W8A8_KERNEL_DIR=/tmp/s-swap/k W8A8_CACHE_DB=/tmp/s-swap/t.db \
  timeout 340 $R/carry/static/tests/check_gpu_swap > $o/swap.log 2>&1; echo "swap exit $? $SECONDS" >> $o/gpu.txt)
tar czf $OUT/d1.tgz -C $OUT d1
