#!/usr/bin/env bash
# D6 (H200): D5 for promoted per-row (--scale row,row --accum promoted), the same 29 keys, 48
# configs a key; shipped rows against tuned rows in rounds ship tuned tuned ship with peers.py
# (torch.row) between. Then, with D5's 15 per-tensor rows shipped in this tree, the promoted
# per-tensor path on D4's 40 Llama shapes (M = 512 ... 8192) beside torch.tensor.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
t=$o/tune; mkdir -p $t
rm -f /tmp/tuned.db /tmp/empty.db
S="--shape 512,6144,4096 --shape 512,8192,28672 --shape 1024,4096,14336 --shape 1024,8192,8192 --shape 1024,10240,8192"
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 2048 4096 8192; do S="$S --shape $m,$nk"; done
done
# shellcheck disable=SC2086
timeout 270 $W tune $S --scale row,row --accum promoted --db /tmp/tuned.db --budget 250 \
  --max-candidates 48 --json > $t/tune.jsonl 2> $t/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
W8A8_CACHE_DB=/tmp/tuned.db $W cache export $t/tuned.sql >> $o/gpu.txt 2>&1
two() { # label db round
  # shellcheck disable=SC2086
  W8A8_CACHE_DB=$2 timeout 100 $W bench $S --scale row,row --accum promoted --graph --json \
    --no-cublaslt $4 > $t/$1-row-r$3.jsonl 2>> $t/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
two ship /tmp/empty.db 1; two tuned /tmp/tuned.db 1 --verify
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $S --providers torch.row --out $t/peers.jsonl > $t/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
two tuned /tmp/tuned.db 2; two ship /tmp/empty.db 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $t ship tuned row > $t/table.txt 2>&1
echo "done $SECONDS" >> $o/gpu.txt
gzip -f $t/*.jsonl $t/tuned.sql
L=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do L="$L --shape $m,$nk"; done
done
# shellcheck disable=SC2086
W8A8_CACHE_DB=/tmp/empty.db timeout 100 $W bench $L --scale tensor,tensor --accum promoted --graph \
  --json --no-cublaslt > $o/ours-tensor.jsonl 2>> $o/err.txt
echo "ours tensor $? $SECONDS" >> $o/gpu.txt
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $L --providers torch.tensor --out $o/peers-tensor.jsonl > $o/peers.log 2>&1
echo "peers tensor $? $SECONDS" >> $o/gpu.txt
gzip -f $o/*.jsonl
tar czf $OUT/d6.tgz -C $OUT d6
