#!/usr/bin/env bash
# D6 (H200): the one shape of either grid still below its peer in the closing call
# (16x8192x28672 per-tensor: 0.990 on the Llama grid, 0.999 on the decode grid, a swap-AB row
# without evict-first) and its M = 32 neighbour: the shipped rows (base) against evict=1 (ev1),
# evict=1 with N and K compiled in (ev1s), and that with 16 stages (ev16), graph replays in
# rounds base ev1 ev1s ev16 ev16 ev1s ev1 base, each round beside peers.py's torch.tensor.fast
# on the same shapes.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_KERNEL_DIR=/tmp/k-d6
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
python3 bench/results-2026-11-29-s42/overlap_rows.py \
  --keys tensor:fast:16:8192:28672,tensor:fast:32:8192:28672 $o/rows ev1:evict=1 \
  ev1s:evict=1,specialize=1 ev16:evict=1,specialize=1,stages=16 > $o/rows.txt 2>&1
for v in base ev1 ev1s ev16; do
  W8A8_CACHE_DB=/tmp/$v.db $W cache import $o/rows/$v.sql >> $o/gpu.txt 2>&1
done
one() { # label round
  # shellcheck disable=SC2046
  W8A8_CACHE_DB=/tmp/$1.db timeout 100 $W bench $(cat $o/rows/tensor.args) --graph --no-cublaslt \
    --json --samples 40 > $o/$1-tensor-r$2.jsonl 2>> $o/err.txt
  timeout 100 python3 carry/peers.py --shape 16,8192,28672 --shape 32,8192,28672 \
    --providers torch.tensor.fast --out $o/peers-$1-r$2.jsonl >> $o/err.txt 2>&1
  echo "$1 round $2 $SECONDS" >> $o/gpu.txt
}
one base 1; one ev1 1; one ev1s 1; one ev16 1; one ev16 2; one ev1s 2; one ev1 2; one base 2
for v in ev1 ev1s ev16; do
  python3 bench/results-2026-11-28-s40/ab_rounds.py $o base $v tensor > $o/table-$v.txt 2>&1
done
tar czf $OUT/d6.tgz -C $OUT d6 && rm -rf $o
