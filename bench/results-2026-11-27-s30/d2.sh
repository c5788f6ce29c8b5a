#!/usr/bin/env bash
# D2 (H200): plain tunes seeded by the shipped H200 caches (each key first times the shipped
# winners of its bucket and of buckets within 4x; the tuner rejects spilling kernels), every
# measurement kept: (1) DeepSeek-V3 block keys at M = 64...4096 (split-K now combines with
# overlap at M <= 128); (2) per-row FP8 keys whose shipped 128x192 ping-pong winners spill
# since session 28; (3) block keys whose shipped 128x128 overlap-3 generic winners may spill.
# Then check_gpu_sm90's four tcases on this build (split with overlap).
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$(ls cache/h200-*.sql | tr '\n' ':')
nvidia-smi -L > $o/gpu.txt
t() { # NAME BUDGET ARGS...
  local name=$1 budget=$2; shift 2
  W8A8_CACHE_DB=$o/tune.db W8A8_KERNEL_DIR=/tmp/k2 timeout $((budget + 30)) carry/static/w8a8 tune \
    --budget $budget --max-candidates 40 "$@" --json > $o/tune-$name.jsonl 2> $o/tune-$name.err
  echo "tune $name exit $? $SECONDS" >> $o/gpu.txt
}
t dsv3 200 --model deepseek-v3 --m 64,128,256,512,1024,2048,4096 --scale block,block
t row 60 --scale row,row --shape 6144,4096,4096 --shape 1536,6144,4096 --shape 3072,6144,4096 \
  --shape 2048,28672,4096 --shape 8192,28672,4096 --shape 8192,57344,8192
t block 60 --scale block,block --shape 12288,1536,7168 --shape 16384,1536,7168 \
  --shape 12288,2112,7168 --shape 3072,4096,7168 --shape 12288,4096,7168 \
  --shape 1536,6144,4096 --shape 3072,10240,8192 --shape 192,57344,8192
gzip $o/tune.db
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm90" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites W8A8_SKIP_CHECK=1 \
  W8A8_TEST_TIMEOUT=$((570 - SECONDS)) W8A8_CACHE_DB=/tmp/t.db W8A8_KERNEL_DIR=/tmp/tk OUT=$o \
  scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2 && rm -rf $o
