#!/usr/bin/env bash
# D15 (H200): check_gpu_tune on the sibling seeds (a per-tensor or per-row key also times its
# siblings' answers at its bucket), then seeded plain retunes with them of the FP8 per-tensor
# and per-row Llama keys at M = 256…4096, A B B A against the shipped rows
# (bench/sweep_rows.sh).
o=$OUT/d15; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="tune" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? $SECONDS" >> $o/gpu.txt
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k15
keys=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 256 512 1024 2048 4096; do keys="$keys $m,$nk"; done
done
echo "-$keys" > $o/groups.txt
for s in tensor row; do
  BUDGET=${D15_BUDGET:-130} CHUNK=20 bench/sweep_rows.sh $o/groups.txt $s fast $o/$s /tmp/d15-$s.db
  echo "$s $SECONDS" >> $o/gpu.txt
  carry/static/w8a8 cache --db /tmp/d15-$s.db export $o/$s/winners.sql --winners >> $o/gpu.txt 2>&1
  gzip $o/$s/tune-$s.jsonl
done
tar czf $OUT/d15.tgz -C $OUT d15 && rm -rf $o
