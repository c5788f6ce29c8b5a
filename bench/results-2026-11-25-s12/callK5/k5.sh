#!/usr/bin/env bash
# session 12, device call K5 (H100): the compile queue paced on a budget (kq_set_horizon). Cold
# 120 s llama3-8b tune (empty database, cold cubin store), the 8B grid with it twice, peers; then
# check_gpu_tune.
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
S=/tmp/s12k5; L=$S/logs5; rm -rf $S; mkdir -p $L
pk() { tar czf "$OUT/callK5.tgz" -C $S logs5; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $L/gpu.txt 2>&1
B=$PWD/carry/static/w8a8
unset W8A8_CACHE_PATH
export W8A8_KERNEL_DIR=$S/k
s=$SECONDS; W8A8_CACHE_DB=$S/A.db timeout 150 $B tune --model llama3-8b --budget 120 --json \
    > $L/tune-120s.jsonl 2> $L/tune-120s.err
note "A tune120 wall $((SECONDS - s)) s" $?
MS=1,16,64,128,256,512,1024,2048,4096,8192,16384
SH=$(for m in ${MS//,/ }; do for nk in 6144,4096 4096,4096 28672,4096 4096,14336; do printf -- "--shape %s,%s " $m $nk; done; done)
for r in 1 2; do W8A8_CACHE_DB=$S/A.db timeout 60 $B bench --json --model llama3-8b --m $MS --scale tensor \
    --no-cublaslt > $L/ours-A-$r.jsonl 2> $L/ours-A-$r.err; note "bench A $r" $?; done
timeout 90 python3 carry/peers.py $SH --providers torch.tensor.fast --out $L/peers-8b.jsonl \
    > $L/peers-8b.txt 2>&1; note "peers 8b" $?
W8A8_CACHE_DB=$S/A.db $B cache export $L/A-winners.sql --winners >> $L/summary.txt 2>&1
gzip $L/tune-120s.jsonl; pk
(mkdir -p $S/t && cd $S/t && W8A8_KERNEL_DIR=$S/t/k W8A8_CACHE_DB=$S/t/t.db W8A8_TEST_CACHE_DB=$S/t/t.db \
  W8A8_TEST_KERNEL_DIR=$S/t/k CK_FORK=no timeout 60 $(dirname $B)/tests/check_gpu_tune > $L/check_gpu_tune.log 2>&1)
note check_gpu_tune $?
cat $L/summary.txt
for f in $L/ours-A-1.jsonl $L/ours-A-2.jsonl; do python3 carry/ratio.py $f $L/peers-8b.jsonl torch.tensor.fast --min-m 512 | tail -n 1; python3 carry/ratio.py $f $L/peers-8b.jsonl torch.tensor.fast --max-m 256 | tail -n 1; done
zcat $L/tune-120s.jsonl.gz | grep profile
