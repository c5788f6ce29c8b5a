#!/usr/bin/env bash
# D3 (H200, session 51): the per-tensor / per-row keys still near 1.0x torch (M = 8...32 at the
# three largest weights: 57344x8192, 28672x4096, 8192x28672). D2's narrowed space had
# row_tiles 1/2 only; spans shrink a CTA's rows (16 / span a tile) and each CTA reads all of
# A, so A is re-read N / rows times: row_tiles 4 added (2/4, spans 1/2/4, token tiles 1/2/4,
# unroll 1/2), then every space's 64 best-ranked configs (swap-AB, sm90_gemm) into the same
# database, --seed; shipped rows (A) against its winners (B) as graph replays, A B B A,
# beside peers.py.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d3-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
python3 bench/narrow_space.py scripts/sm80_decode.lua \
  "warps=4/8/16,row_tiles=2/4,token_tiles=1/2/4,unroll=1/2,span=1/2/4" > /tmp/s3.lua
S=""
for nk in 57344,8192 28672,4096 8192,28672; do
  for m in 8 16 32; do S="$S $m,$nk"; done
done
targs=""; for s in $S; do targs="$targs --shape $s"; done
rm -f /tmp/t.db
for g in tensor row; do
  # shellcheck disable=SC2086
  W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 100 $W tune $targs --scale $g \
    --space /tmp/s3.lua --seed --db /tmp/t.db --budget 90 --json > $o/tune-$g.jsonl 2>> $o/tune.err
  echo "tune $g $? $SECONDS" >> $o/gpu.txt
  # shellcheck disable=SC2086
  W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache timeout 100 $W tune $targs --scale $g \
    --db /tmp/t.db --budget 90 --max-candidates 64 --json > $o/tune-all-$g.jsonl 2>> $o/tune.err
  echo "tune all $g $? $SECONDS" >> $o/gpu.txt
done
for g in tensor,tensor row,row; do
  # shellcheck disable=SC2086
  B_DB=/tmp/t.db CHUNK=9 bench/bin_ab.sh $W $W $o/ab-${g%%,*}.jsonl $g $S 2>> $o/err.txt
  echo "ab $g $? $SECONDS" >> $o/gpu.txt
done
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py $targs --providers torch.tensor.fast,torch.row.fast,torch.bf16 \
  --out $o/peers.jsonl > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
python3 bench/bin_ab.py $o/ab-tensor.jsonl $o/peers.jsonl torch.tensor.fast > $o/ab_table-tensor.txt 2>&1
python3 bench/bin_ab.py $o/ab-row.jsonl $o/peers.jsonl torch.row.fast > $o/ab_table-row.txt 2>&1
$W cache --db /tmp/t.db export $o/winners.sql --winners >> $o/gpu.txt 2>&1
$W cache --db /tmp/t.db --json list > $o/winners.jsonl 2>> $o/err.txt
gzip -f $o/tune-*.jsonl
echo "done $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3
