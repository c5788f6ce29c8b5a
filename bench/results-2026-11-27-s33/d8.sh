#!/usr/bin/env bash
# D8 (H200): the GPU suites the session's changes touch (swap: the swap-AB epilogue; tune: the
# seeded named tune; dispatch), then a seeded named tune (`tune --space sm90_gemm --seed`,
# bench/sweep_rows.sh SEED=1) of the block keys that ran below torch.block in session 32's
# closing grids, the shipped rows (A) against its winners (B), A B B A.
o=$OUT/d8; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="swap dispatch tune" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=300 OUT=$o scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? $SECONDS" >> $o/gpu.txt
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k8
echo "sm90_gemm 512,7168,16384 2048,4096,7168 1024,4096,7168 4096,4096,7168 2048,24576,1536 256,8192,8192 512,4096,14336" > $o/groups.txt
SEED=1 BUDGET=${D8_BUDGET:-170} CHUNK=7 bench/sweep_rows.sh $o/groups.txt block fast $o/block /tmp/d8-block.db
echo "block $SECONDS" >> $o/gpu.txt
carry/static/w8a8 cache --db /tmp/d8-block.db export $o/block/winners.sql --winners >> $o/gpu.txt 2>&1
gzip $o/block/tune-block.jsonl
tar czf $OUT/d8.tgz -C $OUT d8 && rm -rf $o
