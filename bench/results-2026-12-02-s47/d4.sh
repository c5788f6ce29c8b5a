#!/usr/bin/env bash
# D4 (H200): wide tunes of the keys an acceptance point misses by about 1 %:
#  - 128x7168x2048 block (issue 11: DeepGEMM's 510 TFLOP/s; D3's row 499): `tune --space
#    sm90_gemm --seed`, 400 candidates;
#  - 64x4096x14336 and 16x8192x28672 per-tensor (issue 10: 0.99 torch.tensor.fast): a plain
#    tune (every space, seeded) with 200 candidates a space;
# then shipped against tuned rows as 20-call graph replays (ship tuned tuned ship, peers.py
# between), as D1 and D2.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d4-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
rm -f /tmp/tuned.db /tmp/empty.db
B="--shape 128,7168,2048"
T="--shape 64,4096,14336 --shape 16,8192,28672"
# shellcheck disable=SC2086
W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 120 $W tune $B --scale block,block \
  --space sm90_gemm --seed --db /tmp/tuned.db --budget 100 --max-candidates 400 --json \
  > $o/tune-block.jsonl 2> $o/tune.err
echo "tune block $? $SECONDS" >> $o/gpu.txt
# shellcheck disable=SC2086
W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 130 $W tune $T --scale tensor,tensor \
  --db /tmp/tuned.db --budget 110 --max-candidates 200 --json > $o/tune-tensor.jsonl 2>> $o/tune.err
echo "tune tensor $? $SECONDS" >> $o/gpu.txt
t=$o/tune; mkdir -p $t
two() { # label db round scale shapes [args]
  # shellcheck disable=SC2086
  W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$2 timeout 60 $W bench $5 \
    --scale $4,$4 --graph --json --no-cublaslt --samples 20 $6 > $t/$1-$4-r$3.jsonl \
    2>> $t/err.txt
  echo "$1 $4 round $3 $SECONDS" >> $o/gpu.txt
}
for sc in block tensor; do
  [ $sc = block ] && S=$B || S=$T
  two ship /tmp/empty.db 1 $sc "$S"; two tuned /tmp/tuned.db 1 $sc "$S" --verify
done
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $B $T --providers torch.block,torch.tensor.fast --out $t/peers.jsonl \
  > $t/peers.log 2>&1
for sc in block tensor; do
  [ $sc = block ] && S=$B || S=$T
  two tuned /tmp/tuned.db 2 $sc "$S"; two ship /tmp/empty.db 2 $sc "$S"
done
python3 bench/ab_rounds.py $t ship tuned block tensor > $t/table.txt 2>&1
$W cache --db /tmp/tuned.db export $t/winners.sql --winners >> $o/gpu.txt 2>&1
gzip -c $t/winners.sql > $t/tuned.sql.gz
gzip -f $o/*.jsonl
echo "ab done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
