#!/usr/bin/env bash
# C6 (session 24, H200): the final build. (1) Every GPU suite. (2) Promoted per-tensor /
# per-row on the Llama (N, K) at M 512..8192 (shipped caches with C5's rows) beside
# torch.tensor / torch.row (cuBLASLt's default, accurate accumulation).
set -u
o=$(mktemp -d)/c6; mkdir -p $o
pk() { tar czf $OUT/c6.tgz -C $(dirname $o) c6; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
tar xJf carry/tests.tar.xz -C carry/static
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 \
  W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o scripts/gpu-session.sh tests > $o/suites.out 2>&1
echo "suites $? $SECONDS" >> $o/summary.txt; pk
args() { for s in $1; do printf ' --shape %s' $s; done; }
P=""; for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do P="$P $m,$nk"; done; done
( export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty.db W8A8_KERNEL_DIR=/tmp/kg
  for sc in tensor row; do
    timeout 150 $b bench --json --no-cublaslt --graph --accum promoted --scale $sc $(args "$P") > $o/ours-promoted-$sc.jsonl 2>>$o/err.log
    echo "promoted $sc $? $SECONDS" >> $o/summary.txt
  done
  timeout 120 python3 carry/peers.py $(args "$P") --providers torch.tensor,torch.row --out $o/peers-promoted.jsonl > /dev/null 2>>$o/err.log
  echo "peers $? $SECONDS" >> $o/summary.txt ); pk
