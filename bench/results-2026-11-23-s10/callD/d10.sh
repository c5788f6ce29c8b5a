#!/usr/bin/env bash
# session 10, device call D (H100): issue 12 with the stmatrix epilogue. (1) cold 120 s tune
# of llama3-8b (empty database, cold cubin store); (2) the 8b grid with that database, then
# peers (torch.tensor.fast) on the same 44 shapes; (3) the dsv3 grid, block scales, shipped
# caches, old (7fa37c8) and new build, then torch.block; (4) the long tune's first extension:
# resumed from (1) for 320 s with --explore 48.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/D; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callD.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $L/device.txt 2>&1
nproc >> $L/device.txt
B=$PWD/carry/static/w8a8
unset W8A8_CACHE_PATH
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$R/tune.db
start=$SECONDS
timeout 170 $B tune --model llama3-8b --budget 120 --json > $L/tune-120s.jsonl 2> $L/tune-120s.err
note "tune120 wall $((SECONDS - start)) s" $?
cp $R/tune.db $L/db120.db
MS=1,16,64,128,256,512,1024,2048,4096,8192,16384
SH=$(for m in ${MS//,/ }; do for nk in 6144,4096 4096,4096 28672,4096 4096,14336; do printf -- "--shape %s,%s " $m $nk; done; done)
W8A8_CACHE_DB=$L/db120.db timeout 100 $B bench --json --model llama3-8b --m $MS --scale tensor \
    --no-cublaslt > $L/ours-8b-120s.jsonl 2> $L/ours-8b-120s.err; note "bench 8b" $?
W8A8_CACHE_DB=$L/db120.db $B cache explain 4096,4096,4096 > $L/explain-check.txt 2>&1
timeout 120 python3 bench/peers.py $SH --providers torch.tensor.fast --out $L/peers-8b.jsonl \
    > $L/peers-8b.txt 2>&1; note "peers 8b" $?
for w in old static; do
  W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$R/empty.db W8A8_KERNEL_DIR=$R/k-$w timeout 60 \
      carry/$w/w8a8 bench --json --grid dsv3 --scale block,block --no-cublaslt \
      > $L/dsv3-$w.jsonl 2> $L/dsv3-$w.err; note "dsv3 $w" $?
done
timeout 60 python3 bench/peers.py --grid dsv3 --providers torch.block --out $L/peers-dsv3.jsonl \
    > $L/peers-dsv3.txt 2>&1; note "peers dsv3" $?
start=$SECONDS
timeout 340 $B tune --model llama3-8b --budget 320 --explore 48 --json > $L/long-1.jsonl \
    2> $L/long-1.err; note "long-1 wall $((SECONDS - start)) s" $?
cp $R/tune.db $L/long.db; note copied 0
