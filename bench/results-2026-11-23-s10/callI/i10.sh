#!/usr/bin/env bash
# session 10, device call I (H100): epilogue 2 (two output boxes staged at a time, a deeper
# ring). (1) every GPU suite in parallel (sm90 as its three tcases); (2) the 48 KB-stage space
# with epilogue 1 and 2 on call B's 8 shapes, then peers; (3) the cold 120 s llama3-8b tune
# with the final code, the 8B grid with its database, then peers.
set -u
cd "$(dirname "$0")/.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
R=/tmp/I; L=$R/logs; mkdir -p $L
pk() { tar czf "$OUT/callI.tgz" -C $R logs; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $L/device.txt 2>&1
root=$PWD T0=$SECONDS
run_suite() { # name binary [case]
  ( mkdir -p $R/$1 && cd $R/$1 && s=$SECONDS &&
    if [ -n "${3:-}" ]; then export CK_RUN_CASE=$3; fi &&
    W8A8_KERNEL_DIR=$R/$1/k W8A8_CACHE_DB=$R/$1/t.db W8A8_TEST_CACHE_DB=$R/$1/t.db \
      W8A8_TEST_KERNEL_DIR=$R/$1/k CK_FORK=no timeout 300 $root/$2 > $L/$1.log 2>&1
    echo "$1 exit $? $((SECONDS - s)) s" >> $L/summary.txt ) &
}
for t in carry/static/tests/check_gpu_*; do
  n=$(basename $t)
  if [ $n = check_gpu_sm90 ]; then
    for c in gpu_sm90 block plan; do run_suite sm90-$c $t $c; done
  else
    run_suite $n $t
  fi
done
while [ -n "$(jobs -r)" ] && [ $((SECONDS - T0)) -lt 305 ]; do sleep 10; pk; done
wait; pk
B=$PWD/carry/static/w8a8
S="--shape 512,4096,4096 --shape 1024,4096,4096 --shape 2048,4096,4096 --shape 4096,4096,4096 --shape 512,6144,4096 --shape 1024,6144,4096 --shape 4096,4096,14336 --shape 16384,4096,4096"
W8A8_KERNEL_DIR=$R/k-exp W8A8_CACHE_DB=$L/exp2.db timeout 200 $B tune --space carry/exp2_sm90.lua $S \
    --scale tensor --max-candidates 10000 --json > $L/exp2.jsonl 2> $L/exp2.err; note "exp2" $?
timeout 60 python3 bench/peers.py $S --providers torch.tensor.fast --out $L/peers-exp.jsonl \
    > $L/peers-exp.txt 2>&1; note peers-exp $?
unset W8A8_CACHE_PATH
export W8A8_KERNEL_DIR=$R/k W8A8_CACHE_DB=$R/tune.db
start=$SECONDS
timeout 170 $B tune --model llama3-8b --budget 120 --json > $L/tune-120s.jsonl 2> $L/tune-120s.err
note "tune120 wall $((SECONDS - start)) s" $?
MS=1,16,64,128,256,512,1024,2048,4096,8192,16384
SH=$(for m in ${MS//,/ }; do for nk in 6144,4096 4096,4096 28672,4096 4096,14336; do printf -- "--shape %s,%s " $m $nk; done; done)
timeout 100 $B bench --json --model llama3-8b --m $MS --scale tensor --no-cublaslt \
    > $L/ours-8b-120s.jsonl 2> $L/ours-8b-120s.err; note "bench 8b" $?
timeout 120 python3 bench/peers.py $SH --providers torch.tensor.fast --out $L/peers-8b.jsonl \
    > $L/peers-8b.txt 2>&1; note "peers 8b" $?
python3 bench/param_wins.py $R/tune.db epilogue 2 > $L/epilogue2-wins.txt 2>&1
