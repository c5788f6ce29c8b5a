#!/usr/bin/env bash
# session 9, device call C (H200): (1) all 8 GPU suites from the final kernel (sm90 whole:
# both tcases); (2) a named-space tune (w8a8 tune --space sm90_gemm: overlap and stagger at
# every M) of the DeepSeek-V3 block shapes at M = 512, 2048, 4096, and where overlap=1 and
# stagger=1 win in it (param_wins.py); (3) the dsv3 grid from the shipped caches only
# beside torch.block, and cache explain of every deepseek-v3 key. Packed into $OUT/callC.tgz.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/C; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callC.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
root=$PWD T0=$SECONDS
for t in carry/static/tests/check_gpu_*; do
  n=$(basename $t)
  ( mkdir -p $R/$n && cd $R/$n && s=$SECONDS && W8A8_KERNEL_DIR=$R/$n/k W8A8_CACHE_DB=$R/$n/t.db \
      W8A8_TEST_CACHE_DB=$R/$n/t.db W8A8_TEST_KERNEL_DIR=$R/$n/k CK_FORK=no timeout 330 \
      $root/$t > $L/$n.log 2>&1; echo "$n exit $? $((SECONDS - s)) s" >> $L/summary.txt ) &
done
while [ -n "$(jobs -r)" ] && [ $((SECONDS - T0)) -lt 335 ]; do sleep 15; pk; done
wait; pk
B=$PWD/carry/static/w8a8
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$R/empty.db
timeout 60 python3 bench/compare.py --grid dsv3 --scale block --bin $B --no-cublaslt \
    --save $L/dsv3-shipped > $L/compare-dsv3-shipped.txt 2>&1; note compare $?
ms=1,16,64,128,256,512,1024,2048,4096
keys=$(for m in ${ms//,/ }; do for nk in 2112,7168 4096,7168 7168,2048 7168,16384 24576,1536 32768,512; do printf "%s,%s " $m $nk; done; done)
$B cache explain $keys --scale block,block > $L/explain-dsv3.txt 2>&1; note explain $?
export W8A8_CACHE_DB=$L/named.db
shapes=$(for m in 512 2048 4096; do for nk in 4096,7168 7168,2048 24576,1536 32768,512; do printf -- "--shape %s,%s " $m $nk; done; done)
timeout 150 $B tune --space sm90_gemm $shapes --scale block --budget 130 > $L/tune-named.log \
    2> $L/tune-named.err; note tune $?
for p in overlap stagger specialize; do
  python3 bench/param_wins.py $L/named.db $p 1 > $L/$p-wins.txt 2>&1
done; note wins $?
