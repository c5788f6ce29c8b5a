#!/usr/bin/env bash
# E1 (session 16): GPU suites swap + sm90 + dispatch; a swap-only tune of 9 decode keys
# (per-tensor), then A (shipped rows) against B (swap rows) as graph replays beside peers.
set -u
o=$(mktemp -d)/e1; mkdir -p $o
pk() { tar czf $OUT/e1.tgz -C $(dirname $o) e1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > $o/gpu.txt 2>&1
W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=tests W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=290 \
  W8A8_SUITES="swap sm90 dispatch" W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk scripts/gpu-session.sh tests
echo "tests $SECONDS s" >> $o/summary.txt
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 W8A8_KERNEL_DIR=/tmp/k1
b=carry/static/w8a8
st=""; for s in 16,4096,14336 32,4096,14336 16,8192,8192 32,8192,8192 16,8192,28672 32,8192,28672 8,4096,14336 1,8192,8192 64,4096,14336; do st="$st --shape $s"; done
W8A8_CACHE_DB=$o/swap.db $b tune --space sm90_swap --budget 100 --scale tensor $st > $o/tune-tensor.log 2>&1
echo "tune $? $SECONDS s" >> $o/summary.txt; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for r in 1 2; do for v in A B; do db=/tmp/empty.db; [ $v = B ] && db=$o/swap.db
  W8A8_CACHE_DB=$db $b bench --json --no-cublaslt --graph $st --scale tensor > $o/$v$r.jsonl 2>>$o/err.log
done; done
echo "bench $SECONDS s" >> $o/summary.txt; pk
python3 carry/peers.py $st --providers torch.tensor.fast,torch.bf16 --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "all $SECONDS s" >> $o/summary.txt; rm -f $o/*.db-*; pk
