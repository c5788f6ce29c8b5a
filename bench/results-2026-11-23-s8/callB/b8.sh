#!/usr/bin/env bash
# session 8, device call B (H200): the llama3 grid at M >= 512 with promoted accumulation
# (the tune of call A) beside torch.tensor / torch.row (cuBLASLt's default, promoted path);
# a cold tune of the DeepSeek-V3 block keys (every layer of --model deepseek-v3 plus the peers
# grid's 2112x7168) at M = 1 … 4096; the dsv3 grid with that database beside torch.block.
# Packed into $OUT/callB.tgz after every step.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/B; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callB.tgz" -C $R logs; }
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_PATH=$PWD/cache
W8A8_CACHE_DB=$PWD/carry/tune-promoted.db timeout 170 python3 bench/compare.py --grid llama3 \
    --min-m 512 --scale tensor --scale row --promoted --bin $PWD/carry/static/w8a8 \
    --no-cublaslt --also torch.tensor.fast,torch.row.fast --save $L/llama-promoted \
    > $L/compare-llama-promoted.txt 2>&1
echo "compare promoted exit $?" >> $L/summary.txt; pk
export W8A8_CACHE_DB=$L/tune-dsv3.db
ms=1,16,64,128,256,512,1024,2048,4096
shapes=$(for m in ${ms//,/ }; do printf -- "--shape %s,2112,7168 " $m; done)
/usr/bin/time -v timeout 270 carry/static/w8a8 tune --model deepseek-v3 --m $ms $shapes --scale block \
    --budget 240 > $L/tune-dsv3.log 2> $L/tune-dsv3.err
echo "tune dsv3 exit $?" >> $L/summary.txt; pk
timeout 150 python3 bench/compare.py --grid dsv3 --scale block --bin $PWD/carry/static/w8a8 \
    --no-cublaslt --save $L/dsv3 > $L/compare-dsv3.txt 2>&1
echo "compare dsv3 exit $?" >> $L/summary.txt; pk
