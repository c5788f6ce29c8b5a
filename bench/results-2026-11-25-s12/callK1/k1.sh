#!/usr/bin/env bash
# session 12, device call K1 (H100): issue 12's first-run tune and the start of the long tune.
# A: cold 120 s tune of llama3-8b (empty database, cold cubin store). B: A's database resumed
# for 400 s (the long tune, continued in calls K2 and K3 on the same warm machine: its state
# lives in build/s12, which the device keeps between calls).
set -u
cd "$(dirname "$0")/../.."
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}" PYTHONUNBUFFERED=1
S=$PWD/build/s12; L=$S/logs1; rm -rf $S; mkdir -p $L
pk() { tar czf "$OUT/callK1.tgz" -C $S logs1; }
note() { echo "$1 exit $2 at $SECONDS s" >> $L/summary.txt; pk; }
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit,driver_version --format=csv > $L/gpu.txt 2>&1
nproc >> $L/gpu.txt
B=$PWD/carry/static/w8a8
unset W8A8_CACHE_PATH
export W8A8_KERNEL_DIR=$S/k
s=$SECONDS; W8A8_CACHE_DB=$S/A.db timeout 170 $B tune --model llama3-8b --budget 120 --json \
    > $L/tune-120s.jsonl 2> $L/tune-120s.err
note "A tune120 wall $((SECONDS - s)) s" $?
cp $S/A.db $S/B.db; gzip -c $S/A.db > $L/A.db.gz
s=$SECONDS; W8A8_CACHE_DB=$S/B.db timeout 440 $B tune --model llama3-8b --budget 400 \
    --max-candidates 4096 --json > $L/long-1.jsonl 2> $L/long-1.err
note "B resumed-1 wall $((SECONDS - s)) s" $?
gzip $L/*.jsonl; ls -la $S >> $L/summary.txt; pk
