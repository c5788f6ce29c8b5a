#!/usr/bin/env bash
# D5 (H200): stream-K (streamk=1, new) in plain tunes seeded by the shipped caches, every
# measurement kept: DeepSeek-V3 block keys at M = 256...4096 and Llama-3.1 8B / 70B per-tensor
# FP8 keys at M = 512...2048 (stream-K is offered at M > 128 where a config's tiles fill under
# 0.9 of their persistent waves); then every tuned key, shipped rows (A) against the tune's
# winners (B) as graph replays A B B A; then check_gpu_sm90's four tcases (stream-K configs
# on odd shapes, bitwise runs, moved tiles, grids).
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
db=/tmp/d5.db
t() { # NAME BUDGET ARGS...
  local name=$1 budget=$2; shift 2
  W8A8_CACHE_PATH=$(ls cache/h200-*.sql | tr '\n' ':') W8A8_CACHE_DB=$db W8A8_KERNEL_DIR=/tmp/k5 \
    timeout $((budget + 40)) carry/static/w8a8 tune --budget $budget --max-candidates 40 \
    --watchdog 10 "$@" --json > $o/tune-$name.jsonl 2> $o/tune-$name.err
  echo "tune $name exit $? $SECONDS" >> $o/gpu.txt
}
t dsv3 100 --model deepseek-v3 --m 256,512,1024,2048,4096 --scale block,block
t l8 50 --model llama3-8b --m 512,1024,2048
t l70 50 --model llama3-70b --m 512,1024,2048
shapes() { python3 -c "
import json,sys
for l in open('$o/tune-$1.jsonl'):
    d=json.loads(l)
    if d.get('type')=='winner': print('%d,%d,%d'%(d['m'],d['n'],d['k']))"; }
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k5
B_DB=$db CHUNK=24 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8 $o/ab-block.jsonl block,block \
  $(shapes dsv3) 2>> $o/err.log
echo "ab block $SECONDS" >> $o/gpu.txt
B_DB=$db CHUNK=24 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8 $o/ab-tensor.jsonl tensor,tensor \
  $(shapes l8) $(shapes l70) 2>> $o/err.log
echo "ab tensor $SECONDS" >> $o/gpu.txt
gzip -c $db > $o/tune.db.gz
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm90" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 \
  W8A8_TEST_TIMEOUT=$((575 - SECONDS)) W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o \
  scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
