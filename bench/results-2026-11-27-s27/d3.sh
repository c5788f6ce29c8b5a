#!/usr/bin/env bash
# D3 (H200): issue 10's marginal keys, tuned again with a deeper search than session 25's 4 s a
# key: the per-tensor keys of the Llama grid at M <= 512 that session 26's D11 measured below
# 1.02x torch.tensor.fast, and the decode-grid keys D2 (A) measured below 1.01x (22 keys,
# 260 s); per-row (3 keys) and block (6 keys) likewise, ~15 s a key. Plain tunes seeded from
# the shipped cache, then the shipped rows (A) against the new winners (B), A B B A
# (bench/sweep_rows.sh); bench/select_rows.py keeps what won both pairs by 2 %.
set -u
o=$(mktemp -d)/d3; mkdir -p $o
pk() { tar czf $OUT/d3.tgz -C $(dirname $o) d3; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8=$PWD/carry/static/w8a8 W8A8_KERNEL_DIR=/tmp/kd3 W8A8_CACHE_PATH=$PWD/cache CHUNK=16
run() { # name budget scale shapes
  echo "- $(echo $4)" > $o/groups-$1.txt
  BUDGET=$2 bash bench/sweep_rows.sh $o/groups-$1.txt $3 fast $o/$1 /tmp/d3-$1.db
  $W8A8 cache --db /tmp/d3-$1.db export $o/$1/new.sql --winners 2>> $o/err.log
  gzip $o/$1/tune-$3.jsonl
  echo "$1 $SECONDS" >> $o/summary.txt; pk
}
run tensor 260 tensor "64,4096,14336 128,4096,14336 512,4096,14336 256,8192,8192 512,8192,8192
16,8192,28672 32,8192,28672 64,8192,28672 128,8192,28672 256,8192,28672 16,10240,8192
256,10240,8192 1,28672,4096 2,28672,4096 4,28672,4096 8,28672,4096 1,57344,8192 2,57344,8192
4,57344,8192 8,57344,8192 16,57344,8192 32,57344,8192"
run row 50 row "256,8192,8192 512,8192,8192 128,28672,4096"
run block 95 block "512,4096,14336 256,8192,8192 512,8192,8192 128,28672,4096 256,28672,4096
128,57344,8192"
$W8A8 cache list --json > $o/shipped.jsonl 2>> $o/err.log
gzip $o/shipped.jsonl
pk
