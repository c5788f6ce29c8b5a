#!/usr/bin/env bash
# D2 (H200, session 51; written in session 50): the decode GPU suite (D1's did not run: W8A8_BIN unset), then sm80_decode's spans
# on the Llama grid's eight (N, K) at M = 1 ... 32 (D1 had five of them at M = 1, 2, 4, one
# token tile; spans now take 1, 2 or 4 token tiles and the space offers those whose tokens
# take up to two CTAs), per-tensor, per-row and INT8 (unroll 1: D1's winners but 3):
# narrowed tunes with --seed (the shipped rows, D1's among them, timed first) into one
# database, then the shipped rows (A) against its winners (B) as graph replays, A B B A,
# beside peers.py.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d2-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
W8A8_BIN=$PWD/carry/static W8A8_SUITES=decode OUT=$o scripts/gpu-session.sh tests > $o/suite.log 2>&1
echo "suite $? $SECONDS" >> $o/gpu.txt
python3 bench/narrow_space.py scripts/sm80_decode.lua \
  "warps=4/8/16,row_tiles=1/2,token_tiles=1/2/4,unroll=1,span=1/2/4/8" > /tmp/span.lua
S=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1 2 4 8 16 32; do S="$S $m,$nk"; done
done
targs=""; for s in $S; do targs="$targs --shape $s"; done
rm -f /tmp/t.db
for g in tensor row int8; do
  ga="--scale $g"; [ $g = int8 ] && ga="--dtype int8"
  # shellcheck disable=SC2086
  W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 170 $W tune $targs $ga \
    --space /tmp/span.lua --seed --db /tmp/t.db --budget 160 --max-candidates 72 \
    --json > $o/tune-$g.jsonl 2>> $o/tune.err
  echo "tune $g $? $SECONDS" >> $o/gpu.txt
done
for v in 8 4 2; do
  python3 bench/param_wins.py /tmp/t.db span $v --family sm80_decode > $o/param_wins-span$v.txt 2>&1
done
for g in tensor,tensor row,row int8; do
  # shellcheck disable=SC2086
  B_DB=/tmp/t.db CHUNK=16 bench/bin_ab.sh $W $W $o/ab-${g%%,*}.jsonl $g $S 2>> $o/err.txt
  echo "ab $g $? $SECONDS" >> $o/gpu.txt
done
# shellcheck disable=SC2086
timeout 150 python3 carry/peers.py $targs --providers torch.tensor.fast,torch.row.fast,torch.int8,torch.bf16 \
  --out $o/peers.jsonl > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
python3 bench/bin_ab.py $o/ab-tensor.jsonl $o/peers.jsonl torch.tensor.fast > $o/ab_table-tensor.txt 2>&1
python3 bench/bin_ab.py $o/ab-row.jsonl $o/peers.jsonl torch.row.fast > $o/ab_table-row.txt 2>&1
python3 bench/bin_ab.py $o/ab-int8.jsonl $o/peers.jsonl torch.int8 > $o/ab_table-int8.txt 2>&1
$W cache --db /tmp/t.db export $o/winners.sql --winners >> $o/gpu.txt 2>&1
gzip -f $o/tune-*.jsonl
echo "done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
