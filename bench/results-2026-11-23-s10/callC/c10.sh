#!/usr/bin/env bash
# session 10, device call C (H100): the stmatrix epilogue. (1) the restricted-space tune of
# call B with the old (7fa37c8) and the new build, interleaved twice; (2) the llama3 grid at
# M >= 256 per-tensor, shipped caches, old and new, then peers; (3) check_gpu_sm90.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/C; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callC.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
S="--shape 512,4096,4096 --shape 1024,4096,4096 --shape 2048,4096,4096 --shape 4096,4096,4096 --shape 512,6144,4096 --shape 1024,6144,4096 --shape 4096,4096,14336 --shape 16384,4096,4096"
for round in 1 2; do
  for w in old static; do
    B=$PWD/carry/$w/w8a8
    W8A8_KERNEL_DIR=$R/k-$w W8A8_CACHE_DB=$L/exp-$w-$round.db timeout 200 $B tune \
        --space carry/exp_sm90.lua $S --scale tensor --max-candidates 10000 --json \
        > $L/exp-$w-$round.jsonl 2> $L/exp-$w-$round.err; note "tune $w $round" $?
  done
done
timeout 120 python3 bench/peers.py $S --providers torch.tensor.fast --out $L/peers-exp.jsonl \
    > $L/peers-exp.txt 2>&1; note peers-exp $?
export W8A8_CACHE_DB=$R/empty.db W8A8_CACHE_PATH=$PWD/cache
for w in old static; do
  W8A8_KERNEL_DIR=$R/k-$w timeout 100 carry/$w/w8a8 bench --json --grid llama3 --scale tensor \
      --no-cublaslt > $L/llama-$w.jsonl 2> $L/llama-$w.err; note "llama $w" $?
done
timeout 150 python3 bench/peers.py --grid llama3 --min-m 256 --providers torch.tensor.fast \
    --out $L/peers-llama.jsonl > $L/peers-llama.txt 2>&1; note peers-llama $?
( cd $R && W8A8_KERNEL_DIR=$R/k-test W8A8_CACHE_DB=$R/t.db W8A8_TEST_CACHE_DB=$R/t.db \
    W8A8_TEST_KERNEL_DIR=$R/k-test CK_FORK=no timeout 280 \
    $OLDPWD/carry/static/tests/check_gpu_sm90 > $L/check_gpu_sm90.log 2>&1 ); note test $?
