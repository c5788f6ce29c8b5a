#!/usr/bin/env bash
# session 9, device call D (H200): overlap=1 offered to plain tunes with block scales.
# (1) a cold tune of the DeepSeek-V3 block keys (as call B); (2) the dsv3 grid with that
# database beside torch.block; (3) cache explain of every deepseek-v3 key from that database
# layered over the shipped caches; (4) the llama3 grid at M >= 512, fast per-tensor and
# per-row, with the shipped caches only (no regression off the block path).
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/D; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callD.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
B=$PWD/carry/static/w8a8
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$L/tune-dsv3.db
ms=1,16,64,128,256,512,1024,2048,4096
shapes=$(for m in ${ms//,/ }; do printf -- "--shape %s,2112,7168 " $m; done)
timeout 250 $B tune --model deepseek-v3 --m $ms $shapes --scale block --budget 220 \
    > $L/tune-dsv3.log 2> $L/tune-dsv3.err; note tune $?
timeout 80 python3 bench/compare.py --grid dsv3 --scale block --bin $B --no-cublaslt \
    --save $L/dsv3 > $L/compare-dsv3.txt 2>&1; note compare $?
python3 bench/param_wins.py $L/tune-dsv3.db overlap 1 > $L/overlap-wins.txt 2>&1
python3 bench/param_wins.py $L/tune-dsv3.db specialize 1 > $L/specialize-wins.txt 2>&1
keys=$(for m in ${ms//,/ }; do for nk in 2112,7168 4096,7168 7168,2048 7168,16384 24576,1536 32768,512; do printf "%s,%s " $m $nk; done; done)
W8A8_CACHE_PATH=$PWD/cache $B cache explain $keys --scale block,block > $L/explain-dsv3.txt 2>&1
note explain $?
export W8A8_CACHE_DB=$R/empty.db W8A8_CACHE_PATH=$PWD/cache
timeout 90 python3 bench/compare.py --grid llama3 --min-m 512 --scale tensor --scale row --bin $B \
    --no-cublaslt --save $L/llama-fast > $L/compare-llama-fast.txt 2>&1; note llama $?
