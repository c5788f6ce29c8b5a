#!/usr/bin/env bash
# A7 (session 23, H200): the block loop's time split into a part that grows with K and one
# that does not (prologue, epilogue, pipeline fill: per tile). One config at a time (128x128
# two consumers, 192x128 three consumers, and the same 128x128 per-tensor), 4096x4096xK for
# K = 1024 ... 14336, each tuned alone (1 candidate) and then benched in 3 rounds.
set -u
o=$(mktemp -d)/a7; mkdir -p $o
pk() { tar czf $OUT/a7.tgz -C $(dirname $o) a7; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/ka7
S="4096,4096,1024 4096,4096,2048 4096,4096,4096 4096,4096,7168 4096,4096,14336 1024,4096,7168 2048,4096,7168"
args() { for s in $1; do printf ' --shape %s' $s; done; }
for v in one:a3-one:block three:a6-three:block tensor:a3-one:tensor; do
  IFS=: read name space scale <<< "$v"
  W8A8_CACHE_DB=/tmp/a7-$name.db timeout 100 $b tune --space carry/$space.lua --scale $scale $(args "$S") --json > $o/tune-$name.jsonl 2>> $o/err.log
done
echo "tune $SECONDS" >> $o/summary.txt; pk
export W8A8_TUNE=off
for r in 1 2 3; do for v in one:block three:block tensor:tensor; do IFS=: read name scale <<< "$v"
  W8A8_CACHE_DB=/tmp/a7-$name.db timeout 60 $b bench --json --no-cublaslt --graph $(args "$S") --scale $scale | sed "s/^{/{\"build\": \"$name\", \"round\": $r, /" >> $o/probe.jsonl 2>>$o/err.log
done; done
echo "bench $SECONDS" >> $o/summary.txt; pk
