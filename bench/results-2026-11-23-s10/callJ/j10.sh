#!/usr/bin/env bash
# session 10, device call J (H100): the shipped H100 Llama-3.1-8B file from the final code.
# Cold 120 s tune of llama3-8b (empty database, cold cubin store), resumed with --explore 48
# until its lists run out (about 170 s); the database comes back; the 8B grid with it, then
# with the shipped caches, then peers.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/J; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callJ.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
B=$PWD/carry/static/w8a8
unset W8A8_CACHE_PATH
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$R/tune.db
s=$SECONDS; timeout 170 $B tune --model llama3-8b --budget 120 --json > $L/tune-120s.jsonl 2> $L/tune-120s.err
note "tune120 wall $((SECONDS - s)) s" $?
s=$SECONDS; timeout 260 $B tune --model llama3-8b --budget 240 --explore 48 --json > $L/long-1.jsonl \
    2> $L/long-1.err; note "resumed wall $((SECONDS - s)) s" $?
cp $R/tune.db $L/h100-8b.db; note copied 0
MS=1,16,64,128,256,512,1024,2048,4096,8192,16384
SH=$(for m in ${MS//,/ }; do for nk in 6144,4096 4096,4096 28672,4096 4096,14336; do printf -- "--shape %s,%s " $m $nk; done; done)
timeout 100 $B bench --json --model llama3-8b --m $MS --scale tensor --no-cublaslt \
    > $L/ours-8b-new.jsonl 2> $L/ours-8b-new.err; note "bench new" $?
W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$R/empty.db timeout 100 $B bench --json --model llama3-8b \
    --m $MS --scale tensor --no-cublaslt > $L/ours-8b-shipped.jsonl 2> $L/ours-8b-shipped.err
note "bench shipped" $?
timeout 120 python3 bench/peers.py $SH --providers torch.tensor.fast --out $L/peers-8b.jsonl \
    > $L/peers-8b.txt 2>&1; note "peers 8b" $?
