#!/usr/bin/env bash
# Z9 (session 22, H200): is Z2's "no loaders" gain the loaders, or the stale scale data its
# promotion multiplied by? Template variants of the HEAD build (W8A8_TEMPLATE_DIR, results
# wrong, timing only), 128x128 tile (5 stages, two consumers, epilogue 1, specialize 1),
# overlap 0 and 1 (carry/z9/cO.sql), at 4096x4096x7168 and 512x4096x14336:
#   emb  HEAD
#   nl   no loader warps, consumers read the (stale) scale areas (Z2's noloaders)
#   nl1  no loader warps, consumers take 1.0 for every scale (real FFMA work, no stale data)
#   nr1  the loaders copy as HEAD, consumers take 1.0 (Z2's noread)
#   nr0  the loaders copy as HEAD, consumers take 0.0
# Two rounds, the second in reverse order.
set -u
o=$(mktemp -d)/z9; mkdir -p $o
pk() { tar czf $OUT/z9.tgz -C $(dirname $o) z9; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi -L > $o/gpu.txt
export W8A8_CACHE_PATH=/nonexistent W8A8_TUNE=off
for c in c0 c1; do rm -f /tmp/z9-$c.db; W8A8_CACHE_DB=/tmp/z9-$c.db carry/static/w8a8 cache import carry/z9/$c.sql >> $o/err.log 2>&1; done
V="emb nl nl1 nr1 nr0"
for r in 1 2; do
  order=$V; [ $r = 2 ] && order=$(echo $V | tr ' ' '\n' | tac | tr '\n' ' ')
  for v in $order; do for c in c0 c1; do
    td=""; [ $v != emb ] && td="W8A8_TEMPLATE_DIR=$PWD/carry/tpl/$v"
    env $td W8A8_KERNEL_DIR=/tmp/kz9-$v W8A8_CACHE_DB=/tmp/z9-$c.db timeout 60 carry/static/w8a8 bench --json --no-cublaslt --graph \
      --shape 4096,4096,7168 --shape 512,4096,14336 --scale block | sed "s/^{/{\"variant\": \"$v\", \"round\": $r, /" >> $o/bench.jsonl 2>>$o/err.log
  done; done
  echo "round $r $SECONDS" >> $o/summary.txt; pk
done
