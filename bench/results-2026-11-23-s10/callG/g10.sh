#!/usr/bin/env bash
# session 10, device call G (H200): (1) every GPU suite of the new build in parallel, the sm90
# suite as its three tcases; (2) the Llama-3.1 grid per-tensor and per-row and the dsv3 grid
# (block), shipped caches, old (7fa37c8) and new build, then the torch peers.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/G; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callG.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $L/device.txt 2>&1
root=$PWD T0=$SECONDS
run_suite() { # name binary [case]
  ( mkdir -p $R/$1 && cd $R/$1 && s=$SECONDS && W8A8_KERNEL_DIR=$R/$1/k W8A8_CACHE_DB=$R/$1/t.db \
      W8A8_TEST_CACHE_DB=$R/$1/t.db W8A8_TEST_KERNEL_DIR=$R/$1/k CK_FORK=no CK_RUN_CASE=${3:-} \
      timeout 380 $root/$2 > $L/$1.log 2>&1; echo "$1 exit $? $((SECONDS - s)) s" >> $L/summary.txt ) &
}
for t in carry/static/tests/check_gpu_*; do
  n=$(basename $t)
  if [ $n = check_gpu_sm90 ]; then
    for c in gpu_sm90 block plan; do run_suite sm90-$c $t $c; done
  else
    run_suite $n $t
  fi
done
while [ -n "$(jobs -r)" ] && [ $((SECONDS - T0)) -lt 385 ]; do sleep 15; pk; done
wait; pk
export W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$R/empty.db
for s in tensor row; do
  for w in old static; do
    W8A8_KERNEL_DIR=$R/k-$w timeout 60 carry/$w/w8a8 bench --json --grid llama3 --scale $s \
        --no-cublaslt > $L/llama-$s-$w.jsonl 2> $L/llama-$s-$w.err; note "llama $s $w" $?
  done
done
timeout 90 python3 bench/peers.py --grid llama3 --providers torch.tensor.fast,torch.row.fast \
    --out $L/peers-llama.jsonl > $L/peers-llama.txt 2>&1; note "peers llama" $?
for w in old static; do
  W8A8_KERNEL_DIR=$R/k-$w timeout 60 carry/$w/w8a8 bench --json --grid dsv3 --scale block,block \
      --no-cublaslt > $L/dsv3-$w.jsonl 2> $L/dsv3-$w.err; note "dsv3 $w" $?
done
timeout 60 python3 bench/peers.py --grid dsv3 --providers torch.block --out $L/peers-dsv3.jsonl \
    > $L/peers-dsv3.txt 2>&1; note "peers dsv3" $?
