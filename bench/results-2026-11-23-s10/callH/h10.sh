#!/usr/bin/env bash
# session 10, device call H (H100): (1) the seven GPU suites besides sm90 (call G ran them with
# an empty CK_RUN_CASE, which runs no tcase), in parallel; (2) the 8b grid per-tensor with the
# shipped caches and with call D's 289 s database (new kernel), interleaved twice, then peers.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/H; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callH.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $L/device.txt 2>&1
root=$PWD T0=$SECONDS
for t in carry/static/tests/check_gpu_*; do
  n=$(basename $t)
  [ $n = check_gpu_sm90 ] && continue
  ( mkdir -p $R/$n && cd $R/$n && s=$SECONDS && W8A8_KERNEL_DIR=$R/$n/k W8A8_CACHE_DB=$R/$n/t.db \
      W8A8_TEST_CACHE_DB=$R/$n/t.db W8A8_TEST_KERNEL_DIR=$R/$n/k CK_FORK=no \
      timeout 250 $root/$t > $L/$n.log 2>&1; echo "$n exit $? $((SECONDS - s)) s" >> $L/summary.txt ) &
done
while [ -n "$(jobs -r)" ] && [ $((SECONDS - T0)) -lt 255 ]; do sleep 10; pk; done
wait; pk
B=$PWD/carry/static/w8a8
MS=1,16,64,128,256,512,1024,2048,4096,8192,16384
SH=$(for m in ${MS//,/ }; do for nk in 6144,4096 4096,4096 28672,4096 4096,14336; do printf -- "--shape %s,%s " $m $nk; done; done)
for round in 1 2; do
  W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$R/empty.db W8A8_KERNEL_DIR=$R/k timeout 100 $B bench \
      --json --model llama3-8b --m $MS --scale tensor --no-cublaslt > $L/ours-8b-shipped-$round.jsonl \
      2> $L/ours-8b-shipped-$round.err; note "shipped $round" $?
  ( unset W8A8_CACHE_PATH; W8A8_CACHE_DB=$PWD/carry/db/h100-long.db W8A8_KERNEL_DIR=$R/k timeout 100 \
      $B bench --json --model llama3-8b --m $MS --scale tensor --no-cublaslt \
      > $L/ours-8b-long-$round.jsonl 2> $L/ours-8b-long-$round.err ); note "long $round" $?
done
timeout 120 python3 bench/peers.py $SH --providers torch.tensor.fast --out $L/peers-8b.jsonl \
    > $L/peers-8b.txt 2>&1; note "peers 8b" $?
