#!/usr/bin/env bash
# C9 (session 24, H200): C8 showed a plain tune on the new space beating a shipped row by
# 8-11 % (4096x4096x7168). Plain tunes (embedded space, fresh database) of the block keys of
# the DeepSeek-V3 (N, K) at M 256...4096 and the Llama (N, K) at M 256 and 512 (46 keys, budget
# 200 s), and of the promoted keys that trail torch.tensor / torch.row in C6 (budget 40 s);
# then the shipped rows (A) against the tunes' winners (B) as graph replays, A B B A, 23 shapes
# a process.
set -u
o=$(mktemp -d)/c9; mkdir -p $o
pk() { tar czf $OUT/c9.tgz -C $(dirname $o) c9; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
export W8A8_KERNEL_DIR=/tmp/kc9
args() { for s in $1; do printf ' --shape %s' $s; done; }
BK=""; for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 256 512 1024 2048 4096; do BK="$BK $m,$nk"; done; done
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 256 512; do BK="$BK $m,$nk"; done; done
PT="4096,4096,4096 512,6144,4096 8192,57344,8192 1024,4096,14336"
PR="2048,6144,4096"
( unset W8A8_CACHE_PATH
  W8A8_CACHE_DB=/tmp/c9.db timeout 215 $b tune --scale block --budget 200 $(args "$BK") --json > $o/tune-block.jsonl 2> $o/tune-block.log
  echo "tune block $? $SECONDS" >> $o/summary.txt
  W8A8_CACHE_DB=/tmp/c9.db timeout 45 $b tune --scale tensor --accum promoted --budget 35 $(args "$PT") --json > $o/tune-tensor.jsonl 2> $o/tune-tensor.log
  W8A8_CACHE_DB=/tmp/c9.db timeout 25 $b tune --scale row --accum promoted --budget 18 $(args "$PR") --json > $o/tune-row.jsonl 2> $o/tune-row.log
  echo "tune promoted $? $SECONDS" >> $o/summary.txt
  $b cache --db /tmp/c9.db export $o/c9.sql --winners 2>>$o/err.log ); pk
ab() { # shapes scale accum round
  local q=0 v
  for v in A B B A; do q=$((q+1))
    if [ $v = A ]; then env W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/c9-empty.db W8A8_TUNE=off \
        timeout 150 $b bench --json --no-cublaslt --graph $(args "$1") --scale $2 --accum $3
    else env -u W8A8_CACHE_PATH W8A8_CACHE_DB=/tmp/c9.db W8A8_TUNE=off \
        timeout 150 $b bench --json --no-cublaslt --graph $(args "$1") --scale $2 --accum $3
    fi | sed "s/^{/{\"build\": \"$v\", \"round\": $4, \"seq\": $q, /" >> $o/ab.jsonl 2>>$o/err.log
  done
}
set -- $BK; r=0
while [ $# -gt 0 ]; do
  c=""; for i in $(seq 23); do [ $# -gt 0 ] && { c="$c $1"; shift; }; done
  r=$((r+1)); ab "$c" block fast $r
done
ab "$PT" tensor promoted 10; ab "$PR" row promoted 11
echo "ab $SECONDS" >> $o/summary.txt; pk
